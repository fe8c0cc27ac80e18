// The credit ledger. A paid call is one atomic debit (a free call first, else the flat price from
// credit) made durable before the upstream call, and refunded when the call does not end in 2xx.
//
// Exactness: a batch runs inside BEGIN IMMEDIATE, which holds SQLite's write lock, so no other
// writer (process or connection) can change an account between reading it and writing it. Each
// account the batch touches is read once under that lock; its debits and refunds are applied in
// order by the pure steps below (a free call first, else the price from credit, else refused); and
// its final state is written with one UPDATE. A burst of calls from one wallet costs one row write
// instead of one per call, and no interleaving can overspend. The schema's CHECK constraints refuse
// a negative balance even if a step were wrong.
//
// Durability, chosen per kind of record (docs/operations.md, "Durability of the ledger"). The connection commits
// with synchronous=FULL, so claims, deposit credits and key rotations are fsynced when they commit.
// Debits and refunds are group committed: those asked for during one turn of the event loop are
// applied in order inside ONE transaction and answered only after its COMMIT. With sync 'normal'
// (the default) that COMMIT runs with synchronous=NORMAL: the WAL is written, so the debit survives
// a crash of the process (kill -9; the operating system holds the write), but not fsynced, so a
// power loss can drop the last moments of debits (in the customer's favour), never a credit or a
// key. With sync 'full' every batch is fsynced as well.
//
// Once per call: every debit is recorded under its call's id (ledger_debits) in the transaction
// that takes it, and a refund gives back only a debit so recorded and not yet refunded. A refund
// asked twice, or a debit retried after a failure, moves nothing a second time.
//
// In-memory view: the committed state of recently used accounts, written right after every commit
// that changes them (write-through), so reads (/api/keys/me, the balance on a 402) cost no query.
// The database stays the truth: debits are decided on the row as read under the write lock, never
// on the view, and every write to credit_accounts goes through this class, which keeps the view exact.
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { LedgerSync } from '../../../config.ts';
import type { Db } from '../../../db/client.ts';
import { otherWriters } from '../../../db/other-writers.ts';
import { creditAccounts, exactLamports, ledgerDebits } from '../../../db/schema.ts';
import { callIdsBefore } from '../../resilience/call-id.ts';
import { ledgerBatch, ledgerCommit } from '../../../metrics.ts';
import { debitStep, refundStep, type AccountView, type Balance, type Debit, type DebitRef, type Refund } from '../../credit.ts';

/** How long group-commit flushes held the event loop (for diagnostics and bench/ledger-flush.ts). */
export interface FlushStats {
  flushes: number;
  operations: number;
  totalMs: number;
  maxMs: number;
}

const accountColumns = {
  wallet: creditAccounts.wallet,
  freeCalls: creditAccounts.freeCalls,
  creditLamports: exactLamports(creditAccounts.creditLamports),
  callsMade: creditAccounts.callsMade,
};
const wallet = sql.placeholder('wallet');
const value = (name: string) => sql`${sql.placeholder(name)}`;
const now = value('now');

/**
 * At most this many operations per transaction: a flush holds the event loop while it runs, so a
 * burst larger than this is committed in several turns, letting other requests in between.
 */
export const MAX_BATCH = 256;

/** A write nobody waits for commits alone after this long if no debit comes to carry it. */
const DEFERRED_MS = 200;

/**
 * What one debit or refund does to an account, applied in memory so a batch writes each account
 * once; it may read and write the call's record (ledger_debits) in the batch's transaction.
 */
type Step = (account: AccountView | null, at: number) => { value: unknown; next?: AccountView; error?: Error };

