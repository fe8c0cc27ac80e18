// Legacy SSE sessions whose clients stop reading, flooded with calls while the gateway's memory
// and /healthz are watched: one implementation for tests/integration/mcp-stalled.test.ts and
// bench/mcp-stalled.ts. Every wait is bounded, so a gateway that misbehaves fails the run instead
// of hanging it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLIENT = join(import.meta.dir, 'stalled-sse-client.cjs');

/** A field of /proc/<pid>/status in MB (VmRSS: resident now; VmHWM: peak resident since start). */
export function procMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

export interface StalledClients {
  endpoints: string[];
  /** Kills the Node process holding the sockets; safe to call more than once. */
  kill(): void;
}

/** Opens `count` SSE sessions from a Node child process that stops reading each one. */
export async function openStalledSessions(url: string, count: number, opts: { timeoutMs?: number; lifetimeMs?: number } = {}): Promise<StalledClients> {
  // Node, not Bun: its socket.pause() really stops reading, so the gateway's writes back up.
  // stdin stays open as a lifeline: the child exits when it closes, i.e. when this process dies.
  const child = Bun.spawn(['node', CLIENT, new URL(url).port, String(count), String(opts.lifetimeMs ?? 120_000)], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    const line = await firstLine(child.stdout, opts.timeoutMs ?? 20_000);
    const { endpoints, failures } = JSON.parse(line) as { endpoints: string[]; failures: string[] };
    if (failures.length) throw new Error(`${failures.length} of ${count} SSE sessions did not open: ${[...new Set(failures)].join(', ')}`);
    return { endpoints, kill };
  } catch (e) {
    kill();
    throw e;
  }
}

/** The child keeps running after its line, so read up to the newline only, within `ms`. */
async function firstLine(stream: ReadableStream<Uint8Array>, ms: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + ms;
  let text = '';
  try {
    while (!text.includes('\n')) {
      let timer: Timer | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from the stalled clients within ${ms} ms`)), deadline - Date.now())));
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error('the stalled clients exited without opening their sessions');
      text += decoder.decode(chunk.value, { stream: true });
    }
    return text.slice(0, text.indexOf('\n'));
  } finally {
    reader.releaseLock();
  }
}

export interface FloodOptions {
  /** tools/list calls posted to each session, in batches of `batch`. */
  calls: number;
  batch?: number;
  /** How long after the last call the gateway may take to close every stalled session. */
  closeWithinMs?: number;
  /** Bound on each POST and each /healthz probe. */
  requestTimeoutMs?: number;
}

export interface FloodResult {
  /** Highest resident memory of the gateway: sampled VmRSS and the kernel's VmHWM, whichever is higher. */
  peakMb: number;
  /** POST answers by status (0: no answer within the bound). */
  postStatuses: Record<number, number>;
  /** Every /healthz probe during the flood and the wait for closes (status 0: no answer within the bound). */
  health: { status: number; ms: number }[];
  /** Stalled sessions the gateway closed (a message to them answers 404) within `closeWithinMs`. */
  closed: number;
  /** From the last call posted to the last session closed; undefined if some stayed open. */
  allClosedAfterMs: number | undefined;
  floodMs: number;
}

/** Initializes each stalled session, posts `calls` tools/list calls to each, then waits for the gateway to close them. */
export async function floodStalledSessions(url: string, gatewayPid: number, endpoints: string[], opts: FloodOptions): Promise<FloodResult> {
  const batch = opts.batch ?? 20;
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const postStatuses: Record<number, number> = {};
  const post = async (endpoint: string, body: unknown) => {
    let status = 0;
    try {
      const res = await fetch(url + endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
      await res.arrayBuffer();
      status = res.status;
    } catch {}
    postStatuses[status] = (postStatuses[status] ?? 0) + 1;
    return status;
  };

  let peakMb = 0;
  const sample = () => {
    try {
      peakMb = Math.max(peakMb, procMb(gatewayPid, 'VmRSS'), procMb(gatewayPid, 'VmHWM'));
    } catch {} // the gateway is gone: the caller sees that in its exit code and in /healthz
  };
  sample();
  const sampler = setInterval(sample, 20);

  const health: FloodResult['health'] = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const t0 = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
        await res.arrayBuffer();
        status = res.status;
      } catch {}
      health.push({ status, ms: Math.round(performance.now() - t0) });
      await Bun.sleep(100);
    }
  })();

  const started = performance.now();
  let outcome: Omit<FloodResult, 'peakMb'>;
  try {
    await Promise.all(endpoints.map((e) => post(e, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'stalled', version: '1' } } })));
    for (let sent = 0; sent < opts.calls; sent += batch) {
      const calls = Array.from({ length: Math.min(batch, opts.calls - sent) }, (_, i) => ({ jsonrpc: '2.0', id: 1 + sent + i, method: 'tools/list' }));
      await Promise.all(endpoints.map((e) => post(e, calls)));
    }
    const floodMs = performance.now() - started;
    const flooded = performance.now();
    const deadline = flooded + (opts.closeWithinMs ?? 10_000);
    let open = endpoints;
    let allClosedAfterMs: number | undefined;
    for (let id = 1e6; ; id++) {
      const statuses = await Promise.all(open.map((e) => post(e, { jsonrpc: '2.0', id, method: 'ping' })));
      open = open.filter((_, i) => statuses[i] !== 404);
      if (open.length === 0) {
        allClosedAfterMs = Math.round(performance.now() - flooded);
        break;
      }
      if (performance.now() > deadline) break;
      await Bun.sleep(200);
    }
    outcome = { postStatuses, health, closed: endpoints.length - open.length, allClosedAfterMs, floodMs: Math.round(floodMs) };
  } finally {
    watching = false;
    await watcher;
    clearInterval(sampler);
    sample();
  }
  return { peakMb, ...outcome };
}
