// Usage rows waiting for the database, as both backends' usage writers keep them: a bounded count,
// the pause before trying again, one log line per episode of failures or overflow; and a bounded
// wait for them all to be written.
import type { Logger } from '../../log.ts';
import { usageBacklogOf, usageRowsDropped } from '../../metrics.ts';

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2000;

/**
 * The rows waiting for the database, bounded (USAGE_QUEUE_ROWS): a row beyond the bound is
 * dropped and counted. Failures to write and overflows are each logged once per episode: at the
 * first, and again when everything kept has been written.
 */
export class Backlog {
  /** Rows recorded and not yet written. */
  size = 0;
  private failing = false;
  private overflowing = false;
  /** Pause before the next retry: grows while writes keep failing. */
  private pause = FIRST_RETRY_MS;

  constructor(
    private readonly max: number,
    private readonly log: Logger,
  ) {
    usageBacklogOf(() => this.size);
  }

  /** True when one more row may wait; else it is dropped (counted, logged once per episode). */
  admit(): boolean {
    if (this.size < this.max) {
      this.size++;
      return true;
    }
    usageRowsDropped.inc({ reason: 'queue_full' });
    if (!this.overflowing) {
      this.overflowing = true;
      this.log.error('usage rows dropped: the queue of rows waiting for the database is full', { event: 'usage_rows_dropped', queued: this.size, max: this.max });
    }
    return false;
  }

  written(rows: number): void {
    this.size -= rows;
    this.pause = FIRST_RETRY_MS;
    if (this.size === 0 && (this.failing || this.overflowing)) {
      this.failing = this.overflowing = false;
      this.log.info('usage rows written again', { event: 'usage_rows_caught_up' });
    }
  }

  /** A write failed: its rows stay queued. How long to wait before trying again. */
  failed(e: unknown): number {
    if (!this.failing) {
      this.failing = true;
      this.log.warn('usage rows kept for later: the database did not take them', { event: 'usage_rows_kept', queued: this.size, error: e instanceof Error ? e.message : String(e) });
    }
    const pause = this.pause;
    this.pause = Math.min(pause * 2, LAST_RETRY_MS);
    return pause;
  }

  /** A graceful stop ended its wait: what is left is lost. */
  givenUp(): void {
    if (this.size === 0) return;
    usageRowsDropped.inc({ reason: 'stopped' }, this.size);
    this.log.error('usage rows given up at stop', { event: 'usage_rows_given_up', rows: this.size });
    this.size = 0;
  }
}

/** Waits until `done()` or `ms` have passed, doing `step` between looks; true when done. */
export async function waitFor(done: () => boolean, ms: number, step: () => void | Promise<void>): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await step();
    if (!done()) await Bun.sleep(Math.min(50, Math.max(0, deadline - Date.now())));
  }
  return true;
}
