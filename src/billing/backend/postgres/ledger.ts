// The credit ledger on PostgreSQL, exact across replicas. Each debit is one conditional UPDATE that
// locks the account row (SELECT ... FOR UPDATE), takes a free call or else the price only when the
// credit covers it, and RETURNs what it took: replicas racing on one wallet queue on the row lock,
// so none can overspend, and the CHECK constraints refuse a negative balance regardless.
// Group commit per replica: operations asked for while a transaction is in flight are sent together
// (pipelined on one connection) in the next transaction and answered only after its COMMIT.
//
// Once per call, as on SQLite (sqlite/ledger.ts): each debit is recorded under its call id in the same
// statement, and a refund gives back only a recorded debit not yet refunded. When the connection
// is lost around COMMIT the batch may or may not have committed: the ledger then looks its call
// ids up on a new connection, after taking the accounts' row locks (which the lost transaction
// holds until the server has committed or rolled it back), and answers each operation as it
// really ended; one that did not commit is sent again. A COMMIT not answered within
// COMMIT_WITHIN_MS is settled the same way. If the database cannot be asked within
// SETTLE_WITHIN_MS, the operation fails with UnsettledWrite and its caller keeps the question.
import type { SQL } from 'bun';
import { outcomeUnknown } from '../../../db/faults.ts';
import { callIdsBefore } from '../../resilience/call-id.ts';
import type { AccountView, Balance, Debit, DebitRef, Refund } from '../../credit.ts';
import { COMMIT_WITHIN_MS, settleWithin, SETTLE_WITHIN_MS, UnsettledWrite } from '../../resilience/unsettled.ts';
import { LATE, within } from '../../../within.ts';

interface Pending {
  wallet: string;
  /** The call's id, or for a debit made again after a lost COMMIT, that attempt's (nextAttempt). */
  callId: string;
  /** A debit: when found not made, its id is voided before it is made again under another. */
  debit?: boolean;
  /** A refund's stamp in refunded_at: after a lost COMMIT, tells this refund from an earlier one. */
  refundAt?: number;
  apply(tx: SQL, callId: string): Promise<unknown>;
  /** What the operation answers, learned from its call's record after a lost COMMIT. */
  recovered(record: DebitRow | undefined, balance: Balance): { value: unknown } | 'again';
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Until when its outcome may be waited for. */
  deadline: number;
}

interface BalanceRow {
  free_calls: number;
  credit_lamports: string | number | bigint;
}

interface DebitRow {
  call_id: string;
  kind: Debit['kind'];
  price: string | number;
  refunded_at: string | number | null;
}

// Bun's client returns bigint columns as decimal strings: exact through BigInt.
const balanceOf = (r: BalanceRow): Balance => ({ freeCalls: Number(r.free_calls), creditLamports: BigInt(r.credit_lamports) });

/** refunded_at of a voided id: no refund is ever made at time 0. */
const VOID = 0;
const voided = (r: DebitRow) => r.refunded_at !== null && Number(r.refunded_at) === VOID;

/** The id of a debit made again after its first attempt was voided: the same call, still sorted by its time. */
const nextAttempt = (callId: string) => `${callId}+`;

const byWallet = (a: { wallet: string }, b: { wallet: string }) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0);

export class PgLedger {
  private queue: Pending[] = [];
  private flushing = false;
  /** Transactions committed by the group commit (for tests and diagnostics). */
  commits = 0;

  constructor(private readonly sql: SQL) {}

