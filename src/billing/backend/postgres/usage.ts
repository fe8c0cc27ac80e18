// Usage history on PostgreSQL: the same rows and pages as UsageLog (sqlite/usage.ts), written by each
// replica for its own calls. A row is written after the call's answer is settled, without holding
// the answer back, in the ledger's next group commit; a row the database does not take is kept and
// written again, in order, until it does (once: unique by its call's id, so a write whose answer
// was lost is simply repeated).
import { and, desc, eq, gte, lt } from 'drizzle-orm';
import type { PgDb } from '../../../db/pg-client.ts';
import { usageEvents, x402Payments } from '../../../db/pg-schema.ts';
import type { Logger } from '../../../log.ts';
import type { Debit } from '../../credit.ts';
import type { PgLedger } from './ledger.ts';
import { DEBIT_RECORD_MS, PRUNE_EVERY_MS, SETTLE_MS, usageCutoff, usageRow, type UsageCall, type UsageHistory, type UsageMark, type UsagePage } from '../../usage-history.ts';
import { keyPaidWhere, mergePage, x402Query, type UsageCursor } from '../../usage-pages.ts';
import { Backlog, waitFor } from '../../resilience/backlog.ts';

/** Rows written by one INSERT at most. */
const ROWS_PER_INSERT = 1000;

type Row = ReturnType<typeof usageRow>;

export class PgUsageLog implements UsageHistory {
  private lastPrune = 0;
  /** Rows waiting to be written, oldest first (those of a failed write go back to the front). */
  private pending: Row[] = [];
  /** Rows in `pending`: marking one refunded sets its flag in place. */
  private readonly queued = new Set<Row>();
  private writing?: Promise<void>;
  /** Marks not yet written. */
  private readonly marking = new Set<Promise<void>>();
  private readonly backlog: Backlog;
  private stopped = false;

  constructor(
    private readonly db: PgDb,
    private readonly retentionDays: number,
    private readonly log: Logger,
    maxQueued = 100_000,
    /** The ledger: forgets its records of calls made before a time (prune), carries rows in its group commit (carry). */
    private readonly ledger: Pick<PgLedger, 'prune' | 'carry'>,
  ) {
    this.backlog = new Backlog(maxQueued, log);
  }

  record(debit: Debit, call: UsageCall): UsageMark {
    if (call.at - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = call.at;
      void this.prune(call.at).catch((e) => this.log.warn('usage history not pruned', { error: e instanceof Error ? e.message : String(e) }));
    }
    if (!this.backlog.admit()) return { refunded: () => {} };
    const row = usageRow(debit, call);
    this.pending.push(row);
    this.queued.add(row);
    this.writing ??= this.write();
    return {
      refunded: () => {
        if (this.queued.has(row)) return void (row.refunded = true);
        const mark = this.markRefunded(row);
        this.marking.add(mark);
        void mark.finally(() => this.marking.delete(mark));
      },
    };
  }

  async settled(withinMs = SETTLE_MS): Promise<void> {
    const written = await waitFor(() => !this.writing && this.marking.size === 0, withinMs, () => {});
    this.stopped = true;
    if (!written) this.backlog.givenUp();
  }

  /** Marks a row refunded by its call's id once the writes in flight are done; again until the database takes it. */
  private async markRefunded(row: Row) {
    // Set in place too: if its write in flight fails, the row is written again already marked.
    row.refunded = true;
    await this.writing;
    while (!this.stopped) {
      try {
        await this.db.update(usageEvents).set({ refunded: true }).where(eq(usageEvents.callId, row.callId));
        return;
      } catch (e) {
        await Bun.sleep(this.backlog.failed(e));
      }
    }
  }

  // One INSERT at a time, carrying every row recorded meanwhile, in the ledger's next group commit
  // (pg-ledger.ts carry): ids follow the order the calls were recorded in (the history's order), and
  // a paid call's row costs no commit of its own.
  private async write() {
    while (this.pending.length > 0 && !this.stopped) {
      const rows = this.pending.splice(0, ROWS_PER_INSERT);
      for (const row of rows) this.queued.delete(row);
      try {
        await this.ledger.carry(rows);
        this.backlog.written(rows.length);
      } catch (e) {
        // Back to the front, in order, before any newer row.
        this.pending = rows.concat(this.pending);
        for (const row of rows) this.queued.add(row);
        await Bun.sleep(this.backlog.failed(e));
      }
    }
    this.writing = undefined;
  }

  async page(wallet: string, limit: number, cursor: UsageCursor = {}, now = Date.now()): Promise<UsagePage> {
    const cutoff = usageCutoff(now, this.retentionDays);
    const keyPaid = this.db.select().from(usageEvents).where(keyPaidWhere(usageEvents, wallet, cutoff, cursor)).orderBy(desc(usageEvents.id)).limit(limit + 1);
    if (cursor.x402 === null) return mergePage(await keyPaid, [], limit);
    const q = x402Query(x402Payments, wallet, cutoff, cursor.x402);
    const x402 = this.db.select().from(x402Payments).where(q.where).orderBy(...q.orderBy).limit(limit + 1);
    const [k, x] = await Promise.all([keyPaid, x402]);
    return mergePage(k, x, limit);
  }

  /**
   * Old rows, found below the first row young enough to keep (rows arrive in time order; no index
   * on `at`). Each deleted row is itself old: a young row inserted meanwhile, not yet visible to
   * the first query, is never taken.
   */
  async prune(now = Date.now()): Promise<void> {
    await this.ledger.prune(now - DEBIT_RECORD_MS);
    const cutoff = usageCutoff(now, this.retentionDays);
    const [keep] = await this.db.select({ id: usageEvents.id }).from(usageEvents).where(gte(usageEvents.at, cutoff)).orderBy(usageEvents.id).limit(1);
    await this.db.delete(usageEvents).where(and(lt(usageEvents.at, cutoff), keep ? lt(usageEvents.id, keep.id) : undefined));
  }
}
