// Work a call leaves running after its face has moved on: a paid call an MCP event stream awaits
// while its HTTP request has long been answered (202), and the refund of an answer the stream
// could not deliver. A graceful stop waits for it before the database closes; otherwise those
// refunds, and the usage rows that say so, would be written to a closed database and lost.
import type { Logger } from '../log.ts';

export class InFlight {
  private count = 0;
  private idle: (() => void)[] = [];
  private readonly done = () => {
    if (--this.count > 0) return;
    for (const wake of this.idle.splice(0)) wake();
  };

  constructor(private readonly log: Logger) {}

  /** Follows `work` until it ends; returns it as it is. */
  follow<T>(work: Promise<T>): Promise<T> {
    this.count++;
    work.then(this.done, this.done);
    return work;
  }

  /**
   * Follows work that nobody awaits: a failure is logged with `fields`, never thrown (a refund
   * that fails leaves the lamports it owed in the log, not an unhandled rejection).
   */
  detach(work: Promise<unknown>, failure: string, fields: Record<string, unknown>): Promise<void> {
    return this.follow(work).then(
      () => {},
      (e) => this.log.error(failure, { ...fields, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  /** Resolves once nothing is followed, including work that what ended started in turn. */
  async settled(): Promise<void> {
    while (this.count > 0) {
      await new Promise<void>((wake) => this.idle.push(wake));
      // What just ended may start more (a call ending on a closed stream starts its refund) a few
      // microtasks later: all of them run before the next turn of the event loop.
      await new Promise((turn) => setImmediate(turn));
    }
  }
}
