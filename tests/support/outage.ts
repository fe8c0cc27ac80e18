// Shared by the storage outage tests (SQLite and Postgres): paid load that keeps every answer, the
// answer a client must get while the storage is away, and a small tmpfs to fill.
import { expect } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
  /** When it was sent and how long it took (ms). */
  at: number;
  ms: number;
}

/** A client's view of one request: a network error or a time-out is an answer too (status 0), never a thrown error. */
export async function ask(url: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<Answer> {
  const at = Date.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, retryAfter: res.headers.get('retry-after'), at, ms: Date.now() - at };
  } catch (e) {
    return { status: 0, body: String(e), retryAfter: null, at, ms: Date.now() - at };
  }
}

/** `workers` loops of `fire` until stop(), which resolves with every answer in the order they came. */
export function load(workers: number, fire: (i: number) => Promise<Answer>) {
  const answers: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i += workers) answers.push(await fire(i));
  });
  return {
    answers,
    async stop(): Promise<Answer[]> {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

/** The one answer for a paid call (or a claim) while the storage is away: SPEC.md's 500, with a code and Retry-After. */
export function expectStorageUnavailable(a: Answer) {
  expect({ status: a.status, code: a.body?.code, live_status: a.body?.live_status }).toEqual({ status: 500, code: 'storage_unavailable', live_status: 'FAILED' });
  expect(a.body.error).toMatch(/^Storage unavailable: .*retry/);
  expect(Number(a.retryAfter)).toBeGreaterThan(0);
  expect(a.ms).toBeLessThan(10_000);
}

/**
 * A tmpfs of `megabytes` mounted on a new folder (we must be root), or why not. Without it the
 * test skips with the reason printed, except under CI=true, where it fails.
 */
export function mountTmpfs(megabytes: number, suite: string): { dir: string; unmount(): void } | null {
  const dir = mkdtempSync(join(tmpdir(), 'cig-tmpfs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const why = `cannot mount a tmpfs (${(mounted.stderr || mounted.error?.message || `exit ${mounted.status}`).trim()})`;
    if (process.env.CI === 'true') throw new Error(`${suite}: a tmpfs is required in CI: ${why}`);
    console.warn(`SKIPPED ${suite}: ${why}`);
    return null;
  }
  return {
    dir,
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `file` until the file system refuses (ENOSPC): the disk is full. Its size in bytes. */
export function fillDisk(file: string): number {
  const fd = openSync(file, 'w');
  let written = 0;
  // Large chunks, then a page at a time for the last pages.
  for (const size of [64 * 1024, 4096]) {
    const chunk = Buffer.alloc(size, 1);
    try {
      for (;;) written += writeSync(fd, chunk);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    }
  }
  closeSync(fd);
  return written;
}

/**
 * Another process (an operator's sqlite3 shell, a backup tool) that takes the file's write lock and
 * keeps it until released. It waits its turn as such a tool does (a busy timeout): taken while one
 * of the gateway's own commits is running, a lock with no wait is refused at once.
 */
export async function holdWriteLock(databasePath: string): Promise<{ release(): Promise<void> }> {
  const holder = Bun.spawn(
    [
      'bun',
      '-e',
      `const { Database } = require('bun:sqlite'); const db = new Database(process.argv[1]); db.run('PRAGMA busy_timeout = 5000'); db.run('BEGIN EXCLUSIVE'); console.log('locked'); process.stdin.on('data', () => { db.run('ROLLBACK'); process.exit(0); });`,
      databasePath,
    ],
    { stdin: 'pipe', stdout: 'pipe' },
  );
  expect(new TextDecoder().decode((await holder.stdout.getReader().read()).value)).toContain('locked');
  return {
    async release() {
      holder.stdin.write('release\n');
      holder.stdin.end();
      await holder.exited;
    },
  };
}
