// The credit ledger on PostgreSQL, exact across replicas. Each debit is one conditional UPDATE that
// locks the account row (SELECT ... FOR UPDATE), takes a free call or else the price only when the
// credit covers it, and RETURNs what it took: replicas racing on one wallet queue on the row lock,
// so none can overspend, and the CHECK constraints refuse a negative balance regardless.
// Group commit per replica: operations asked for while a transaction is in flight are sent together
// (pipelined on one connection) in the next transaction and answered only after its COMMIT.
import type { SQL } from 'bun';
import type { AccountView, Balance, Debit } from './ledger.ts';

interface Pending {
  wallet: string;
  apply(tx: SQL): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface BalanceRow {
  free_calls: number;
  credit_lamports: string | number | bigint;
}

// Bun's client returns bigint columns as decimal strings: exact through BigInt.
const balanceOf = (r: BalanceRow): Balance => ({ freeCalls: Number(r.free_calls), creditLamports: BigInt(r.credit_lamports) });

export class PgLedger {
  private queue: Pending[] = [];
  private flushing = false;
  /** Transactions committed by the group commit (for tests and diagnostics). */
  commits = 0;

  constructor(private readonly sql: SQL) {}

  debit(wallet: string, price: number): Promise<Debit | null> {
    return this.enqueue(wallet, async (tx) => {
      const [row] = await tx<(BalanceRow & { free: boolean })[]>`
        WITH cur AS (SELECT wallet, free_calls > 0 AS free FROM credit_accounts WHERE wallet = ${wallet} FOR UPDATE)
        UPDATE credit_accounts a SET
          free_calls = a.free_calls - CASE WHEN cur.free THEN 1 ELSE 0 END,
          credit_lamports = a.credit_lamports - CASE WHEN cur.free THEN 0 ELSE ${price}::bigint END,
          calls_made = a.calls_made + 1,
          updated_at = ${Date.now()}
        FROM cur
        WHERE a.wallet = cur.wallet AND (cur.free OR a.credit_lamports >= ${price}::bigint)
        RETURNING cur.free AS free, a.free_calls, a.credit_lamports`;
      return row ? ({ wallet, kind: row.free ? 'free' : 'credit', price, balance: balanceOf(row) } satisfies Debit) : null;
    });
  }

  async refund(debit: Debit): Promise<Balance> {
    const balance = await this.enqueue(debit.wallet, async (tx) => {
      const free = debit.kind === 'free' ? 1 : 0;
      const credit = debit.kind === 'free' ? 0 : debit.price;
      const [row] = await tx<BalanceRow[]>`
        UPDATE credit_accounts SET free_calls = free_calls + ${free}, credit_lamports = credit_lamports + ${credit}::bigint,
          calls_made = calls_made - 1, updated_at = ${Date.now()}
        WHERE wallet = ${debit.wallet}
        RETURNING free_calls, credit_lamports`;
      return row ? balanceOf(row) : null;
    });
    if (!balance) throw new Error('refund: credit account vanished');
    return balance;
  }

  async account(wallet: string): Promise<AccountView | null> {
    const [row] = await this.sql<(BalanceRow & { calls_made: number })[]>`SELECT free_calls, credit_lamports, calls_made FROM credit_accounts WHERE wallet = ${wallet}`;
    return row ? { wallet, callsMade: Number(row.calls_made), ...balanceOf(row) } : null;
  }

  private enqueue<T>(wallet: string, apply: (tx: SQL) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ wallet, apply, resolve: resolve as (v: unknown) => void, reject });
      if (!this.flushing) setImmediate(() => void this.flush());
      this.flushing = true;
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      // Rows are locked in wallet order in every transaction of every replica, so two replicas'
      // batches never wait on each other in a cycle (no deadlock). The sort is stable: one wallet's
      // operations keep their order.
      const batch = this.queue.sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0));
      this.queue = [];
      let results: unknown[];
      try {
        // Operations do not fail on their own (a debit that cannot pay returns nothing), so any
        // error is the database's: the transaction rolls back and the whole batch fails, unanswered
        // by anything that did not commit.
        results = await this.sql.begin((tx) => Promise.all(batch.map((op) => op.apply(tx))));
        this.commits++;
      } catch (e) {
        for (const op of batch) op.reject(e);
        continue;
      }
      batch.forEach((op, i) => op.resolve(results[i]));
    }
    this.flushing = false;
  }
}
