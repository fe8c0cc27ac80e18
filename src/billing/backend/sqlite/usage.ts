// Usage history for the key holder: one row per charged call (time, capability, face, what paid
// for it, refund, status). Rows ride along with the ledger's group commit, so recording costs the
// paid path no extra sync, and they are kept for a bounded number of days. A row the database
// cannot take is kept and written again, in order, until it can (once: unique by its call's id);
// at most USAGE_QUEUE_ROWS wait, and what overflows is counted and logged (Backlog).
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { usageEvents, x402Payments } from '../../../db/schema.ts';
import type { Logger } from '../../../log.ts';
import type { Debit } from '../../credit.ts';
import { DEBIT_RECORD_MS, PRUNE_EVERY_MS, SETTLE_MS, usageCutoff, usageRow, type UsageCall, type UsageHistory, type UsageMark } from '../../usage-history.ts';
import { keyPaidWhere, mergePage, x402Query, type UsageCursor, type UsagePage } from '../../usage-pages.ts';
import { Backlog, waitFor } from '../../resilience/backlog.ts';
import type { Ledger } from './ledger.ts';

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
  private readonly markRow;
  /** Rows recorded and not yet handed to the ledger. */
  private pending: Row[] = [];
  /** Rows the database did not take, to be handed over again before any newer row. */
  private retry: Row[] = [];
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Rows not written yet (held, handed over or kept): marking one refunded sets its flag in place. */
  private readonly unwritten = new Set<Row>();
  /** Marks of written rows not written yet. */
  private marks = 0;
  private readonly backlog: Backlog;
  private handOverTimer: ReturnType<typeof setTimeout> | undefined;
  /** A graceful stop gave up on what was left: nothing is tried again (the database is closing). */
  private stopped = false;
  private lastPrune = 0;
  private readonly fail = (e: unknown) => void this.backlog.failed(e);

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly retentionDays: number,
    log: Logger,
    maxQueued = 100_000,
  ) {
    this.backlog = new Backlog(maxQueued, log);
    this.markRow = db.update(usageEvents).set({ refunded: true }).where(eq(usageEvents.callId, sql.placeholder('callId'))).prepare();
    ledger.beforeSettle(() => this.handOver());
  }

  /** Records one charged call; returns at once, the row commits with a later ledger batch. */
  record(debit: Debit, call: UsageCall): UsageMark {
    if (call.at - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = call.at;
      this.ledger.defer(() => this.prune(call.at), this.fail);
    }
    if (!this.backlog.admit()) return { refunded: () => {} };
    const row = usageRow(debit, call);
    this.unwritten.add(row);
    const held = this.pending.push(row);
    if (held === 1) this.handOverTimer = setTimeout(() => this.handOver(), WRITE_AFTER_MS);
    else if (held >= ROWS_PER_WRITE) this.handOver();
    return {
      refunded: () => {
        // Not written yet: the row goes in as refunded (its insert reads the row when it runs).
        if (this.unwritten.has(row)) return void (row.refunded = true);
        this.mark(row.callId);
      },
    };
  }

  /** Marks a written row refunded, with the ledger's next commit (so after its insert); again later if that fails. */
  private mark(callId: string) {
    this.marks++;
    this.ledger.defer(
      () => this.markRow.run({ callId }),
      (e) => (this.stopped ? this.marks-- : setTimeout(() => (this.marks--, this.mark(callId)), this.backlog.failed(e))),
      () => this.marks--,
    );
  }

  /**
   * Gives the held rows to the ledger, to be written with its next commit. While older rows wait
   * to be tried again, newer ones wait behind them (`retrying` hands them all over, oldest first).
   */
  private handOver(retrying = false) {
    clearTimeout(this.handOverTimer);
    this.handOverTimer = undefined;
    if (this.retry.length > 0 && !retrying) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const rows = this.retry.length > 0 ? this.retry.concat(this.pending) : this.pending;
    if (rows.length === 0) return;
    this.pending = [];
    this.retry = [];
    // The rows of one commit are written together: in one statement a row cost SQLite 1.9 us
    // against 2.2-2.7 us alone, and binding by position skips drizzle's mapping of each value.
    this.ledger.defer(
      () => {
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          const chunk = rows.slice(i, i + ROWS_PER_INSERT);
          this.insertOf(chunk)(chunk);
        }
      },
      (e) => this.keep(rows, e),
      () => {
        for (const row of rows) this.unwritten.delete(row);
        this.backlog.written(rows.length);
      },
    );
  }

  /** Rows the database did not take: tried again, before any newer row, after a pause. */
  private keep(rows: Row[], e: unknown) {
    if (this.stopped) return;
    this.retry = this.retry.concat(rows);
    const pause = this.backlog.failed(e);
    this.retryTimer ??= setTimeout(() => this.handOver(true), pause);
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
    // A row whose earlier write committed unseen is not written twice (call_id is unique).
    const query = this.db.insert(usageEvents).values(values as never).onConflictDoNothing().toSQL();
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

  async settled(withinMs = SETTLE_MS): Promise<void> {
    const written = await waitFor(
      () => this.backlog.size === 0 && this.marks === 0,
      withinMs,
      () => {
        this.handOver(true);
        this.ledger.settle();
      },
    );
    if (written) return;
    // Given up and counted: no timer may try them again once the database is closed.
    this.stopped = true;
    clearTimeout(this.handOverTimer);
    clearTimeout(this.retryTimer);
    this.pending = [];
    this.retry = [];
    this.unwritten.clear();
    this.backlog.givenUp();
  }

  /** The wallet's calls, newest first, `limit` at a time, from the cursor on (usage-pages.ts). */
  page(wallet: string, limit: number, cursor: UsageCursor = {}, now = Date.now()): UsagePage {
    this.ledger.settle();
    const cutoff = usageCutoff(now, this.retentionDays);
    const keyPaid = this.db.select().from(usageEvents).where(keyPaidWhere(usageEvents, wallet, cutoff, cursor)).orderBy(desc(usageEvents.id)).limit(limit + 1).all();
    if (cursor.x402 === null) return mergePage(keyPaid, [], limit);
    const q = x402Query(x402Payments, wallet, cutoff, cursor.x402);
    const x402 = this.db.select().from(x402Payments).where(q.where).orderBy(...q.orderBy).limit(limit + 1).all();
    return mergePage(keyPaid, x402, limit);
  }

  /** Deletes rows past the retention period, and the ledger's records of calls too old to be refunded. */
  prune(now = Date.now()): void {
    this.ledger.prune(now - DEBIT_RECORD_MS);
    // Rows arrive in time order, so everything below the first row young enough to keep is old:
    // found by walking up the rowid from the oldest, with no index on `at` to keep up per call.
    const cutoff = usageCutoff(now, this.retentionDays);
    const keep = this.db.select({ id: usageEvents.id }).from(usageEvents).where(gte(usageEvents.at, cutoff)).orderBy(usageEvents.id).limit(1).get();
    // Each deleted row is itself old, whatever the order it arrived in.
    this.db
      .delete(usageEvents)
      .where(and(lt(usageEvents.at, cutoff), keep ? lt(usageEvents.id, keep.id) : undefined))
      .run();
  }
}
