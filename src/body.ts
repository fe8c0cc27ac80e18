// Request bodies: JSON only, at most MAX_BODY_BYTES whether or not the client sent a length. Read
// for Elysia's routes by the app's parse hook and by a face's direct routes (direct-route.ts),
// which answer a refused body alike.
import { jsonResponse as json } from './json.ts';
import { readCapped } from './read-capped.ts';

export const MAX_BODY_BYTES = 64 * 1024;

export class PayloadTooLarge extends Error {
  readonly status = 413;
}

export class MalformedBody extends Error {
  readonly status = 400;
}

/** Reads at most `limit` bytes, stopping (and refusing) as soon as a chunked body goes past it. */
export async function readLimited(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = request.headers.get('content-length');
  if (Number(declared ?? 0) > limit) throw new PayloadTooLarge();
  // A declared length is the body's exact length (the server frames the request by it): read it whole.
  if (declared !== null) return request.text();
  const text = await readCapped(request.body, limit);
  if (text === null) throw new PayloadTooLarge();
  return text;
}

export async function parseJsonBody(request: Request): Promise<unknown> {
  const text = await readLimited(request);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedBody('body is not valid JSON');
  }
}

/** The JSON answer to a body `parseJsonBody` refused (413 or 400), or undefined for anything else thrown. */
export function bodyRefusal(e: unknown): Response | undefined {
  if (e instanceof PayloadTooLarge) return json(413, { error: 'Request body too large', hint: `Bodies are limited to ${MAX_BODY_BYTES} bytes.`, live_status: 'FAILED' });
  if (e instanceof MalformedBody) return malformed();
  return undefined;
}

export const malformed = () => json(400, { error: 'Malformed request body', hint: 'Send Content-Type: application/json with a valid JSON object.', live_status: 'FAILED' });
