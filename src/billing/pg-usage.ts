// Usage history on PostgreSQL: the same rows and pages as UsageLog (usage.ts), written by each
// replica for its own calls. A row is written after the call's answer is settled, without holding
// the answer back; a failed write is logged, never charged to the caller.
import { and, desc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { PgDb } from '../db/pg-client.ts';
import { usageEvents } from '../db/pg-schema.ts';
import type { Logger } from '../log.ts';
import type { Debit } from './ledger.ts';
import { unrecorded, usageRow, type UsageCall, type UsageHistory, type UsageItem, type UsageMark, type UsagePage } from './usage.ts';

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export class PgUsageLog implements UsageHistory {
  private lastPrune = 0;
  private pending: (typeof usageEvents.$inferInsert)[] = [];
  private writing?: Promise<void>;
  /** Marks not yet written. */
  private readonly marking = new Set<Promise<void>>();
  private readonly fail = (e: unknown) => unrecorded(this.log, e);

  constructor(
    private readonly db: PgDb,
    private readonly retentionDays: number,
    private readonly log: Logger,
  ) {}

  record(debit: Debit, call: UsageCall): UsageMark {
    const row = usageRow(debit, call);
    this.pending.push(row);
    this.writing ??= this.write();
    if (call.at - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = call.at;
      void this.prune(call.at).catch(this.fail);
    }
    return {
      refunded: () => {
        const mark = this.markRefunded(row).catch(this.fail);
        this.marking.add(mark);
        void mark.finally(() => this.marking.delete(mark));
      },
    };
  }

  async settled(): Promise<void> {
    while (this.writing || this.marking.size > 0) await Promise.all([this.writing, ...this.marking]);
  }

  /** Marks a recorded row refunded: in place while it waits to be written, else once the writes in flight are done. */
  private async markRefunded(row: ReturnType<typeof usageRow>) {
    if (this.pending.includes(row)) return void (row.refunded = true);
    await this.writing;
    const same = and(eq(usageEvents.wallet, row.wallet), eq(usageEvents.at, row.at), eq(usageEvents.capability, row.capability), eq(usageEvents.face, row.face), eq(usageEvents.refunded, false));
    // Marks running at once (here or on another replica) would all pick the same newest row; one
    // that is locked is skipped for the next, so each marks its own.
    const latest = this.db.select({ id: usageEvents.id }).from(usageEvents).where(same).orderBy(desc(usageEvents.id)).limit(1).for('update', { skipLocked: true });
    await this.db.update(usageEvents).set({ refunded: true }).where(inArray(usageEvents.id, latest));
  }

  // One INSERT at a time, carrying every row recorded meanwhile: ids follow the order the calls were
  // recorded in (the history's order), and a burst costs one round trip instead of one per call.
  private async write() {
    while (this.pending.length > 0) {
      const rows = this.pending.splice(0, 1000);
      await this.db.insert(usageEvents).values(rows).then(() => {}, this.fail);
    }
    this.writing = undefined;
  }

  async page(wallet: string, limit: number, before?: number, now = Date.now()): Promise<UsagePage> {
    const rows = await this.db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.wallet, wallet), gte(usageEvents.at, this.cutoff(now)), before === undefined ? undefined : lt(usageEvents.id, before)))
      .orderBy(desc(usageEvents.id))
      .limit(limit + 1);
    const items = rows.slice(0, limit).map(
      (r): UsageItem => ({ id: r.id, time: Math.floor(r.at / 1000), capability: r.capability, face: r.face, paidWith: r.paidWith, lamports: r.lamports, refunded: r.refunded, status: r.status }),
    );
    return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]!.id) : null };
  }

  /**
   * Old rows, found below the first row young enough to keep (rows arrive in time order; no index
   * on `at`). Each deleted row is itself old: a young row inserted meanwhile, not yet visible to
   * the first query, is never taken.
   */
  async prune(now = Date.now()): Promise<void> {
    const cutoff = this.cutoff(now);
    const [keep] = await this.db.select({ id: usageEvents.id }).from(usageEvents).where(gte(usageEvents.at, cutoff)).orderBy(usageEvents.id).limit(1);
    await this.db.delete(usageEvents).where(and(lt(usageEvents.at, cutoff), keep ? lt(usageEvents.id, keep.id) : undefined));
  }

  private cutoff(now: number): number {
    return now - this.retentionDays * DAY_MS;
  }
}
