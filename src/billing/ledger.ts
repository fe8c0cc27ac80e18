// The credit ledger. A paid call is one atomic debit (a free call first, else the flat price from
// credit) made durable before the upstream call, and refunded when the call does not end in 2xx.
//
// Exactness: each debit is a conditional UPDATE (WHERE free_calls > 0 / credit >= price), run one
// after another, so no interleaving can overspend; the schema's CHECK constraints refuse a negative
// balance even if a caller were wrong.
//
// Durability, chosen per kind of record (README, "Durability of the ledger"). The connection commits
// with synchronous=FULL, so claims, deposit credits and key rotations are fsynced when they commit.
// Debits and refunds are group committed: those asked for during one turn of the event loop are
// applied in order inside ONE transaction and answered only after its COMMIT. With sync 'normal'
// (the default) that COMMIT runs with synchronous=NORMAL: the WAL is written, so the debit survives
// a crash of the process (kill -9; the operating system holds the write), but not fsynced, so a
// power loss can drop the last moments of debits (in the customer's favour), never a credit or a
// key. With sync 'full' every batch is fsynced as well.
//
// In-memory view: the committed state of recently used accounts, written right after every commit
// that changes them (write-through), so reads (/api/keys/me, the balance on a 402) cost no query.
// The database stays the truth: debits are still decided by SQLite's conditional UPDATE, and every
// write to credit_accounts goes through this class, which keeps the view exact.
import { and, eq, gt, gte, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { LedgerSync } from '../config.ts';
import type { Db } from '../db/client.ts';
import { creditAccounts, exactLamports } from '../db/schema.ts';
import { ledgerBatch, ledgerCommit } from '../metrics.ts';

export interface Balance {
  freeCalls: number;
  creditLamports: bigint;
}

export interface Debit {
  wallet: string;
  kind: 'free' | 'credit';
  price: number;
  balance: Balance;
}

export interface AccountView extends Balance {
  wallet: string;
  callsMade: number;
}

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
const price = sql.placeholder('price');
const now = sql`${sql.placeholder('now')}`;

/**
 * At most this many operations per transaction: a flush holds the event loop while it runs, so a
 * burst larger than this is committed in several turns, letting other requests in between.
 */
export const MAX_BATCH = 256;

/** A write nobody waits for commits alone after this long if no debit comes to carry it. */
const DEFERRED_MS = 200;

interface Pending {
  apply(): { value: unknown; account?: AccountView };
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const balanceOf = (a: AccountView): Balance => ({ freeCalls: a.freeCalls, creditLamports: a.creditLamports });

export class Ledger {
  // Prepared once: building SQL per call cost more than the update itself.
  private readonly takeFreeCall;
  private readonly takeCredit;
  private readonly giveFreeCall;
  private readonly giveCredit;
  private readonly selectAccount;
  private readonly relaxed: boolean;
  private readonly dataVersion;
  private seenVersion: number;
  private readonly view = new LRUCache<string, AccountView>({ max: 100_000 });
  private queue: Pending[] = [];
  private flushScheduled = false;
  private lazyFlush: ReturnType<typeof setTimeout> | undefined;
  /** Transactions committed by the group commit (for tests and diagnostics). */
  commits = 0;
  readonly flushStats: FlushStats = { flushes: 0, operations: 0, totalMs: 0, maxMs: 0 };

  constructor(
    private readonly db: Db,
    sync: LedgerSync = 'normal',
  ) {
    const spend = { callsMade: sql`${creditAccounts.callsMade} + 1`, updatedAt: now };
    const unspend = { callsMade: sql`${creditAccounts.callsMade} - 1`, updatedAt: now };
    this.takeFreeCall = db
      .update(creditAccounts)
      .set({ freeCalls: sql`${creditAccounts.freeCalls} - 1`, ...spend })
      .where(and(eq(creditAccounts.wallet, wallet), gt(creditAccounts.freeCalls, 0)))
      .returning(accountColumns)
      .prepare();
    this.takeCredit = db
      .update(creditAccounts)
      .set({ creditLamports: sql`${creditAccounts.creditLamports} - ${price}`, ...spend })
      .where(and(eq(creditAccounts.wallet, wallet), gte(creditAccounts.creditLamports, price)))
      .returning(accountColumns)
      .prepare();
    this.giveFreeCall = db
      .update(creditAccounts)
      .set({ freeCalls: sql`${creditAccounts.freeCalls} + 1`, ...unspend })
      .where(eq(creditAccounts.wallet, wallet))
      .returning(accountColumns)
      .prepare();
    this.giveCredit = db
      .update(creditAccounts)
      .set({ creditLamports: sql`${creditAccounts.creditLamports} + ${price}`, ...unspend })
      .where(eq(creditAccounts.wallet, wallet))
      .returning(accountColumns)
      .prepare();
    this.selectAccount = db.select(accountColumns).from(creditAccounts).where(eq(creditAccounts.wallet, wallet)).prepare();
    this.relaxed = sync === 'normal';
    this.dataVersion = db.$client.prepare<{ data_version: number }, []>('PRAGMA data_version');
    this.seenVersion = this.dataVersion.get()!.data_version;
  }

  /** Takes one free call, or else `price` lamports; null when the account cannot pay. Resolves once committed. */
  debit(walletAddress: string, priceLamports: number): Promise<Debit | null> {
    return this.enqueue((): { value: Debit | null; account?: AccountView } => {
      const args = { wallet: walletAddress, price: priceLamports, now: Date.now() };
      const free = this.takeFreeCall.get(args);
      if (free) return { account: free, value: { wallet: walletAddress, kind: 'free', price: priceLamports, balance: balanceOf(free) } satisfies Debit };
      const paid = this.takeCredit.get(args);
      if (paid) return { account: paid, value: { wallet: walletAddress, kind: 'credit', price: priceLamports, balance: balanceOf(paid) } satisfies Debit };
      return { value: null };
    });
  }

  /** Gives back exactly what `debit` took. Resolves once committed. */
  refund(debit: Debit): Promise<Balance> {
    return this.enqueue(() => {
      const args = { wallet: debit.wallet, price: debit.price, now: Date.now() };
      const row = (debit.kind === 'free' ? this.giveFreeCall : this.giveCredit).get(args);
      if (!row) throw new Error('refund: credit account vanished');
      return { account: row, value: balanceOf(row) };
    });
  }

  /** The committed state of the wallet's account, from memory when it was seen recently. */
  account(walletAddress: string): AccountView | null {
    // Another process writing to the file (an operator command) makes nothing remembered trustworthy.
    const version = this.dataVersion.get()!.data_version;
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.view.clear();
    }
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
   * call costs no extra sync; when no debit comes it commits alone within DEFERRED_MS.
   */
  defer(apply: () => unknown, onError: (e: unknown) => void): void {
    this.queue.push({ apply: () => ({ value: apply() }), resolve: () => {}, reject: onError });
    if (!this.flushScheduled && !this.lazyFlush) this.lazyFlush = setTimeout(() => this.flush(), DEFERRED_MS);
  }

  /** Commits whatever is queued now, so a read that follows sees it. */
  settle(): void {
    while (this.queue.length > 0) this.flush();
  }

  private enqueue<T>(apply: () => { value: T; account?: AccountView }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ apply, resolve: resolve as (v: unknown) => void, reject });
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
    const outcomes: { ok: boolean; value: unknown; account?: AccountView }[] = [];
    // The connection's own setting (FULL) is what every other commit uses; only the batch relaxes
    // it. Not a prepared statement: SQLite applies this pragma when it is compiled, not when run.
    if (this.relaxed) this.db.$client.run('PRAGMA synchronous = NORMAL');
    try {
      this.db.$client.transaction(() => {
        for (const op of batch) {
          // Each operation is its own statement(s); one that fails changes nothing and fails alone.
          try {
            outcomes.push({ ok: true, ...op.apply() });
          } catch (e) {
            outcomes.push({ ok: false, value: e });
          }
        }
      }).immediate();
      this.commits++;
      ledgerBatch.observe(batch.length);
      ledgerCommit.observe((performance.now() - started) / 1000);
    } catch (e) {
      outcomes.length = 0;
      for (const _ of batch) outcomes.push({ ok: false, value: e });
    } finally {
      if (this.relaxed) this.db.$client.run('PRAGMA synchronous = FULL');
    }
    // Write-through: the view learns each account's state only once the database has committed it.
    for (const o of outcomes) if (o.account) this.view.set(o.account.wallet, o.account);
    const ms = performance.now() - started;
    const stats = this.flushStats;
    stats.flushes++;
    stats.operations += batch.length;
    stats.totalMs += ms;
    if (ms > stats.maxMs) stats.maxMs = ms;
    batch.forEach((op, i) => (outcomes[i]!.ok ? op.resolve(outcomes[i]!.value) : op.reject(outcomes[i]!.value)));
  }
}
