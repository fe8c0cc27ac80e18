// The gateway as an operator runs it: `bun src/main.ts` (or the compiled binary) as a child
// process, its stderr collected line by line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const MAIN = join(import.meta.dir, '../../src/main.ts');

/** Calls `onLine` with each line a child prints on `stream`, as it comes (and a last one without a newline). Resolves when it ends. */
export async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const line of parts) onLine(line);
  }
  if (rest) onLine(rest);
}

export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const port = s.port!;
  s.stop(true);
  return port;
}

/**
 * Waits until `url`/healthz answers 200. Gives up after `ms`, or at once when `proc` has exited,
 * with `why()` (its logs) in the error.
 */
export async function waitForHealthy(url: string, o: { ms?: number; proc?: { readonly exitCode: number | null }; why?: () => string | Promise<string> } = {}): Promise<void> {
  const until = Date.now() + (o.ms ?? 20_000);
  for (;;) {
    try {
      if ((await fetch(url + '/healthz')).ok) return;
    } catch {}
    if (Date.now() > until || (o.proc && o.proc.exitCode !== null)) {
      const why = o.why ? await o.why() : '';
      throw new Error(`${url} did not become healthy${o.proc?.exitCode != null ? ` (exited ${o.proc.exitCode})` : ''}${why ? `:\n${why}` : ''}`);
    }
    await Bun.sleep(50);
  }
}

/**
 * Ports for a sandbox chain and a gateway beside it: the chain takes its port and the next (its
 * WebSocket API), so the pair is checked free and the gateway's port is neither of them.
 */
export function sandboxPorts(): { sandbox: number; gateway: number } {
  for (;;) {
    const sandbox = freePort();
    let next;
    try {
      next = Bun.serve({ port: sandbox + 1, hostname: '127.0.0.1', fetch: () => new Response('') });
    } catch {
      continue;
    }
    next.stop(true);
    let gateway = freePort();
    while (gateway === sandbox || gateway === sandbox + 1) gateway = freePort();
    return { sandbox, gateway };
  }
}

/**
 * Settings of a gateway whose chain is the sandbox: its own SQLite file in `dir`, deposits by
 * webhook only (no watcher), no rate limit and no free calls, logs at error level.
 */
export function sandboxGatewayEnv(o: { chainUrl: string; dir: string; gatewayAddress: string; webhookSecret: string }): Record<string, string> {
  return {
    DATABASE_PATH: join(o.dir, 'gw.sqlite'),
    MAINNET_RPC_URLS: o.chainUrl,
    DEVNET_RPC_URLS: o.chainUrl,
    GATEWAY_ADDRESS: o.gatewayAddress,
    WEBHOOK_SECRET: o.webhookSecret,
    DEPOSIT_POLL_SECONDS: '0',
    RATE_LIMIT_RPS: '0',
    FREE_CALLS: '0',
    LOG_LEVEL: 'error',
  };
}

export interface GatewayProcess {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  /** Every stderr line so far. */
  lines: string[];
  /** With `stoppableReader`: stops (true) or resumes (false) the process that reads stderr, as a stuck log shipper would. */
  stallReader(stalled: boolean): void;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/**
 * Starts the gateway with `env` (plus PATH/HOME) and waits for /healthz. With `stoppableReader`
 * its stderr is a named pipe read by a `cat` of its own, which stallReader() can stop: a pipe
 * this process reads is always drained by Bun, whatever the test does.
 */
export async function spawnGateway(env: Record<string, string>, args: string[] = [], command = ['bun', MAIN], o: { stoppableReader?: boolean } = {}): Promise<GatewayProcess> {
  const port = freePort();
  let reader: ReturnType<typeof Bun.spawn> | undefined;
  let fifoDir: string | undefined;
  if (o.stoppableReader) {
    fifoDir = mkdtempSync(join(tmpdir(), 'cig-stderr-'));
    const fifo = join(fifoDir, 'stderr');
    Bun.spawnSync(['mkfifo', fifo]);
    reader = Bun.spawn(['cat', fifo], { stdout: 'pipe', stderr: 'inherit' });
  }
  const proc = Bun.spawn([...command, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdout: 'pipe',
    stderr: fifoDir ? Bun.file(join(fifoDir, 'stderr')) : 'pipe',
  });
  const lines: string[] = [];
  void eachLine((reader?.stdout ?? proc.stderr) as ReadableStream<Uint8Array>, (line) => lines.push(line));
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthy(url, { proc, why: () => lines.join('\n') });
  return {
    url,
    proc,
    lines,
    stallReader: (stalled) => reader?.kill(stalled ? 'SIGSTOP' : 'SIGCONT'),
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await proc.exited;
      if (reader) {
        reader.kill('SIGCONT');
        reader.kill('SIGTERM');
        await reader.exited;
        rmSync(fifoDir!, { recursive: true, force: true });
      }
      return code;
    },
  };
}
