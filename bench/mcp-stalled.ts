// Clients that open legacy SSE sessions and then stop reading: 300 of them (in a Node process,
// whose pause() really stops reading the socket) are each sent 200 tools/list calls, about 2.2 MB
// of answers each. Prints the gateway's peak RSS, whether /healthz kept answering, and how many
// of the stalled sessions the gateway closed (a message to a closed one is answered 404).
//
//   bun bench/mcp-stalled.ts [--sessions 300] [--calls 200]
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const SESSIONS = Number(arg('sessions', '300'));
const CALLS = Number(arg('calls', '200'));
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const STALLED = `
const net = require('node:net');
const port = Number(process.argv[1]), count = Number(process.argv[2]);
const endpoints = [];
for (let i = 0; i < count; i++) {
  const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('GET /mcp/sse HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAccept: text/event-stream\\r\\n\\r\\n'));
  let head = '';
  const onData = (d) => {
    head += d.toString('utf8');
    const m = /data: (\\/mcp\\/messages\\?sessionId=[\\w-]+)/.exec(head);
    if (!m) return;
    socket.off('data', onData);
    socket.pause();
    endpoints.push(m[1]);
    if (endpoints.length === count) process.stdout.write(JSON.stringify(endpoints) + '\\n');
  };
  socket.on('data', onData);
  socket.on('error', () => {});
}
setInterval(() => {}, 1 << 30);
`;

const dir = mkdtempSync(join(tmpdir(), 'cig-bench-stalled-'));
const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
const port = probe.port;
probe.stop(true);
const url = `http://127.0.0.1:${port}`;
const gw = Bun.spawn(['bun', join(import.meta.dir, '../src/main.ts')], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'gw.sqlite'), MAINNET_RPC_URLS: 'http://127.0.0.1:9', DEPOSIT_POLL_SECONDS: '0', RATE_LIMIT_RPS: '0', MCP_MAX_SESSIONS_PER_ADDRESS: '100000', LOG_LEVEL: 'warn' },
  stdout: 'ignore',
  stderr: 'ignore',
});
const spawnClients = () => Bun.spawn(['node', '-e', STALLED, String(port), String(SESSIONS)], { stdout: 'pipe', stderr: 'inherit' });
let clients: ReturnType<typeof spawnClients> | undefined;
try {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(100);
  }
  const idle = rssMb(gw.pid);
  clients = spawnClients();
  const reader = clients.stdout.getReader();
  let line = '';
  while (!line.includes('\n')) line += new TextDecoder().decode((await reader.read()).value);
  const endpoints = JSON.parse(line) as string[];
  const post = (endpoint: string, body: unknown) =>
    fetch(url + endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.status);
  await Promise.all(endpoints.map((e) => post(e, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'stalled', version: '1' } } })));
  let peak = rssMb(gw.pid);
  let healthy = true;
  for (let sent = 0; sent < CALLS; sent += 20) {
    await Promise.all(endpoints.map((e) => post(e, Array.from({ length: Math.min(20, CALLS - sent) }, (_, i) => ({ jsonrpc: '2.0', id: 1 + sent + i, method: 'tools/list' })))));
    peak = Math.max(peak, rssMb(gw.pid));
    healthy &&= (await fetch(`${url}/healthz`)).ok;
  }
  const statuses = await Promise.all(endpoints.map((e) => post(e, { jsonrpc: '2.0', id: 1e6, method: 'ping' })));
  console.log(`command: bun ${process.argv.slice(1).join(' ')}`);
  console.log(`machine: ${cpus()[0]?.model} x${cpus().length}, bun ${Bun.version}`);
  console.log(`${SESSIONS} stalled SSE sessions x ${CALLS} calls: RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB; /healthz ${healthy ? 'answered throughout' : 'FAILED'}; closed by the gateway: ${statuses.filter((s) => s === 404).length} of ${SESSIONS}`);
} finally {
  clients?.kill();
  gw.kill('SIGTERM');
  await gw.exited;
  rmSync(dir, { recursive: true, force: true });
}
