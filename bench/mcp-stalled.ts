// Clients that open legacy SSE sessions and then stop reading: 300 of them (in a Node process,
// whose pause() really stops reading the socket) are each sent 200 tools/list calls, about 2.2 MB
// of answers each. Prints the gateway's peak RSS, whether /healthz kept answering, and how many
// of the stalled sessions the gateway closed (a message to a closed one is answered 404).
// tests/integration/mcp-stalled.test.ts asserts the same run; extra env (e.g.
// MCP_STREAM_BUFFER_BYTES) is passed to the gateway.
//
//   bun bench/mcp-stalled.ts [--sessions 300] [--calls 200]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGateway } from '../tests/support/process.ts';
import { floodStalledSessions, openStalledSessions, procMb, type StalledClients } from '../tests/support/stalled-sse.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const SESSIONS = Number(arg('sessions', '300'));
const CALLS = Number(arg('calls', '200'));

const dir = mkdtempSync(join(tmpdir(), 'cig-bench-stalled-'));
const passed = Object.fromEntries(['MCP_STREAM_BUFFER_BYTES'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
const gw = await spawnGateway({ DATABASE_PATH: join(dir, 'gw.sqlite'), MAINNET_RPC_URLS: 'http://127.0.0.1:9', DEPOSIT_POLL_SECONDS: '0', RATE_LIMIT_RPS: '0', MCP_MAX_SESSIONS_PER_ADDRESS: '100000', LOG_LEVEL: 'warn', ...passed });
let clients: StalledClients | undefined;
try {
  const idle = procMb(gw.proc.pid, 'VmRSS');
  clients = await openStalledSessions(gw.url, SESSIONS);
  const r = await floodStalledSessions(gw.url, gw.proc.pid, clients.endpoints, { calls: CALLS });
  const slowest = Math.max(...r.health.map((h) => h.ms));
  const healthy = r.health.every((h) => h.status === 200);
  console.log(`command: ${Object.entries(passed).map(([k, v]) => `${k}=${v} `).join('')}bun ${process.argv.slice(1).join(' ')}`);
  console.log(`machine: ${cpus()[0]?.model} x${cpus().length}, bun ${Bun.version}`);
  console.log(
    `${SESSIONS} stalled SSE sessions x ${CALLS} calls in ${r.floodMs} ms: RSS idle ${idle.toFixed(0)} MB, peak ${r.peakMb.toFixed(0)} MB; ` +
      `/healthz ${healthy ? 'answered throughout' : 'FAILED'} (${r.health.length} probes, slowest ${slowest} ms); ` +
      `closed by the gateway: ${r.closed} of ${SESSIONS}${r.allClosedAfterMs === undefined ? '' : ` (all ${r.allClosedAfterMs} ms after the last call)`}`,
  );
} finally {
  clients?.kill();
  const killer = setTimeout(() => gw.proc.kill('SIGKILL'), 5_000);
  await gw.stop();
  clearTimeout(killer);
  rmSync(dir, { recursive: true, force: true });
}
