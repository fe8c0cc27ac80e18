// Credit a replica holds out of a busy account (credit_holds), so that its debits of that wallet
// lock a row of its own instead of the account every replica's batches queue on (through one
// COMMIT's fsync after another). The ledger (ledger.ts) takes a hold in its locking transaction,
// debits it at once while it lasts, and folds it back when it runs short. An account's balance is
// its row plus its holds, and nothing a hold keeps is out of reach: a debit the account alone cannot
// pay folds every other replica's hold of it first, and a hold unused for HOLD_TTL_MS (its replica
// stopped, or crashed) is folded back by whichever replica sweeps first.
import type { SQL } from 'bun';
import type { AccountView } from '../../credit.ts';

/** A hold not used for this long is folded back into its account by any replica. */
export const HOLD_TTL_MS = 30_000;
/** How often each replica folds back the holds that expired. */
export const SWEEP_EVERY_MS = 10_000;
/** A hold is at most this share of what the account has left after it (the rest stays shared)... */
const HOLD_SHARE = 4n;
/** ...and at most this many calls' worth, */
const HOLD_CALLS = 1024n;
/** and is taken only if worth at least this many calls: a small balance stays in one row. */
const HOLD_MIN_CALLS = 64n;
/** Debits per second of one account (or draws of one bucket), in one replica, from which its row would be a queue worth avoiding. */
const BUSY_PER_SECOND = 25;

/**
 * Which accounts (or rate-limit buckets, or the replica itself) are busy in this replica: used at
 * least `perSecond` times in this second or the last (BUSY_PER_SECOND for an account or a bucket). Two
 * debits of one account in a batch happen by chance among many quiet customers; a hold for each
 * would cost them a locking transaction apiece and win nothing.
 */
export class Busy {
  private current = new Map<string, number>();
  private last = new Map<string, number>();
  private since: number;

  constructor(
    private readonly perSecond = BUSY_PER_SECOND,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
  }

  count(key: string, uses: number): void {
    this.roll();
    this.current.set(key, (this.current.get(key) ?? 0) + uses);
  }

  busy(key: string): boolean {
    this.roll();
    return Math.max(this.current.get(key) ?? 0, this.last.get(key) ?? 0) >= this.perSecond;
  }

  private roll() {
    const t = this.now();
    if (t - this.since < 1000) return;
    this.last = t - this.since < 2000 ? this.current : new Map();
    this.current = new Map();
    this.since = t;
  }
}

export interface HoldRow {
  wallet: string;
  holder: string;
  credit_lamports: string | number | bigint;
  calls_made: number;
  expired: boolean;
}

/**
 * The hold a replica takes of `account` (as it stands after its batch) for calls of `price`: none
 * while the account has free calls (those are taken first, in one place) or while its credit is small.
 */
export function holdFor(account: Pick<AccountView, 'freeCalls' | 'creditLamports'>, price: number): bigint {
  if (account.freeCalls > 0 || price <= 0) return 0n;
  const p = BigInt(price);
  const hold = [account.creditLamports / HOLD_SHARE, p * HOLD_CALLS].reduce((a, b) => (a < b ? a : b));
  return hold >= p * HOLD_MIN_CALLS ? hold : 0n;
}

/**
 * Folds holds back into their accounts: this replica's (`holder`, on a graceful stop) or every
 * expired one. The accounts are locked first, in wallet order, as in every transaction that
 * touches a hold; a hold renewed meanwhile by its replica is left alone.
 */
export async function foldHolds(sql: SQL, holder?: string): Promise<number> {
  return sql.begin(async (tx) => {
    // now() (the transaction's start), not clock_timestamp(): stable, so the expiry index can serve it.
    const which = () => (holder ? tx`holder = ${holder}` : tx`expires_at < extract(epoch from now()) * 1000`);
    const wallets = (await tx<{ wallet: string }[]>`SELECT DISTINCT wallet FROM credit_holds WHERE ${which()}`).map((r) => r.wallet);
    if (!wallets.length) return 0;
    await tx`SELECT wallet FROM credit_accounts WHERE wallet = ANY(${wallets}::text[]) ORDER BY wallet FOR UPDATE`;
    // Then the holds, in (wallet, holder) order as everywhere; one renewed meanwhile no longer matches and is left.
    const locked = await tx<{ wallet: string; holder: string }[]>`
      SELECT wallet, holder FROM credit_holds WHERE wallet = ANY(${wallets}::text[]) AND ${which()} ORDER BY wallet, holder FOR UPDATE`;
    if (!locked.length) return 0;
    const [{ n }] = await tx<{ n: number }[]>`
      WITH gone AS (
        DELETE FROM credit_holds h USING unnest(${locked.map((l) => l.wallet)}::text[], ${locked.map((l) => l.holder)}::text[]) AS v(w, holder)
        WHERE h.wallet = v.w AND h.holder = v.holder
        RETURNING h.wallet, h.credit_lamports, h.calls_made),
      total AS (SELECT wallet, sum(credit_lamports) AS c, sum(calls_made) AS m FROM gone GROUP BY wallet),
      folded AS (
        UPDATE credit_accounts a SET credit_lamports = a.credit_lamports + t.c, calls_made = a.calls_made + t.m, updated_at = (extract(epoch from clock_timestamp()) * 1000)::bigint
        FROM total t WHERE a.wallet = t.wallet RETURNING 1)
      SELECT count(*)::int AS n FROM gone`;
    return n;
  });
}
