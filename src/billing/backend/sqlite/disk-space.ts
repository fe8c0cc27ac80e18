// The SQLite file system's free space, watched beside the database it holds (db/disk-space.ts says
// how the WAL grows and is kept small).
import type { Database } from 'bun:sqlite';
import { freeBytes, walPace } from '../../../db/disk-space.ts';
import type { Logger } from '../../../log.ts';
import { databaseFreeRead } from '../../../metrics.ts';

/** How often the SQLite file system's free space is read. */
const DISK_CHECK_MS = 5_000;

/**
 * The SQLite file system's free space (DATABASE_MIN_FREE_MB): read at start and every few seconds,
 * in /metrics; below the setting, one warning (at start too) and a small WAL (db/disk-space.ts)
 * until there is room again, then one line and the usual pace.
 */
export class DiskSpace {
  private low = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly client: Database,
    private readonly file: string,
    private readonly minFreeBytes: number,
    private readonly log: Logger,
  ) {}

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
    try {
      walPace(this.client, low);
    } catch (e) {
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
    this.timer = setInterval(() => this.check(), DISK_CHECK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
