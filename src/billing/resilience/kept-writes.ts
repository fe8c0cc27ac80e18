// Writes owed to the database that it could not take when they were made (it was away, or the
// answer was lost): refunds of calls that failed, and the releases and settlement records of x402
// payments.
// Each is idempotent by its call's id, so it is simply tried again, in the background, until the
// database takes it; the call that owed it has long been answered. Kept in memory only: a process
// that stops before the database returns loses what is still kept (docs/operations.md, "When the
// database is away"); a graceful stop waits a bounded time for them, and counts what it gives up.
import type { Logger } from '../../log.ts';
import { keptWrites, keptWritesGivenUp } from '../../metrics.ts';
import { LATE, within } from '../../within.ts';

/** What a kept write is, for the gauge and the log. */
export type KeptKind = 'refund' | 'x402_release' | 'x402_finish';

/** A first try that takes longer than this is answered as kept (and goes on): a call never waits long for what it owes. */
const FIRST_ANSWER_MS = 2000;
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 2000;

interface Kept {
  kind: KeptKind;
  fields: Record<string, unknown>;
}

export class KeptWrites {
  private readonly kept = new Set<Kept>();
  private readonly waiting = new Set<Promise<unknown>>();
  private episode = false;
  private stopped = false;

  constructor(private readonly log: Logger) {}

  /** How many writes are kept now. */
  get size(): number {
    return this.kept.size;
  }

  /**
   * Tries `write` now; when it fails, keeps it and tries again (with growing pauses) until it
   * succeeds. Resolves with its result when the first try wrote it, else with undefined as soon
   * as it fails or FIRST_ANSWER_MS have passed (kept); `written` runs with the result whenever it
   * is written. `fields` name it in the log (never a secret).
   */
  write<T>(kind: KeptKind, fields: Record<string, unknown>, write: () => Promise<T>, written?: (result: T) => void): Promise<T | undefined> {
    let first!: (result: T | undefined) => void;
    const now = new Promise<T | undefined>((answer) => (first = answer));
    const slow = setTimeout(() => first(undefined), FIRST_ANSWER_MS);
    void now.then(() => clearTimeout(slow));
    const done = this.attempt(kind, fields, write, first).then((result) => written?.(result));
    this.waiting.add(done);
    const forget = () => void this.waiting.delete(done);
    done.then(forget, forget);
    return now;
  }

  private async attempt<T>(kind: KeptKind, fields: Record<string, unknown>, write: () => Promise<T>, first: (result: T | undefined) => void): Promise<T> {
    let entry: Kept | undefined;
    for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, LAST_RETRY_MS)) {
      try {
        const result = await write();
        if (entry) this.release(entry);
        first(result);
        return result;
      } catch (e) {
        first(undefined);
        if (this.stopped) throw e;
        if (!entry) {
          entry = { kind, fields };
          this.kept.add(entry);
          keptWrites.inc({ kind });
          if (!this.episode) {
            this.episode = true;
            this.log.warn('database write kept for later', { event: 'write_kept', kind, ...fields, error: e instanceof Error ? e.message : String(e) });
          }
        }
        await Bun.sleep(pause);
        if (this.stopped) throw e;
      }
    }
  }

  private release(entry: Kept) {
    this.kept.delete(entry);
    keptWrites.dec({ kind: entry.kind });
    if (this.kept.size === 0 && this.episode) {
      this.episode = false;
      this.log.info('kept database writes all written', { event: 'writes_caught_up' });
    }
  }

  /**
   * Waits up to `ms` for every kept write; then gives up on the rest: each is logged with what it
   * owed, and counted in gateway_kept_writes_given_up_total.
   */
  async settled(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.waiting.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0 || (await within(Promise.allSettled([...this.waiting]), left)) === LATE) break;
    }
    this.stopped = true;
    for (const entry of this.kept) {
      keptWritesGivenUp.inc({ kind: entry.kind });
      keptWrites.dec({ kind: entry.kind });
      this.log.error('database write given up at stop', { event: 'write_given_up', kind: entry.kind, ...entry.fields });
    }
    this.kept.clear();
  }
}
