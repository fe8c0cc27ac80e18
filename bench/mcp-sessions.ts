// Memory of open MCP sessions: the gateway (the compiled binary, with the shipped defaults of
// bench/wire.ts, its stderr drained by a pipe) runs as a subprocess; N legacy SSE sessions, then
// separately N Streamable HTTP sessions, are opened the way real clients open them: initialize,
// its answer, then notifications/initialized (legacy SSE: the stream stays open and is read, by
// raw sockets). Its RSS is read from /proc before, with all open, and a while after they close.
//
//   bun run build && bun bench/mcp-sessions.ts [--sessions 10000] [--runs 3] [--open 20] [--settle 60] [--exe dist/gateway | --main path/to/src/main.ts]
//
// --main runs a gateway from source (e.g. an older checkout) for a before/after comparison on the
// same machine.
import { cpus } from 'node:os';
import { BENCH_CONFIGS, drain, waitFor } from './wire.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const N = Number(arg('sessions', '10000'));
const SETTLE_S = Number(arg('settle', '60'));
const OPEN_S = Number(arg('open', '20'));
const RUNS = Number(arg('runs', '1'));
const COMMAND = process.argv.includes('--main') ? ['bun', resolve(arg('main', ''))] : [resolve(arg('exe', join(import.meta.dir, '../dist/gateway')))];
const VERSION = '2025-11-25';
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const JSON_POST = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function startGateway() {
  const dir = mkdtempSync(join(tmpdir(), 'cig-bench-mcp-'));
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const proc = Bun.spawn(COMMAND, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'gw.sqlite'),
      MAINNET_RPC_URLS: 'http://127.0.0.1:9',
      DEPOSIT_POLL_SECONDS: '0',
      MCP_MAX_SESSIONS: String(N * 2),
      MCP_MAX_SESSIONS_PER_ADDRESS: String(N * 2),
      ...BENCH_CONFIGS.defaults,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  drain(proc.stderr);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return { proc, port, url, stop: async () => (proc.kill('SIGTERM'), await proc.exited, rmSync(dir, { recursive: true, force: true })) };
}

/**
 * One legacy SSE session over a raw socket that reads (and drops) whatever arrives: the endpoint
 * event, then initialize POSTed and its answer read from the stream, then notifications/initialized.
 */
function sseSession(url: string, port: number): Promise<{ close(): void }> {
  return new Promise((resolveOpen, reject) => {
    let seen = '';
    let answered: (() => void) | undefined;
    let posted = false;
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(s) {
          s.write(`GET /mcp/sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
        },
        data(s, d) {
          if (answered) {
            if (new TextDecoder().decode(d).includes('"id":1')) answered();
            return;
          }
          seen += new TextDecoder().decode(d);
          const endpoint = /event: endpoint\ndata: (\S+)/.exec(seen)?.[1];
          if (!endpoint || posted) return;
          posted = true;
          const post = (body: string) => fetch(url + endpoint, { method: 'POST', headers: JSON_POST, body }).then((r) => r.text());
          const answer = new Promise<void>((ok) => (answered = ok));
          if (seen.includes('"id":1')) answered!();
          post(initialize)
            .then(() => answer)
            .then(() => post(initialized))
            .then(() => resolveOpen({ close: () => s.end() }), reject);
        },
        error(_s, e) {
          reject(e);
        },
      },
    }).catch(reject);
  });
}

/** One Streamable HTTP session: initialize, then notifications/initialized on it. */
async function httpSession(url: string): Promise<string> {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers: JSON_POST, body: initialize });
  await res.text();
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}`);
  const id = res.headers.get('mcp-session-id')!;
  const done = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...JSON_POST, 'mcp-session-id': id, 'mcp-protocol-version': VERSION }, body: initialized });
  await done.text();
  if (done.status !== 202) throw new Error(`notifications/initialized answered ${done.status}`);
  return id;
}

