// A body stream read as text, chunk by chunk, and abandoned as soon as it passes a byte limit, so
// neither a client's chunked upload nor an upstream's answer can grow our memory past the limit.

/** The text of `body`, or null (the stream cancelled) once it passes `limit` bytes. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | null> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
