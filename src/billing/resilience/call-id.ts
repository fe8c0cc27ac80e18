// Every paid call's own id, made by the call pipeline: the ledger records its debit under it, its
// refund and its usage row go by it, and an x402 payment held for it carries it. Time first (Unix
// ms in base 36, fixed width) so ids sort by age and old records are pruned by their primary key;
// then a random tag of this process and a counter, so no two replicas or restarts share an id.

const TAG = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => (b % 36).toString(36)).join('');
const STAMP_WIDTH = 9;
let seq = 0;

const stamp = (ms: number) => ms.toString(36).padStart(STAMP_WIDTH, '0');

export function newCallId(now = Date.now()): string {
  return stamp(now) + TAG + (seq++).toString(36);
}

/** Sorts above the id of every call made before `ms` and below every later one. */
export const callIdsBefore = (ms: number): string => stamp(ms);
