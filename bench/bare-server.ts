// The ceiling for any handler: a bare Bun.serve answering a small JSON object, serialized per
// request like the gateway's answers. Run by bench/hot-path.ts as its own process.
// Run: bun bench/bare-server.ts <port>
const port = Number(process.argv[2]);
Bun.serve({
  port,
  hostname: '127.0.0.1',
  fetch: () => Response.json({ blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: 342_000_150, slot: 364_000_000 }),
});
console.log('ready');