/** What N open event streams cost a bare Bun.serve (bench/bare-server.ts sse): the floor under a legacy SSE session. */
async function bareFloor() {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const proc = Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), String(port), 'sse'], { stdout: 'ignore', stderr: 'inherit' });
  try {
    await Bun.sleep(1000);
    const idle = rssMb(proc.pid);
    const streams = await inBatches(N, 200, () => rawStream(port));
    await Bun.sleep(OPEN_S * 1000);
    const open = rssMb(proc.pid);
    console.log(`floor: a bare Bun.serve holding ${N} open event streams: RSS idle ${idle.toFixed(0)} MB, all open ${open.toFixed(0)} MB (${(((open - idle) * 1024) / N).toFixed(1)} KB/stream)\n`);
    for (const s of streams) s.close();
  } finally {
    proc.kill();
    await proc.exited;
  }
}

/** An event stream read over a raw socket until its first event came. */
function rawStream(port: number): Promise<{ close(): void }> {
  return new Promise((resolveOpen, reject) => {
    let opened = false;
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open: (s) => void s.write(`GET /mcp/sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`),
        data(s) {
          if (opened) return;
          opened = true;
          resolveOpen({ close: () => s.end() });
        },
        error: (_s, e) => reject(e),
      },
    }).catch(reject);
  });
}

async function inBatches<T>(n: number, size: number, open: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  while (out.length < n) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - out.length) }, open))));
  return out;
}

async function measure(kind: 'legacy SSE' | 'Streamable HTTP') {
  const gw = await startGateway();
  try {
    await Bun.sleep(1000);
    const idle = rssMb(gw.proc.pid);
    const t0 = performance.now();
    let closeAll: () => Promise<void>;
    if (kind === 'legacy SSE') {
      const sessions = await inBatches(N, 200, () => sseSession(gw.url, gw.port));
      closeAll = async () => sessions.forEach((s) => s.close());
    } else {
      const ids = await inBatches(N, 100, () => httpSession(gw.url));
      closeAll = async () => {
        for (let i = 0; i < ids.length; i += 100) {
          await Promise.all(ids.slice(i, i + 100).map((id) => fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': VERSION } }).then((r) => r.text())));
        }
      };
    }
    const openMs = performance.now() - t0;
    // Sampled for OPEN_S seconds while every session stays open: right after the burst the RSS
    // still holds the garbage of opening them (and, for Streamable HTTP, the Servers that answered
    // each initialize, closed a second later) until the runtime returns it, about ten seconds here;
    // the last sample is what the open sessions themselves hold.
    const samples: number[] = [];
    for (let i = 0; i < OPEN_S; i++) {
      await Bun.sleep(1000);
      samples.push(rssMb(gw.proc.pid));
    }
    const open = samples.at(-1)!;
    const peak = Math.max(...samples);
    await closeAll();
    await Bun.sleep(SETTLE_S * 1000);
    const after = rssMb(gw.proc.pid);
    const perSession = ((open - idle) * 1024) / N;
    console.log(
      `${kind.padEnd(16)} ${N} sessions opened in ${(openMs / 1000).toFixed(1)} s | RSS idle ${idle.toFixed(0)} MB, all open ${open.toFixed(0)} MB after ${OPEN_S} s (peak ${peak.toFixed(0)}) ` +
        `(${perSession.toFixed(1)} KB/session), ${SETTLE_S} s after closing ${after.toFixed(0)} MB (${(after / idle).toFixed(2)} x idle)`,
    );
    return { open, after, idle };
  } finally {
    await gw.stop();
  }
}

console.log(`command: bun ${process.argv.slice(1).map((a) => a.replace(process.cwd() + '/', '')).join(' ')}`);
console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, bun ${Bun.version}, gateway ${COMMAND.join(' ')} with ${JSON.stringify(BENCH_CONFIGS.defaults)}`);
console.log(`baseline: the same gateway's RSS with no session open (idle); goals: all open <= 120 MB RSS, ${SETTLE_S} s after closing <= 1.5 x idle`);
await bareFloor();
for (const kind of ['legacy SSE', 'Streamable HTTP'] as const) {
  const results = [];
  for (let r = 0; r < RUNS; r++) results.push(await measure(kind));
  const worst = Math.max(...results.map((r) => r.open));
  const back = Math.max(...results.map((r) => r.after / r.idle));
  console.log(`${kind}: worst of ${RUNS} run(s) ${worst.toFixed(0)} MB open (goal <= 120 MB: ${worst <= 120 ? 'met' : 'NOT met'}), ${back.toFixed(2)} x idle after closing (goal <= 1.5: ${back <= 1.5 ? 'met' : 'NOT met'})\n`);
}
