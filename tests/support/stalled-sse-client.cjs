// Run by Node (not Bun): opens legacy MCP SSE sessions and stops reading each once its endpoint
// event arrived; Node's socket.pause() really stops reading, so the gateway's writes back up.
// Prints one JSON line: {"endpoints":[...],"failures":[...]} once every socket either opened its
// session or failed. Exits by itself when its parent closes stdin or after a hard lifetime, so a
// test that is killed or times out cannot leave it behind.
//   node stalled-sse-client.cjs PORT COUNT LIFETIME_MS
const net = require('node:net');
const [port, count, lifetimeMs] = process.argv.slice(2).map(Number);
const endpoints = [];
const failures = [];
const settle = () => {
  if (endpoints.length + failures.length === count) process.stdout.write(JSON.stringify({ endpoints, failures }) + '\n');
};
for (let i = 0; i < count; i++) {
  const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('GET /mcp/sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n'));
  let head = '';
  let done = false;
  const fail = (why) => {
    if (done) return;
    done = true;
    failures.push(why);
    settle();
  };
  const onData = (d) => {
    head += d.toString('utf8');
    const status = /^HTTP\/1\.1 (\d+)/.exec(head);
    if (status && status[1] !== '200') return fail(`HTTP ${status[1]}`);
    const m = /data: (\/mcp\/messages\?sessionId=[\w-]+)/.exec(head);
    if (!m || done) return;
    done = true;
    socket.off('data', onData);
    socket.pause();
    endpoints.push(m[1]);
    settle();
  };
  socket.on('data', onData);
  socket.on('error', (e) => fail(e.code ?? String(e)));
  socket.on('close', () => fail('closed before the endpoint event'));
}
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(0), lifetimeMs);
