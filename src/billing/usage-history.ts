// Usage history for the key holder, as its users see it: one row per charged call (time,
// capability, face, what paid for it, refund, status), recorded without holding the call back and
// read a page at a time. Where the rows go is the backend's (backend/*/usage.ts).
import type { Debit } from './credit.ts';
import type { UsageCursor, UsageItem, UsagePage } from './usage-pages.ts';

export type { UsageItem, UsagePage };

export type Face = UsageItem['face'];

export interface UsageCall {
  capability: string;
  face: Face;
  /** When the call arrived (Unix ms). */
  at: number;
  status: number;
  refunded: boolean;
}

export const USAGE_PAGE_MAX = 100;
const DAY_MS = 86_400_000;
/** How long the ledger keeps a debit's record (ledger_debits): longer than any refund can be owed. */
export const DEBIT_RECORD_MS = 7 * DAY_MS;
/** A usage log prunes at most this often: on the first call recorded after it. */
export const PRUNE_EVERY_MS = 3_600_000;
/** How long a usage log's settled() waits by default. */
export const SETTLE_MS = 10_000;
/** The oldest time a usage log keeps with `retentionDays` of history. */
export const usageCutoff = (now: number, retentionDays: number) => now - retentionDays * DAY_MS;

/** The row of one charged call, as both backends store it. */
export function usageRow(debit: Debit, call: UsageCall) {
  return {
    callId: debit.callId,
    wallet: debit.wallet,
    at: call.at,
    capability: call.capability,
    face: call.face,
    paidWith: debit.kind === 'free' ? ('free_call' as const) : ('credit' as const),
    lamports: debit.kind === 'free' ? 0n : BigInt(debit.price),
    refunded: call.refunded,
    status: call.status,
  };
}

/**
 * A recorded call's row, to be marked refunded when its charge is given back after the row was
 * written: an MCP answer the client never took (sse-transport.ts refunds it when the session closes).
 */
export interface UsageMark {
  refunded(): void;
}

/** Where usage rows go, whichever database keeps them (backend/sqlite/usage.ts, backend/postgres/usage.ts). */
export interface UsageHistory {
  record(debit: Debit, call: UsageCall): UsageMark;
  page(wallet: string, limit: number, cursor?: UsageCursor): UsagePage | Promise<UsagePage>;
  /**
   * Resolves once every row and mark recorded so far is written (a graceful stop waits for it), or
   * `withinMs` have passed: then what is still unwritten is given up, counted and logged.
   */
  settled(withinMs?: number): Promise<void>;
}
