// The credit ledger. A paid call is one atomic debit (a free call first, else the flat price from
// credit) made durable before the upstream call, and refunded when the call does not end in 2xx.
// The WHERE clauses make overspending impossible: bun:sqlite runs each statement to completion,
// and the CHECK constraints in the schema refuse a negative balance even if a caller were wrong.
import { and, eq, gt, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { creditAccounts } from '../db/schema.ts';

export interface Balance {
  freeCalls: number;
  creditLamports: number;
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

const balanceColumns = { freeCalls: creditAccounts.freeCalls, creditLamports: creditAccounts.creditLamports };

export class Ledger {
  constructor(private readonly db: Db) {}

  /** Takes one free call, or else `price` lamports; null when the account cannot pay. */
  debit(wallet: string, price: number, now = Date.now()): Debit | null {
    const free = this.db
      .update(creditAccounts)
      .set({ freeCalls: sql`${creditAccounts.freeCalls} - 1`, callsMade: sql`${creditAccounts.callsMade} + 1`, updatedAt: now })
      .where(and(eq(creditAccounts.wallet, wallet), gt(creditAccounts.freeCalls, 0)))
      .returning(balanceColumns)
      .get();
    if (free) return { wallet, kind: 'free', price, balance: free };
    const paid = this.db
      .update(creditAccounts)
      .set({ creditLamports: sql`${creditAccounts.creditLamports} - ${price}`, callsMade: sql`${creditAccounts.callsMade} + 1`, updatedAt: now })
      .where(and(eq(creditAccounts.wallet, wallet), gte(creditAccounts.creditLamports, price)))
      .returning(balanceColumns)
      .get();
    return paid ? { wallet, kind: 'credit', price, balance: paid } : null;
  }

  /** Gives back exactly what `debit` took. */
  refund(debit: Debit, now = Date.now()): Balance {
    const back =
      debit.kind === 'free'
        ? { freeCalls: sql`${creditAccounts.freeCalls} + 1` }
        : { creditLamports: sql`${creditAccounts.creditLamports} + ${debit.price}` };
    const row = this.db
      .update(creditAccounts)
      .set({ ...back, callsMade: sql`${creditAccounts.callsMade} - 1`, updatedAt: now })
      .where(eq(creditAccounts.wallet, debit.wallet))
      .returning(balanceColumns)
      .get();
    if (!row) throw new Error('refund: credit account vanished');
    return row;
  }

  account(wallet: string): AccountView | null {
    return (
      this.db
        .select({ wallet: creditAccounts.wallet, callsMade: creditAccounts.callsMade, ...balanceColumns })
        .from(creditAccounts)
        .where(eq(creditAccounts.wallet, wallet))
        .get() ?? null
    );
  }

  /** Adds claimed credit; a wallet's first claim also opens the account with its free calls. */
  credit(wallet: string, lamports: number, freeCallsOnOpen: number, now = Date.now()): Balance {
    return this.db
      .insert(creditAccounts)
      .values({ wallet, freeCalls: freeCallsOnOpen, creditLamports: lamports, callsMade: 0, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: creditAccounts.wallet,
        set: { creditLamports: sql`${creditAccounts.creditLamports} + ${lamports}`, updatedAt: now },
      })
      .returning(balanceColumns)
      .get();
  }
}
