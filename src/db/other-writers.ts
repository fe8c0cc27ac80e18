// Whether another connection (another process: `gateway keys revoke`) has committed to the SQLite
// file, for the caches that hold its rows in memory. SQLite's data_version moves on every such
// commit, but reading it opens a read transaction: file-lock system calls that cost 6-8 µs here,
// more than the rest of a cached call (bench/handler-cost.ts). So it is read at most once per
// `intervalMs`: another process's write is noticed within that time, and a busy gateway pays for
// a few reads a second instead of one or two per call.
import type { Database } from 'bun:sqlite';

const OTHER_WRITER_CHECK_MS = 5;

/** A check that answers true once after each commit by another connection (at most `intervalMs` late). */
export function otherWriters(client: Database, intervalMs = OTHER_WRITER_CHECK_MS): () => boolean {
  const dataVersion = client.prepare<{ data_version: number }, []>('PRAGMA data_version');
  let seen = dataVersion.get()!.data_version;
  let checkedAt = performance.now();
  return () => {
    const now = performance.now();
    if (now - checkedAt < intervalMs) return false;
    checkedAt = now;
    const version = dataVersion.get()!.data_version;
    if (version === seen) return false;
    seen = version;
    return true;
  };
}