  debit(wallet: string, price: number, firstCallId: string): Promise<Debit | null> {
    return this.enqueue({
      wallet,
      callId: firstCallId,
      debit: true,
      apply: async (tx, callId) => {
        // The record's primary key refuses a second debit of one call: the batch fails, nothing moves.
        const [row] = await tx<(BalanceRow & { free: boolean })[]>`
          WITH cur AS (
            SELECT wallet, free_calls > 0 AS free FROM credit_accounts
            WHERE wallet = ${wallet} AND NOT EXISTS (SELECT 1 FROM ledger_debits WHERE call_id = ${callId})
            FOR UPDATE),
          upd AS (
            UPDATE credit_accounts a SET
              free_calls = a.free_calls - CASE WHEN cur.free THEN 1 ELSE 0 END,
              credit_lamports = a.credit_lamports - CASE WHEN cur.free THEN 0 ELSE ${price}::bigint END,
              calls_made = a.calls_made + 1,
              updated_at = ${Date.now()}
            FROM cur
            WHERE a.wallet = cur.wallet AND (cur.free OR a.credit_lamports >= ${price}::bigint)
            RETURNING cur.free AS free, a.free_calls, a.credit_lamports),
          rec AS (
            INSERT INTO ledger_debits (call_id, wallet, kind, price)
            SELECT ${callId}, ${wallet}, CASE WHEN free THEN 'free' ELSE 'credit' END, ${price} FROM upd)
          SELECT free, free_calls, credit_lamports FROM upd`;
        return row ? ({ callId, wallet, kind: row.free ? 'free' : 'credit', price, balance: balanceOf(row) } satisfies Debit) : null;
      },
      recovered: (record, balance) => {
        if (!record || voided(record)) return 'again';
        return { value: record.refunded_at === null ? ({ callId: record.call_id, wallet, kind: record.kind, price: Number(record.price), balance } satisfies Debit) : null };
      },
    });
  }

  /** Gives back what the call `debit.callId` was debited, once however often asked. */
  refund(debit: DebitRef): Promise<Refund> {
    const refundAt = Date.now();
    return this.enqueue({
      wallet: debit.wallet,
      callId: debit.callId,
      refundAt,
      apply: async (tx) => {
        // The account's lock first: a debit of this call whose COMMIT is still on its way holds it,
        // so the refund sees that debit's record once it has committed, not before.
        await tx`SELECT 1 FROM credit_accounts WHERE wallet = ${debit.wallet} FOR UPDATE`;
        const [row] = await tx<(BalanceRow & { kind: Debit['kind'] | null; price: string | null })[]>`
          WITH given AS (
            UPDATE ledger_debits SET refunded_at = ${refundAt}
            WHERE call_id = ${debit.callId} AND refunded_at IS NULL
            RETURNING wallet, kind, price),
          upd AS (
            UPDATE credit_accounts a SET
              free_calls = a.free_calls + CASE WHEN given.kind = 'free' THEN 1 ELSE 0 END,
              credit_lamports = a.credit_lamports + CASE WHEN given.kind = 'free' THEN 0 ELSE given.price END,
              calls_made = a.calls_made - 1, updated_at = ${refundAt}
            FROM given WHERE a.wallet = given.wallet
            RETURNING a.free_calls, a.credit_lamports, given.kind, given.price)
          SELECT free_calls, credit_lamports, kind, price FROM upd
          UNION ALL
          SELECT free_calls, credit_lamports, NULL::text, NULL::bigint FROM credit_accounts WHERE wallet = ${debit.wallet} AND NOT EXISTS (SELECT 1 FROM upd)`;
        if (!row) throw new Error('refund: credit account vanished');
        const given = row.kind ? ({ balance: balanceOf(row), ...debit, kind: row.kind, price: Number(row.price) } satisfies Debit) : null;
        return { balance: balanceOf(row), given } satisfies Refund;
      },
      recovered: (record, balance) => {
        if (!record || record.refunded_at === null) return 'again';
        const mine = Number(record.refunded_at) === refundAt;
        return { value: { balance, given: mine ? { balance, ...debit, kind: record.kind, price: Number(record.price) } : null } satisfies Refund };
      },
    });
  }

  async account(wallet: string): Promise<AccountView | null> {
    const [row] = await this.sql<(BalanceRow & { calls_made: number })[]>`SELECT free_calls, credit_lamports, calls_made FROM credit_accounts WHERE wallet = ${wallet}`;
    return row ? { wallet, callsMade: Number(row.calls_made), ...balanceOf(row) } : null;
  }

