// A write whose answer was lost (the connection dropped around COMMIT, a timeout) may or may not
// have committed. Before the call it belongs to is answered, the database is asked what became of
// it, by the call's id (db/faults.ts tells such errors from a plain rollback); when it cannot be
// asked within SETTLE_WITHIN_MS, the call fails with UnsettledWrite and whoever made the write
// keeps the question: a refund, or a release, by the call's id undoes it if, and only if, it was made.
import { StorageUnavailable } from '../../errors.ts';
import { LATE, within } from '../../within.ts';

/** How long, from when it was asked, a write may take to be answered or, its answer lost, settled. */
export const SETTLE_WITHIN_MS = 6000;

/** A COMMIT not answered within this long is taken as lost and settled like one (the server may still run it). */
export const COMMIT_WITHIN_MS = 3000;
/** Pause between two questions to a database that does not answer. */
const ASK_EVERY_MS = 250;

/**
 * A write whose outcome could not be learned in time: it may have committed. The caller keeps the
 * question (a refund by the call's id gives back the debit if, and only if, it was made).
 */
export class UnsettledWrite extends StorageUnavailable {
  constructor(readonly callId: string) {
    super('the outcome of a write is not known yet');
  }
}

/**
 * Asks the database what became of a write whose answer was lost, again and again until it
 * answers or `deadline` (Unix ms) passes; then rejects with UnsettledWrite for `callId`.
 */
export async function settleWithin<T>(deadline: number, callId: string, ask: () => Promise<T>): Promise<T> {
  while (true) {
    const left = deadline - Date.now();
    if (left <= 0) throw new UnsettledWrite(callId);
    try {
      const answer = await within(ask(), left);
      if (answer !== LATE) return answer;
    } catch {
      await Bun.sleep(Math.min(ASK_EVERY_MS, Math.max(0, deadline - Date.now())));
    }
  }
}
