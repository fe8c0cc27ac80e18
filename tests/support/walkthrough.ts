// A documented walkthrough, run as written: the shell blocks between a page's markers, in a folder
// laid out like a fresh clone (the repository's files linked in, no data/). A block a person leaves
// running in a terminal (the sandbox, the gateway) starts in its own process group; the others run
// to the end. The only change is where the servers listen, so a test binds no fixed port:
// SANDBOX_PORT, PORT and HOST=127.0.0.1 in the environment, and the same numbers in place of 8899
// and 3000 in the blocks.
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './process.ts';

export const ROOT = join(import.meta.dir, '../..');
const NOT_IN_A_CLONE = new Set(['.git', 'data', 'dist']);

/** The shell blocks between `<!-- marker:begin -->` and `<!-- marker:end -->` of a page of the repository. */
export function docBlocks(page: string, marker: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const section = text.match(new RegExp(`<!-- ${marker}:begin -->([\\s\\S]*?)<!-- ${marker}:end -->`));
  if (!section) throw new Error(`${page} has no ${marker}:begin / ${marker}:end markers`);
  return [...section[1]!.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

export interface Running {
  proc: ReturnType<typeof Bun.spawn>;
  out: string[];
  /** Everything it printed so far. */
  text(): string;
}

function collect(stream: ReadableStream<Uint8Array>, into: string[]) {
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  })();
}

export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000, log: () => string = () => '') {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms:\n${log()}`);
    await Bun.sleep(100);
  }
}

/** The fresh clone a walkthrough runs in, its ports, and the processes it left running. */
export class Walkthrough {
  readonly dir = mkdtempSync(join(tmpdir(), 'cig-walkthrough-'));
  readonly sandboxPort = String(freePort());
  readonly gatewayPort = String(freePort());
  readonly env: Record<string, string>;
  private readonly running: Running[] = [];

  constructor() {
    for (const name of readdirSync(ROOT)) if (!NOT_IN_A_CLONE.has(name)) symlinkSync(join(ROOT, name), join(this.dir, name));
    this.env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SANDBOX_PORT: this.sandboxPort, PORT: this.gatewayPort, HOST: '127.0.0.1' };
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.gatewayPort}`;
  }

  /** A block with the test's ports in place of the documented ones. */
  localize(block: string): string {
    return block.replace(/\b8899\b/g, this.sandboxPort).replace(/\b3000\b/g, this.gatewayPort);
  }

  /** A block left running, as in a terminal of its own. */
  start(block: string): Running {
    // detached: a process group of its own (setsid), for the SIGTERM to the group at the end.
    const proc = Bun.spawn(['bash', '-c', this.localize(block)], { cwd: this.dir, env: this.env, stdout: 'pipe', stderr: 'pipe', detached: true });
    const out: string[] = [];
    collect(proc.stdout as ReadableStream<Uint8Array>, out);
    collect(proc.stderr as ReadableStream<Uint8Array>, out);
    const r = { proc, out, text: () => out.join('') };
    this.running.push(r);
    return r;
  }

  /** `bun run sandbox`'s block, once the chain says it is up. */
  async startSandbox(block: string): Promise<Running> {
    const chain = this.start(block);
    await until('the sandbox start', () => chain.text().includes('Ctrl-C to stop'), 30_000, chain.text);
    return chain;
  }

  /** The gateway's block, once it answers /healthz; a gateway that refuses to start fails at once, with what it said. */
  async startGateway(block: string): Promise<Running> {
    const gw = this.start(block);
    const up = () => {
      if (gw.proc.exitCode !== null) throw new Error(`the gateway exited (${gw.proc.exitCode}):\n${gw.text()}`);
      return fetch(this.gatewayUrl + '/healthz').then((r) => r.ok, () => false);
    };
    await until('the gateway start', up, 30_000, gw.text);
    return gw;
  }

  /** Blocks run as one script that stops at the first failing command. */
  async run(blocks: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    const p = Bun.spawn(['bash', '-euo', 'pipefail', '-c', blocks.map((b) => this.localize(b)).join('\n')], { cwd: this.dir, env: this.env, stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { stdout, stderr, code };
  }

  /** Each running block stops with its process group: `bun run` and the script it starts together. */
  async stop(r: Running): Promise<void> {
    try {
      process.kill(-r.proc.pid, 'SIGTERM');
    } catch {}
    await r.proc.exited;
  }

  async close(): Promise<void> {
    for (const r of this.running) await this.stop(r);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