  /** Forgets the records of calls made before `before` (Unix ms): no refund is owed that long. */
  async prune(before: number): Promise<void> {
    await this.sql`DELETE FROM ledger_debits WHERE call_id < ${callIdsBefore(before)}`;
  }

  private enqueue<T>(op: Omit<Pending, 'resolve' | 'reject' | 'deadline'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ...op, resolve: resolve as (v: unknown) => void, reject, deadline: Date.now() + SETTLE_WITHIN_MS });
      if (!this.flushing) setImmediate(() => void this.flush());
      this.flushing = true;
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      // Rows are locked in wallet order in every transaction of every replica, so two replicas'
      // batches never wait on each other in a cycle (no deadlock). The sort is stable: one wallet's
      // operations keep their order.
      const batch = this.queue.sort(byWallet);
      this.queue = [];
      let results: unknown[] | typeof LATE;
      try {
        // Operations do not fail on their own (a debit that cannot pay returns nothing), so any
        // error is the database's: the whole batch either committed or did not.
        results = await within(
          this.sql.begin((tx) => Promise.all(batch.map((op) => op.apply(tx, op.callId)))),
          COMMIT_WITHIN_MS,
        );
      } catch (e) {
        if (outcomeUnknown(e)) await this.settle(batch);
        else for (const op of batch) op.reject(e);
        continue;
      }
      // Too late to wait for: settled like a lost answer (what the transaction says later is ignored).
      if (results === LATE) {
        await this.settle(batch);
        continue;
      }
      this.commits++;
      batch.forEach((op, i) => op.resolve(results[i]));
    }
    this.flushing = false;
  }

  /** A batch whose COMMIT was lost: each operation answered as its call's record says it ended, or sent again. */
  private async settle(batch: Pending[]): Promise<void> {
    const deadline = Math.min(...batch.map((op) => op.deadline));
    let found: Awaited<ReturnType<PgLedger['lookUp']>>;
    try {
      found = await settleWithin(deadline, batch[0]!.callId, () => this.lookUp(batch));
    } catch {
      for (const op of batch) op.reject(new UnsettledWrite(op.callId));
      return;
    }
    for (const op of batch) {
      const balance = found.balances.get(op.wallet);
      const outcome = balance ? op.recovered(found.records.get(op.callId), balance) : 'again';
      if (outcome !== 'again') {
        op.resolve(outcome.value);
        continue;
      }
      // Its id was voided by the look-up: made again under the attempt's own id.
      if (op.debit) op.callId = nextAttempt(op.callId);
      this.queue.push(op);
    }
  }

  private lookUp(batch: Pending[]) {
    const wallets = [...new Set(batch.map((op) => op.wallet))].sort();
    const ids = batch.map((op) => op.callId);
    return this.sql.begin(async (tx) => {
      // The lost transaction holds these row locks until the server has finished it either way.
      const accounts = await tx<(BalanceRow & { wallet: string })[]>`
        SELECT wallet, free_calls, credit_lamports FROM credit_accounts WHERE wallet = ANY(${wallets}) ORDER BY wallet FOR UPDATE`;
      const records = await tx<DebitRow[]>`SELECT call_id, kind, price, refunded_at FROM ledger_debits WHERE call_id = ANY(${ids})`;
      // A debit not made may still be on its way (its transaction not begun on the server yet):
      // its id is voided (recorded with nothing taken, refunded at VOID), so that transaction fails
      // on the primary key if it ever runs, and the debit is made again under another id.
      const made = new Set(records.map((r) => r.call_id));
      const absent = batch.filter((op) => op.debit && !made.has(op.callId));
      if (absent.length > 0) {
        await tx`
          INSERT INTO ledger_debits (call_id, wallet, kind, price, refunded_at)
          SELECT id, w, 'credit', 0, ${VOID} FROM unnest(${absent.map((op) => op.callId)}::text[], ${absent.map((op) => op.wallet)}::text[]) AS v(id, w)
          ON CONFLICT DO NOTHING`;
      }
      return { balances: new Map(accounts.map((a) => [a.wallet, balanceOf(a)])), records: new Map(records.map((r) => [r.call_id, r])) };
    });
  }
}
