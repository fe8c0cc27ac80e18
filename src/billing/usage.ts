// Usage history for the key holder: one row per charged call (time, capability, face, what paid
// for it, refund, status). Rows ride along with the ledger's group commit, so recording costs the
// paid path no extra sync, and they are kept for a bounded number of days.
import { and, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { usageEvents, x402Payments } from '../db/schema.ts';
import type { Logger } from '../log.ts';
import type { Debit, Ledger } from './ledger.ts';
import { keyPaidWhere, mergePage, x402Query, type UsageCursor, type UsageItem, type UsagePage } from './usage-pages.ts';

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
const PRUNE_EVERY_MS = 3_600_000;

/** The row of one charged call, as both backends store it. */
export function usageRow(debit: Debit, call: UsageCall) {
  return {
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

/** Where usage rows go: UsageLog (SQLite, with the ledger's group commit) or PgUsageLog (Postgres). */
export interface UsageHistory {
  record(debit: Debit, call: UsageCall): UsageMark;
  page(wallet: string, limit: number, cursor?: UsageCursor): UsagePage | Promise<UsagePage>;
  /** Resolves once every row and mark recorded so far is written (a graceful stop waits for it). */
  settled(): Promise<void>;
}

/** What both backends log when usage rows could not be written (the call itself stands). */
export function unrecorded(log: Logger, e: unknown): void {
  log.error('usage row not recorded', { error: e instanceof Error ? e.message : String(e) });
}

/** Rows written by one statement at most; a larger batch is written in several. */
const ROWS_PER_INSERT = 64;

/**
 * Rows are held back until this many wait, or the first has waited WRITE_AFTER_MS, and then ride
 * along with the next ledger commit. Each commit that carries rows rewrites the last pages of the
 * table and of its index (and the database header, as the file grows): about ten WAL frames, 21
 * writes to the file, for a commit of 45 rows from one wallet. Written 256 at a time, the same
 * pages carry nearly six times as many rows. Not more: such a commit holds the event loop; with
 * rows from 45 wallets the flush p99 was 1.8-2.6 ms at 256 rows and 4.2 ms at 512 (bench/ledger-flush.ts).
 */
const ROWS_PER_WRITE = 256;
const WRITE_AFTER_MS = 100;

type Row = ReturnType<typeof usageRow>;

export class UsageLog implements UsageHistory {
  /** Multi-row inserts by row count, prepared on first use. */
  private readonly inserts = new Map<number, (rows: Row[]) => void>();
  /** Rows recorded and not yet handed to the ledger. */
  private pending: Row[] = [];
  private handOverTimer: ReturnType<typeof setTimeout> | undefined;
  private lastPrune = 0;
  private readonly fail = (e: unknown) => unrecorded(this.log, e);

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly retentionDays: number,
    private readonly log: Logger,
  ) {
    ledger.beforeSettle(() => this.handOver());
  }

  /** Records one charged call; returns at once, the row commits with a later ledger batch. */
  record(debit: Debit, call: UsageCall): UsageMark {
    const row = usageRow(debit, call);
    const batch = this.pending;
    const held = batch.push(row);
    if (held === 1) this.handOverTimer = setTimeout(() => this.handOver(), WRITE_AFTER_MS);
    else if (held >= ROWS_PER_WRITE) this.handOver();
    if (call.at - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = call.at;
      this.ledger.defer(() => this.prune(call.at), this.fail);
    }
    return {
      refunded: () => {
        // Not yet handed over: the row goes in as refunded.
        if (batch === this.pending) return void (row.refunded = true);
        // Deferred like the insert, so it runs after it (the ledger commits in order). Two calls alike
        // in wallet, arrival, capability and face are alike in every column: marking either is exact.
        this.ledger.defer(() => {
          const { wallet, at, capability, face } = row;
          const same = and(eq(usageEvents.wallet, wallet), eq(usageEvents.at, at), eq(usageEvents.capability, capability), eq(usageEvents.face, face), eq(usageEvents.refunded, false));
          const latest = this.db.select({ id: usageEvents.id }).from(usageEvents).where(same).orderBy(desc(usageEvents.id)).limit(1);
          this.db.update(usageEvents).set({ refunded: true }).where(inArray(usageEvents.id, latest)).run();
        }, this.fail);
      },
    };
  }

  /** Gives the held rows to the ledger, to be written with its next commit. */
  private handOver() {
    clearTimeout(this.handOverTimer);
    this.handOverTimer = undefined;
    const rows = this.pending;
    if (rows.length === 0) return;
    this.pending = [];
    // The rows of one commit are written together: in one statement a row cost SQLite 1.9 us
    // against 2.2-2.7 us alone, and binding by position skips drizzle's mapping of each value.
    this.ledger.defer(() => {
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        const chunk = rows.slice(i, i + ROWS_PER_INSERT);
        this.insertOf(chunk)(chunk);
      }
    }, this.fail);
  }

  /**
   * The insert for as many rows as `rows` holds. Its SQL and the order of its values are
   * drizzle's, from the schema; the values are bound by position, which skips drizzle's per-run
   * placeholder mapping.
   */
  private insertOf(rows: Row[]): (rows: Row[]) => void {
    const known = this.inserts.get(rows.length);
    if (known) return known;
    const fields = Object.keys(rows[0]!) as (keyof Row)[];
    const values = rows.map((_, i) => Object.fromEntries(fields.map((f) => [f, sql.placeholder(`${i}.${f}`)])));
    const query = this.db.insert(usageEvents).values(values as never).toSQL();
    // Which row and field each `?` stands for, in the order drizzle wrote them.
    const slots = query.params.map((p) => {
      const name = (p as unknown as { value: { name: string } }).value.name;
      const dot = name.indexOf('.');
      return [Number(name.slice(0, dot)), name.slice(dot + 1) as keyof Row] as const;
    });
    const statement = this.db.$client.prepare(query.sql);
    const insert = (rows: Row[]) => {
      const args: unknown[] = new Array(slots.length);
      for (let s = 0; s < slots.length; s++) {
        const [i, f] = slots[s]!;
        const v = rows[i]![f];
        args[s] = typeof v === 'boolean' ? Number(v) : v;
      }
      statement.run(...(args as never[]));
    };
    this.inserts.set(rows.length, insert);
    return insert;
  }

  async settled(): Promise<void> {
    this.ledger.settle();
  }

  /** The wallet's calls, newest first, `limit` at a time, from the cursor on (usage-pages.ts). */
  page(wallet: string, limit: number, cursor: UsageCursor = {}, now = Date.now()): UsagePage {
    this.ledger.settle();
    const cutoff = this.cutoff(now);
    const keyPaid = this.db.select().from(usageEvents).where(keyPaidWhere(usageEvents, wallet, cutoff, cursor)).orderBy(desc(usageEvents.id)).limit(limit + 1).all();
    if (cursor.x402 === null) return mergePage(keyPaid, [], limit);
    const q = x402Query(x402Payments, wallet, cutoff, cursor.x402);
    const x402 = this.db.select().from(x402Payments).where(q.where).orderBy(...q.orderBy).limit(limit + 1).all();
    return mergePage(keyPaid, x402, limit);
  }

  /** Deletes rows past the retention period. */
  prune(now = Date.now()): void {
    // Rows arrive in time order, so everything below the first row young enough to keep is old:
    // found by walking up the rowid from the oldest, with no index on `at` to keep up per call.
    const cutoff = this.cutoff(now);
    const keep = this.db.select({ id: usageEvents.id }).from(usageEvents).where(gte(usageEvents.at, cutoff)).orderBy(usageEvents.id).limit(1).get();
    // Each deleted row is itself old, whatever the order it arrived in.
    this.db
      .delete(usageEvents)
      .where(and(lt(usageEvents.at, cutoff), keep ? lt(usageEvents.id, keep.id) : undefined))
      .run();
  }

  private cutoff(now: number): number {
    return now - this.retentionDays * DAY_MS;
  }
}
