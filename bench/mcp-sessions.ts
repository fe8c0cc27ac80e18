// Memory of open MCP sessions: the gateway runs as a subprocess; N legacy SSE sessions (raw
// sockets that read their stream), then separately N Streamable HTTP sessions (initialize only),
// are opened; its RSS is read from /proc before, with all open, and a while after they close.
//
//   bun bench/mcp-sessions.ts [--sessions 10000] [--open 20] [--settle 60] [--main path/to/src/main.ts | --exe dist/gateway]
//
// --main runs another checkout's gateway (e.g. an older commit unpacked elsewhere) for a
// before/after comparison on the same machine; --exe runs a compiled gateway (`bun run build`),
// the single binary operators deploy, which starts smaller than `bun src/main.ts`.
import { cpus } from 'node:os';
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
const MAIN = resolve(arg('main', join(import.meta.dir, '../src/main.ts')));
const EXE = process.argv.includes('--exe') ? resolve(arg('exe', 'dist/gateway')) : undefined;
const COMMAND = EXE ? [EXE] : ['bun', MAIN];

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
      RATE_LIMIT_RPS: '0',
      MCP_MAX_SESSIONS: String(N * 2),
      MCP_MAX_SESSIONS_PER_ADDRESS: String(N * 2),
      LOG_LEVEL: 'warn',
    },
    stdout: 'ignore',
    stderr: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(100);
  }
  return { proc, port, url, stop: async () => (proc.kill('SIGTERM'), await proc.exited, rmSync(dir, { recursive: true, force: true })) };
}

/** One legacy SSE session over a raw socket that reads (and drops) whatever arrives. */
function sseSession(port: number): Promise<{ close(): void }> {
  return new Promise((resolveOpen, reject) => {
    let opened = false;
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(s) {
          s.write(`GET /mcp/sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
        },
        data(s, d) {
          if (!opened && new TextDecoder().decode(d).includes('event: endpoint')) {
            opened = true;
            resolveOpen({ close: () => s.end() });
          }
        },
        error(_s, e) {
          if (!opened) reject(e);
        },
      },
    }).catch(reject);
  });
}

async function httpSession(url: string): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  await res.text();
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}`);
  return res.headers.get('mcp-session-id')!;
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
      const sessions = await inBatches(N, 200, () => sseSession(gw.port));
      closeAll = async () => sessions.forEach((s) => s.close());
    } else {
      const ids = await inBatches(N, 100, () => httpSession(gw.url));
      closeAll = async () => {
        for (let i = 0; i < ids.length; i += 100) {
          await Promise.all(ids.slice(i, i + 100).map((id) => fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' } }).then((r) => r.text())));
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
        `(${perSession.toFixed(1)} KB/session), ${SETTLE_S} s after closing ${after.toFixed(0)} MB`,
    );
  } finally {
    await gw.stop();
  }
}

console.log(`command: bun ${process.argv.slice(1).map((a) => a.replace(process.cwd() + '/', '')).join(' ')}`);
console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, bun ${Bun.version}, gateway ${COMMAND.join(' ')}`);
await measure('legacy SSE');
await measure('Streamable HTTP');
