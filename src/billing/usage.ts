// Usage history for the key holder: one row per charged call (time, capability, face, what paid
// for it, refund, status). Rows ride along with the ledger's group commit, so recording costs the
// paid path no extra sync, and they are kept for a bounded number of days.
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { usageEvents } from '../db/schema.ts';
import type { Logger } from '../log.ts';
import type { Debit, Ledger } from './ledger.ts';

export type Face = (typeof usageEvents.face.enumValues)[number];

export interface UsageCall {
  capability: string;
  face: Face;
  /** When the call arrived (Unix ms). */
  at: number;
  status: number;
  refunded: boolean;
}

/** One call as the key holder sees it. */
export interface UsageItem {
  id: number;
  /** Unix seconds. */
  time: number;
  capability: string;
  face: Face;
  paidWith: 'free_call' | 'credit';
  /** Taken from credit; 0 when a free call paid. */
  lamports: bigint;
  refunded: boolean;
  status: number;
}

export interface UsagePage {
  items: UsageItem[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export const USAGE_PAGE_MAX = 100;
const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export class UsageLog {
  private readonly insert;
  private lastPrune = 0;

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly retentionDays: number,
    private readonly log: Logger,
  ) {
    this.insert = db
      .insert(usageEvents)
      .values({
        wallet: sql.placeholder('wallet'),
        at: sql.placeholder('at'),
        capability: sql.placeholder('capability'),
        face: sql.placeholder('face'),
        paidWith: sql.placeholder('paidWith'),
        lamports: sql.placeholder('lamports'),
        refunded: sql.placeholder('refunded'),
        status: sql.placeholder('status'),
      })
      .prepare();
  }

  /** Records one charged call; returns at once, the row commits with the next ledger batch. */
  record(debit: Debit, call: UsageCall): void {
    const row = {
      wallet: debit.wallet,
      at: call.at,
      capability: call.capability,
      face: call.face,
      paidWith: debit.kind === 'free' ? 'free_call' : 'credit',
      lamports: debit.kind === 'free' ? 0n : BigInt(debit.price),
      refunded: call.refunded ? 1 : 0,
      status: call.status,
    };
    const fail = (e: unknown) => this.log.error('usage row not recorded', { error: e instanceof Error ? e.message : String(e) });
    this.ledger.defer(() => this.insert.run(row), fail);
    if (call.at - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = call.at;
      this.ledger.defer(() => this.prune(call.at), fail);
    }
  }

  /** The wallet's calls, newest first, `limit` at a time, older than the cursor `before`. */
  page(wallet: string, limit: number, before?: number, now = Date.now()): UsagePage {
    this.ledger.settle();
    const rows = this.db
      .select()
      .from(usageEvents)
      .where(
        and(
          eq(usageEvents.wallet, wallet),
          gte(usageEvents.at, this.cutoff(now)),
          before === undefined ? undefined : lt(usageEvents.id, before),
        ),
      )
      .orderBy(desc(usageEvents.id))
      .limit(limit + 1)
      .all();
    const items = rows.slice(0, limit).map(
      (r): UsageItem => ({
        id: r.id,
        time: Math.floor(r.at / 1000),
        capability: r.capability,
        face: r.face,
        paidWith: r.paidWith,
        lamports: r.lamports,
        refunded: r.refunded,
        status: r.status,
      }),
    );
    return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]!.id) : null };
  }

  /** Deletes rows past the retention period. */
  prune(now = Date.now()): void {
    this.db.delete(usageEvents).where(lt(usageEvents.at, this.cutoff(now))).run();
  }

  private cutoff(now: number): number {
    return now - this.retentionDays * DAY_MS;
  }
}
