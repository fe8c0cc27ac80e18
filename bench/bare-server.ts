// The ceiling for any handler: a bare Bun.serve answering a small JSON object, serialized per
// request like the gateway's answers. Run by bench/hot-path.ts as its own process. With `post`
// it first reads each request's body as JSON, as any MCP call over Streamable HTTP must. With
// `sse` it answers every request with an event stream that stays open, its first event sent:
// the floor of a legacy SSE session's memory (bench/mcp-sessions.ts). With `peer` it also reads
// what any access line with a client address and a key id, or any limiter per address or key,
// must read in Bun: the peer's address (server.requestIP) and one request header.
// Run: bun bench/bare-server.ts <port> [post|sse|peer]
const port = Number(process.argv[2]);
const answer = { blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: 342_000_150, slot: 364_000_000 };
const ENDPOINT = new TextEncoder().encode('event: endpoint\ndata: /mcp/messages?sessionId=0b6f1d2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b\n\n');
const openStreams = new Set<ReadableStreamDefaultController<Uint8Array>>();
// As the gateway's stream (src/mcp/sse-transport.ts): a disconnect is seen by cancel, the request's signal is not read.
const sse = () => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => void openStreams.delete(controller) }, { highWaterMark: 0 });
  openStreams.add(controller);
  controller.enqueue(ENDPOINT);
  return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
};
const mode = process.argv[3];
Bun.serve({
  port,
  hostname: '127.0.0.1',
  idleTimeout: mode === 'sse' ? 0 : undefined,
  fetch:
    mode === 'post'
      ? async (request) => {
          if (request.method === 'POST') JSON.parse(await request.text());
          return Response.json(answer);
        }
      : mode === 'sse'
        ? sse
        : mode === 'peer'
          ? (request, server) => {
              server.requestIP(request);
              request.headers.get('x-api-key');
              return Response.json(answer);
            }
          : () => Response.json(answer),
});
console.log('ready');
