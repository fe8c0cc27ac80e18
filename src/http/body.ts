// Request bodies: JSON only, at most MAX_BODY_BYTES whether or not the client sent a length.
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
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new PayloadTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