interface Pending {
  /** A debit or refund: `step` on the account of `wallet`, written with the batch's other steps on it. */
  wallet?: string;
  step?: Step;
  /** Any other write (usage rows): applied as it is, in order. */
  apply?(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const balanceOf = (a: AccountView): Balance => ({ freeCalls: a.freeCalls, creditLamports: a.creditLamports });

export class Ledger {
  // Prepared once: building SQL per call cost more than the update itself.
  private readonly writeAccount;
  private readonly selectAccount;
  private readonly recordDebit;
  private readonly recordedDebit;
  private readonly recordRefund;
  private readonly pruneDebits;
  private readonly relaxed: boolean;
  private readonly othersWrote: () => boolean;
  private readonly view = new LRUCache<string, AccountView>({ max: 100_000 });
  private queue: Pending[] = [];
  private flushScheduled = false;
  private lazyFlush: ReturnType<typeof setTimeout> | undefined;
  private readonly holders: (() => void)[] = [];
  /** Transactions committed by the group commit (for tests and diagnostics). */
  commits = 0;
  readonly flushStats: FlushStats = { flushes: 0, operations: 0, totalMs: 0, maxMs: 0 };

  constructor(
    private readonly db: Db,
    sync: LedgerSync = 'normal',
  ) {
    this.writeAccount = db
      .update(creditAccounts)
      .set({ freeCalls: value('freeCalls'), creditLamports: value('creditLamports'), callsMade: value('callsMade'), updatedAt: now })
      .where(eq(creditAccounts.wallet, wallet))
      .prepare();
    this.selectAccount = db.select(accountColumns).from(creditAccounts).where(eq(creditAccounts.wallet, wallet)).prepare();
    const callId = sql.placeholder('callId');
    // Bound by position, not through drizzle's placeholder mapping: it runs once per paid call.
    this.recordDebit = db.$client.prepare<unknown, [string, string, string, number]>('INSERT INTO ledger_debits (call_id, wallet, kind, price) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.recordedDebit = db.select().from(ledgerDebits).where(eq(ledgerDebits.callId, callId)).prepare();
    this.recordRefund = db
      .update(ledgerDebits)
      .set({ refundedAt: now })
      .where(and(eq(ledgerDebits.callId, callId), isNull(ledgerDebits.refundedAt)))
      .returning({ kind: ledgerDebits.kind, price: ledgerDebits.price })
      .prepare();
    this.pruneDebits = db.delete(ledgerDebits).where(lt(ledgerDebits.callId, sql.placeholder('before'))).prepare();
    this.relaxed = sync === 'normal';
    this.othersWrote = otherWriters(db.$client);
  }

  /**
   * Takes one free call, or else `price` lamports, for the call `callId`; null when the account
   * cannot pay. Resolves once committed. A call id already debited is not debited again: it
   * resolves to that debit (null if it was refunded).
   */
  debit(walletAddress: string, priceLamports: number, callId: string): Promise<Debit | null> {
    return this.enqueue(walletAddress, (account) => {
      const taken = debitStep(account, priceLamports);
      if (!taken) return { value: null };
      if (this.recordDebit.run(callId, walletAddress, taken.kind, priceLamports).changes === 0) {
        const known = this.recordedDebit.get({ callId })!;
        const again: Debit = { callId, wallet: known.wallet, kind: known.kind, price: known.price, balance: balanceOf(account!) };
        return { value: known.refundedAt === null ? again : null };
      }
      const debit: Debit = { callId, wallet: walletAddress, kind: taken.kind, price: priceLamports, balance: balanceOf(taken.next) };
      return { value: debit, next: taken.next };
    });
  }

  /** Gives back what the call `call.callId` was debited, once however often asked. Resolves once committed. */
  refund(call: DebitRef): Promise<Refund> {
    return this.enqueue(call.wallet, (account, at) => {
      if (!account) return { value: undefined, error: new Error('refund: credit account vanished') };
      const recorded = this.recordRefund.get({ callId: call.callId, now: at });
      if (!recorded) return { value: { balance: balanceOf(account), given: null } satisfies Refund };
      const next = refundStep(account, recorded);
      const given: Debit = { balance: balanceOf(next), ...call, kind: recorded.kind, price: recorded.price };
      return { value: { balance: balanceOf(next), given } satisfies Refund, next };
    });
  }

  /** Forgets the records of calls made before `before` (Unix ms): no refund is owed that long. */
  prune(before: number): void {
    this.pruneDebits.run({ before: callIdsBefore(before) });
  }

  /** The committed state of the wallet's account, from memory when it was seen recently. */
  account(walletAddress: string): AccountView | null {
    // Another process writing to the file (an operator command) makes nothing remembered trustworthy.
    if (this.othersWrote()) this.view.clear();
    const seen = this.view.get(walletAddress);
    if (seen) return seen;
    const row = this.selectAccount.get({ wallet: walletAddress });
    if (!row) return null;
    this.view.set(walletAddress, row);
    return row;
  }

  /**
   * Adds claimed credit; a wallet's first claim also opens the account with its free calls.
   * Synchronous, for use inside the claim's own transaction (which commits with a full sync).
   */
  credit(walletAddress: string, lamports: bigint, freeCallsOnOpen: number, at = Date.now()): Balance {
    // Dropped, not updated: the enclosing transaction may still roll back. The next read loads the
    // row as committed; nothing can read in between, since the claim's transaction is synchronous.
    this.view.delete(walletAddress);
    return this.db
      .insert(creditAccounts)
      .values({ wallet: walletAddress, freeCalls: freeCallsOnOpen, creditLamports: lamports, callsMade: 0, createdAt: at, updatedAt: at })
      .onConflictDoUpdate({
        target: creditAccounts.wallet,
        set: { creditLamports: sql`${creditAccounts.creditLamports} + ${lamports}`, updatedAt: at },
      })
      .returning({ freeCalls: creditAccounts.freeCalls, creditLamports: exactLamports(creditAccounts.creditLamports) })
      .get();
  }

  /**
   * A write nobody waits for (usage history): it rides along with the next group commit, so a paid
   * call costs no extra sync; when no debit comes it commits alone within DEFERRED_MS. `onDone`
   * runs once it committed, `onError` when it did not.
   */
  defer(apply: () => unknown, onError: (e: unknown) => void, onDone: () => void = () => {}): void {
    this.queue.push({ apply, resolve: onDone, reject: onError });
    if (!this.flushScheduled && !this.lazyFlush) this.lazyFlush = setTimeout(() => this.flush(), DEFERRED_MS);
  }

  /** Commits whatever is queued now, and whatever a writer holds back for later (beforeSettle), so a read that follows sees it. */
  settle(): void {
    for (const handOver of this.holders) handOver();
    while (this.queue.length > 0) this.flush();
  }

  /** `handOver` defers what its writer holds back; settle() calls it first. */
  beforeSettle(handOver: () => void): void {
    this.holders.push(handOver);
  }

  private enqueue<T>(wallet: string, step: Step): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ wallet, step, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Applies queued operations in order in one transaction; answers them only after COMMIT. */
  private flush(): void {
    const started = performance.now();
    this.flushScheduled = false;
    clearTimeout(this.lazyFlush);
    this.lazyFlush = undefined;
    if (this.queue.length === 0) return;
    const batch = this.queue.length > MAX_BATCH ? this.queue.splice(0, MAX_BATCH) : this.queue;
    if (batch === this.queue) this.queue = [];
    else this.schedule();
    const outcomes: { ok: boolean; value: unknown }[] = [];
    // Each account the batch touches, as read under the write lock and then stepped in order.
    const accounts = new Map<string, AccountView | null>();
    const changed = new Set<string>();
    // The connection's own setting (FULL) is what every other commit uses; only the batch relaxes
    // it. Not a prepared statement: SQLite applies this pragma when it is compiled, not when run.
    if (this.relaxed) this.db.$client.run('PRAGMA synchronous = NORMAL');
    try {
      this.db.$client.transaction(() => {
        const at = Date.now();
        batch.forEach((op, i) => {
          if (!op.step) {
            // A deferred write that fails fails alone, unless it took the transaction with it
            // (SQLite rolls back by itself on a full disk, for one): then the whole batch fails.
            try {
              outcomes[i] = { ok: true, value: op.apply!() };
            } catch (e) {
              if (!this.db.$client.inTransaction) throw e;
              outcomes[i] = { ok: false, value: e };
            }
            return;
          }
          const w = op.wallet!;
          if (!accounts.has(w)) accounts.set(w, this.selectAccount.get({ wallet: w }) ?? null);
          // A step that cannot apply says so and changes nothing; any error thrown is the
          // database's, and fails the batch: a call's record and its account commit together.
          const { value, next, error } = op.step(accounts.get(w)!, at);
          if (next) {
            accounts.set(w, next);
            changed.add(w);
          }
          outcomes[i] = error ? { ok: false, value: error } : { ok: true, value };
        });
        for (const w of changed) {
          const a = accounts.get(w)!;
          this.writeAccount.run({ wallet: w, freeCalls: a.freeCalls, creditLamports: a.creditLamports, callsMade: a.callsMade, now: at });
        }
      }).immediate();
      this.commits++;
      ledgerBatch.observe(batch.length);
      ledgerCommit.observe((performance.now() - started) / 1000);
    } catch (e) {
      outcomes.length = 0;
      accounts.clear();
      for (const _ of batch) outcomes.push({ ok: false, value: e });
    } finally {
      if (this.relaxed) this.db.$client.run('PRAGMA synchronous = FULL');
    }
    // Write-through: the view learns each account's state only once the database has committed it.
    for (const a of accounts.values()) if (a) this.view.set(a.wallet, a);
    const ms = performance.now() - started;
    const stats = this.flushStats;
    stats.flushes++;
    stats.operations += batch.length;
    stats.totalMs += ms;
    if (ms > stats.maxMs) stats.maxMs = ms;
    batch.forEach((op, i) => (outcomes[i]!.ok ? op.resolve(outcomes[i]!.value) : op.reject(outcomes[i]!.value)));
  }
}
