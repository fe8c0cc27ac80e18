// Commands run as a person runs them from a fresh clone: a folder laid out like one (the
// repository's files linked in, no data/), each long-running command in its own terminal (a
// process group of its own, its output collected), stopped together with what it started.
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { within } from './poll.ts';

const ROOT = join(import.meta.dir, '../..');
const NOT_IN_A_CLONE = new Set(['.git', 'data', 'dist']);

export interface Terminal {
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything it printed so far, stdout and stderr. */
  out: string[];
  text(): string;
}

export interface Clone {
  dir: string;
  /** Starts `script` in bash in a terminal of its own, left running. */
  start(script: string, env: Record<string, string>): Terminal;
  /** Runs `script` in bash to its end (stopping at the first failing command). */
  run(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Stops one terminal and what it started. */
  stop(t: Terminal): Promise<void>;
  /** Stops every terminal and removes the folder. */
  remove(): Promise<void>;
}

/** The environment a new terminal has, plus `extra`. */
export const shellEnv = (extra: Record<string, string> = {}): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...extra });

function collect(stream: ReadableStream<Uint8Array>, into: string[]) {
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  })();
}

export function freshClone(): Clone {
  const dir = mkdtempSync(join(tmpdir(), 'cig-clone-'));
  for (const name of readdirSync(ROOT)) if (!NOT_IN_A_CLONE.has(name)) symlinkSync(join(ROOT, name), join(dir, name));
  const terminals: Terminal[] = [];
  const stop = async (t: Terminal) => {
    try {
      process.kill(-t.proc.pid, 'SIGTERM');
    } catch {}
    await t.proc.exited;
  };
  return {
    dir,
    start(script, env) {
      // detached: a process group of its own (setsid), for the SIGTERM to the group at the end:
      // `bun run` and the script it starts stop together.
      const proc = Bun.spawn(['bash', '-c', script], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe', detached: true });
      const out: string[] = [];
      collect(proc.stdout as ReadableStream<Uint8Array>, out);
      collect(proc.stderr as ReadableStream<Uint8Array>, out);
      const t = { proc, out, text: () => out.join('') };
      terminals.push(t);
      return t;
    },
    async run(script, env) {
      const p = Bun.spawn(['bash', '-euo', 'pipefail', '-c', script], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe' });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { code, stdout, stderr };
    },
    stop,
    async remove() {
      for (const t of terminals) await stop(t);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `ok`, or throws naming `what` with `log()` after `ms`. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000, log: () => string = () => '') {
  if ((await within(ms, ok, 100)) === null) throw new Error(`${what} did not happen within ${ms} ms:\n${log()}`);
}
