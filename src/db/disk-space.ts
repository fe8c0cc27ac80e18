// The SQLite file system's free space, and the WAL's pace. In WAL mode every commit appends to the
// -wal file; a checkpoint copies it into the database once it passes wal_autocheckpoint pages
// (10000, ~40 MB: client.ts says why), and the file keeps its size after, to be written over again.
// On a small volume that WAL alone can fill the disk (8.6 MB after 330 paid calls on an 8 MB volume),
// so while space is low (readiness.ts watches) the WAL is kept small: checkpointed at once and
// truncated, then every 1000 pages (~4 MB), and cut back to 4 MB after each checkpoint.
import type { Database } from 'bun:sqlite';
import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const NORMAL = { autocheckpoint: 10_000, sizeLimit: -1 };
const SMALL = { autocheckpoint: 1_000, sizeLimit: 4 * 1024 * 1024 };

/** Free bytes for an unprivileged writer on the file system holding `file`. */
export function freeBytes(file: string): number {
  const s = statfsSync(dirname(resolve(file)));
  return Number(s.bavail) * Number(s.bsize);
}

/**
 * Keeps the WAL small (`small`) or at its usual pace. Throws when the checkpoint cannot finish now
 * (a reader holds the WAL, the disk is full): the next commit past the pace tries again.
 */
export function walPace(client: Database, small: boolean): void {
  const pace = small ? SMALL : NORMAL;
  client.run(`PRAGMA journal_size_limit = ${pace.sizeLimit}`);
  client.run(`PRAGMA wal_autocheckpoint = ${pace.autocheckpoint}`);
  // Now, not at the next 1000 pages: the WAL may be tens of MB already.
  if (small) client.run('PRAGMA wal_checkpoint(TRUNCATE)');
}
