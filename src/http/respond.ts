import { toJson } from '../json.ts';

/** A JSON response; bigints are written as exact integers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(toJson(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

type RequestIpServer = { requestIP(req: Request): { address: string } | null } | null | undefined;

/** The client's network address, the rate-limit bucket for calls without a key. */
export function clientAddress(request: Request, server: unknown): string {
  return (server as RequestIpServer)?.requestIP(request)?.address ?? 'unknown';
}

export function apiKeyOf(headers: Headers): string | undefined {
  const key = headers.get('x-api-key')?.trim();
  if (key) return key;
  const auth = headers.get('authorization')?.trim();
  return auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() || undefined : undefined;
}
