// The ceiling for any handler: a bare Bun.serve answering a small JSON object, serialized per
// request like the gateway's answers. Run by bench/hot-path.ts as its own process. With `post`
// it first reads each request's body as JSON, as any MCP call over Streamable HTTP must.
// Run: bun bench/bare-server.ts <port> [post]
const port = Number(process.argv[2]);
const answer = { blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: 342_000_150, slot: 364_000_000 };
Bun.serve({
  port,
  hostname: '127.0.0.1',
  fetch:
    process.argv[3] === 'post'
      ? async (request) => {
          if (request.method === 'POST') JSON.parse(await request.text());
          return Response.json(answer);
        }
      : () => Response.json(answer),
});
console.log('ready');
