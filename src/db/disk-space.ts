// The SQLite file system's free space, watched. In WAL mode every commit appends to the -wal file;
// a checkpoint copies it into the database once it passes wal_autocheckpoint pages (10000, ~40 MB:
// client.ts says why), and the file keeps its size after, to be written over again. On a small
// volume that WAL alone can fill the disk (8.6 MB after 330 paid calls on an 8 MB volume). So below
// DATABASE_MIN_FREE_MB the operator is warned (at start, and once each time it gets there), and the
// WAL is kept small until space is back: checkpointed at once and truncated, then every 1000 pages
// (~4 MB), and cut back to 4 MB after each checkpoint (journal_size_limit).
import type { Database } from 'bun:sqlite';
import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from '../log.ts';
import { databaseFreeRead } from '../metrics.ts';

const NORMAL = { autocheckpoint: 10_000, sizeLimit: -1 };
const LOW = { autocheckpoint: 1_000, sizeLimit: 4 * 1024 * 1024 };
/** How often the free space is read. */
const CHECK_MS = 5_000;

/** Free bytes for an unprivileged writer on the file system holding `file`. */
export function freeBytes(file: string): number {
  const s = statfsSync(dirname(resolve(file)));
  return Number(s.bavail) * Number(s.bsize);
}

export class DiskSpace {
  private low = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly client: Database,
    private readonly file: string,
    private readonly minFreeBytes: number,
    private readonly log: Logger,
  ) {}

  /** Whether the WAL is being kept small now. */
  get keptSmall(): boolean {
    return this.low;
  }

  /** Reads the free space, warns on the way down, and sets the WAL's pace. */
  check(): void {
    let free: number;
    try {
      free = freeBytes(this.file);
    } catch {
      return;
    }
    databaseFreeRead(free);
    const low = free < this.minFreeBytes;
    if (low === this.low) return;
    this.low = low;
    const pace = low ? LOW : NORMAL;
    try {
      this.client.run(`PRAGMA journal_size_limit = ${pace.sizeLimit}`);
      this.client.run(`PRAGMA wal_autocheckpoint = ${pace.autocheckpoint}`);
      // Now, not at the next 1000 pages: the WAL may be tens of MB already.
      if (low) this.client.run('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (e) {
      // A checkpoint that a reader or a full disk keeps from finishing is tried again by the next commit past the pace.
      this.log.debug('WAL checkpoint not finished', { error: e instanceof Error ? e.message : String(e) });
    }
    const mb = (n: number) => Math.floor(n / (1024 * 1024));
    if (low) {
      this.log.warn(
        `the database's file system has ${mb(free)} MB free, less than DATABASE_MIN_FREE_MB (${mb(this.minFreeBytes)}): the WAL is checkpointed every ~4 MB and truncated until there is more; a full disk stops paid calls and claims (docs/operations.md, "The WAL and disk space")`,
        { event: 'disk_space_low', freeBytes: free, database: this.file },
      );
    } else this.log.info(`the database's file system has ${mb(free)} MB free again: the WAL keeps its usual pace`, { event: 'disk_space_ok', freeBytes: free });
  }

  start(): void {
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
