// Who is calling, as both faces see it: the API key sent on this very request, and the client's
// network address (the rate-limit bucket for calls without a usable key).

export interface Caller {
  apiKey?: string;
  address: string;
}

export function apiKeyOf(headers: Headers): string | undefined {
  const key = headers.get('x-api-key')?.trim();
  if (key) return key;
  const auth = headers.get('authorization')?.trim();
  return auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() || undefined : undefined;
}

type RequestIpServer = { requestIP(req: Request): { address: string } | null } | null | undefined;

/** The client's network address as the socket sees it. */
export function clientAddress(request: Request, server: unknown): string {
  return (server as RequestIpServer)?.requestIP(request)?.address ?? 'unknown';
}
