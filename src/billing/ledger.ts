// The credit ledger. A paid call is one atomic debit (a free call first, else the flat price from
// credit) made durable before the upstream call, and refunded when the call does not end in 2xx.
//
// Exactness: each debit is a conditional UPDATE (WHERE free_calls > 0 / credit >= price), run one
// after another, so no interleaving can overspend; the schema's CHECK constraints refuse a negative
// balance even if a caller were wrong.
// Durability at speed (group commit): debits and refunds asked for during one turn of the event loop
// are applied in order inside ONE transaction, committed with a full sync, and only then answered.
// One fsync per batch instead of one per call; no caller proceeds before its debit is on disk.
import { and, eq, gt, gte, sql } from 'drizzle-orm';
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

const balanceColumns = { freeCalls: creditAccounts.freeCalls, creditLamports: exactLamports(creditAccounts.creditLamports) };
const wallet = sql.placeholder('wallet');
const price = sql.placeholder('price');
const now = sql`${sql.placeholder('now')}`;

const DEFERRED_MS = 200;

interface Pending {
  apply(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class Ledger {
  // Prepared once: building SQL per call cost more than the update itself.
  private readonly takeFreeCall;
  private readonly takeCredit;
  private readonly giveFreeCall;
  private readonly giveCredit;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private lazyFlush: ReturnType<typeof setTimeout> | undefined;
  /** Transactions committed by the group commit (for tests and diagnostics). */
  commits = 0;

  constructor(private readonly db: Db) {
    const spend = { callsMade: sql`${creditAccounts.callsMade} + 1`, updatedAt: now };
    const unspend = { callsMade: sql`${creditAccounts.callsMade} - 1`, updatedAt: now };
    this.takeFreeCall = db
      .update(creditAccounts)
      .set({ freeCalls: sql`${creditAccounts.freeCalls} - 1`, ...spend })
      .where(and(eq(creditAccounts.wallet, wallet), gt(creditAccounts.freeCalls, 0)))
      .returning(balanceColumns)
      .prepare();
    this.takeCredit = db
      .update(creditAccounts)
      .set({ creditLamports: sql`${creditAccounts.creditLamports} - ${price}`, ...spend })
      .where(and(eq(creditAccounts.wallet, wallet), gte(creditAccounts.creditLamports, price)))
      .returning(balanceColumns)
      .prepare();
    this.giveFreeCall = db
      .update(creditAccounts)
      .set({ freeCalls: sql`${creditAccounts.freeCalls} + 1`, ...unspend })
      .where(eq(creditAccounts.wallet, wallet))
      .returning(balanceColumns)
      .prepare();
    this.giveCredit = db
      .update(creditAccounts)
      .set({ creditLamports: sql`${creditAccounts.creditLamports} + ${price}`, ...unspend })
      .where(eq(creditAccounts.wallet, wallet))
      .returning(balanceColumns)
      .prepare();
  }

  /** Takes one free call, or else `price` lamports; null when the account cannot pay. Resolves once durable. */
  debit(walletAddress: string, priceLamports: number): Promise<Debit | null> {
    return this.enqueue(() => {
      const args = { wallet: walletAddress, price: priceLamports, now: Date.now() };
      const free = this.takeFreeCall.get(args);
      if (free) return { wallet: walletAddress, kind: 'free', price: priceLamports, balance: free } satisfies Debit;
      const paid = this.takeCredit.get(args);
      return paid ? ({ wallet: walletAddress, kind: 'credit', price: priceLamports, balance: paid } satisfies Debit) : null;
    });
  }

  /** Gives back exactly what `debit` took. Resolves once durable. */
  refund(debit: Debit): Promise<Balance> {
    return this.enqueue(() => {
      const args = { wallet: debit.wallet, price: debit.price, now: Date.now() };
      const row = (debit.kind === 'free' ? this.giveFreeCall : this.giveCredit).get(args);
      if (!row) throw new Error('refund: credit account vanished');
      return row;
    });
  }

  account(walletAddress: string): AccountView | null {
    return (
      this.db
        .select({ wallet: creditAccounts.wallet, callsMade: creditAccounts.callsMade, ...balanceColumns })
        .from(creditAccounts)
        .where(eq(creditAccounts.wallet, walletAddress))
        .get() ?? null
    );
  }

  /**
   * Adds claimed credit; a wallet's first claim also opens the account with its free calls.
   * Synchronous, for use inside the claim's own transaction.
   */
  credit(walletAddress: string, lamports: bigint, freeCallsOnOpen: number, at = Date.now()): Balance {
    return this.db
      .insert(creditAccounts)
      .values({ wallet: walletAddress, freeCalls: freeCallsOnOpen, creditLamports: lamports, callsMade: 0, createdAt: at, updatedAt: at })
      .onConflictDoUpdate({
        target: creditAccounts.wallet,
        set: { creditLamports: sql`${creditAccounts.creditLamports} + ${lamports}`, updatedAt: at },
      })
      .returning(balanceColumns)
      .get();
  }

  /**
   * A write nobody waits for (usage history): it rides along with the next group commit, so a paid
   * call costs no extra sync; when no debit comes it commits alone within DEFERRED_MS.
   */
  defer(apply: () => unknown, onError: (e: unknown) => void): void {
    this.queue.push({ apply, resolve: () => {}, reject: onError });
    if (!this.flushScheduled && !this.lazyFlush) this.lazyFlush = setTimeout(() => this.flush(), DEFERRED_MS);
  }

  /** Commits whatever is queued now, so a read that follows sees it. */
  settle(): void {
    if (this.queue.length > 0) this.flush();
  }

  private enqueue<T>(apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ apply, resolve: resolve as (v: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Applies the queued operations in order in one transaction; answers them only after COMMIT. */
  private flush(): void {
    this.flushScheduled = false;
    clearTimeout(this.lazyFlush);
    this.lazyFlush = undefined;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const started = performance.now();
    try {
      this.db.$client.transaction(() => {
        for (const op of batch) {
          // Each operation is its own statement(s); one that fails changes nothing and fails alone.
          try {
            outcomes.push({ ok: true, value: op.apply() });
          } catch (e) {
            outcomes.push({ ok: false, value: e });
          }
        }
      }).immediate();
      this.commits++;
      ledgerBatch.observe(batch.length);
      ledgerCommit.observe((performance.now() - started) / 1000);
    } catch (e) {
      for (const op of batch) op.reject(e);
      return;
    }
    batch.forEach((op, i) => (outcomes[i]!.ok ? op.resolve(outcomes[i]!.value) : op.reject(outcomes[i]!.value)));
  }
}
