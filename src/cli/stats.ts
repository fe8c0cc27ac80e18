// `gateway stats`: what the database says about the business, read while the server runs (WAL
// lets a reader in beside the writer). Lamports are exact: SQLite's integers are read as bigint.
import { isNull, isNotNull, sql } from 'drizzle-orm';
import { apiKeys } from '../db/schema.ts';
import type { Db } from '../db/client.ts';

export interface Stats {
  keys: { active: number; revoked: number; wallets: number };
  deposits: { credited: { count: number; lamports: string } };
  /** Transfers below the minimum, summed per sender until they reach it (then one credited deposit). */
  dust: { wallets: number; transfers: number; lamports: string };
  pendingClaims: { wallets: number; lamports: string };
  creditOutstanding: { lamports: string; freeCalls: number };
  /**
   * Credited deposits less what is still pending or held as credit: what paid calls have taken.
   * Credit made of summed dust has no deposit row, so where dust reached the minimum this
   * undercounts by that much; the per-call usage record (revenueByDay) is exact where present.
   */
  revenueLamports: string;
  /** Per UTC day, from the per-call usage record (null when this database has none). */
  revenueByDay: { day: string; lamports: string; calls: number }[] | null;
  /** Paid calls kept (not refunded) per capability, from the usage record (null when absent). */
  callsByCapability: { capability: string; calls: number }[] | null;
  paidCallsMade: number;
  /** x402 payments (no account): settled per asset, in its atomic units; null when this database has no x402 table. */
  x402: { settled: { asset: string; payments: number; amount: string }[]; failed: number; recent: X402Call[] } | null;
  topWallets: { wallet: string; callsMade: number; creditLamports: string; freeCalls: number; depositedLamports: string }[];
}

/** One x402-paid call as the history shows it: who paid, what, for which capability, and the landed transaction. */
export interface X402Call {
  time: number;
  payer: string;
  asset: string;
  amount: number;
  capability: string;
  face: string;
  status: string;
  transaction: string | null;
}

const big = (v: unknown) => BigInt((v as bigint | number | null) ?? 0);

export function collectStats(db: Db): Stats {
  const client = db.$client;
  const one = <T>(q: { get(): unknown }) => q.get() as T;
  const keys = one<{ active: number; revoked: number; wallets: number }>(
    db
      .select({
        active: sql<number>`count(*) filter (where ${isNull(apiKeys.revokedAt)})`,
        revoked: sql<number>`count(*) filter (where ${isNotNull(apiKeys.revokedAt)})`,
        wallets: sql<number>`count(distinct ${apiKeys.wallet})`,
      })
      .from(apiKeys),
  );
  const depositRows = client
    .query(`SELECT status, count(*) AS n, coalesce(sum(lamports), 0) AS lamports FROM deposits GROUP BY status`)
    .safeIntegers(true)
    .all() as { status: string; n: bigint; lamports: bigint }[];
  const dep = (status: string) => {
    const row = depositRows.find((r) => r.status === status);
    return { count: Number(row?.n ?? 0), lamports: big(row?.lamports).toString() };
  };
  const dust = client.query(`SELECT count(*) AS n, coalesce(sum(transfers), 0) AS transfers, coalesce(sum(lamports), 0) AS lamports FROM dust_totals`).safeIntegers(true).get() as {
    n: bigint;
    transfers: bigint;
    lamports: bigint;
  };
  const pending = client.query(`SELECT count(*) AS n, coalesce(sum(credit_lamports), 0) AS lamports FROM pending_claims`).safeIntegers(true).get() as { n: bigint; lamports: bigint };
  const credit = client
    .query(`SELECT coalesce(sum(credit_lamports), 0) AS lamports, coalesce(sum(free_calls), 0) AS free, coalesce(sum(calls_made), 0) AS calls FROM credit_accounts`)
    .safeIntegers(true)
    .get() as { lamports: bigint; free: bigint; calls: bigint };
  const credited = big(depositRows.find((r) => r.status === 'credited')?.lamports);

  const hasUsage = client.query(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usage_events'`).get() !== null;
  const revenueByDay = hasUsage
    ? (
        client
          .query(
            `SELECT date(at / 1000, 'unixepoch') AS day, coalesce(sum(lamports), 0) AS lamports, count(*) AS calls
             FROM usage_events WHERE refunded = 0 GROUP BY day ORDER BY day`,
          )
          .safeIntegers(true)
          .all() as { day: string; lamports: bigint; calls: bigint }[]
      ).map((r) => ({ day: r.day, lamports: r.lamports.toString(), calls: Number(r.calls) }))
    : null;
  const callsByCapability = hasUsage
    ? (client.query(`SELECT capability, count(*) AS calls FROM usage_events WHERE refunded = 0 GROUP BY capability ORDER BY calls DESC, capability`).all() as {
        capability: string;
        calls: number;
      }[])
    : null;

  const hasX402 = client.query(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'x402_payments'`).get() !== null;
  const x402 = hasX402
    ? {
        settled: (
          client.query(`SELECT asset, count(*) AS payments, coalesce(sum(amount), 0) AS amount FROM x402_payments WHERE status = 'settled' GROUP BY asset ORDER BY asset`).safeIntegers(true).all() as {
            asset: string;
            payments: bigint;
            amount: bigint;
          }[]
        ).map((r) => ({ asset: r.asset, payments: Number(r.payments), amount: r.amount.toString() })),
        failed: Number((client.query(`SELECT count(*) AS n FROM x402_payments WHERE status = 'failed'`).safeIntegers(true).get() as { n: bigint }).n),
        recent: client
          .query(
            `SELECT created_at / 1000 AS time, payer, asset, amount, capability, face, status, signature AS "transaction"
             FROM x402_payments WHERE status != 'held' ORDER BY created_at DESC LIMIT 10`,
          )
          .all() as X402Call[],
      }
    : null;

  const top = client
    .query(
      `SELECT a.wallet, a.calls_made AS callsMade, cast(a.credit_lamports AS text) AS creditLamports, a.free_calls AS freeCalls,
              cast(coalesce((SELECT sum(d.lamports) FROM deposits d WHERE d.wallet = a.wallet AND d.status = 'credited'), 0) AS text) AS depositedLamports
       FROM credit_accounts a ORDER BY a.calls_made DESC, a.wallet LIMIT 10`,
    )
    .all() as Stats['topWallets'];

  return {
    keys,
    deposits: { credited: dep('credited') },
    dust: { wallets: Number(dust.n), transfers: Number(dust.transfers), lamports: dust.lamports.toString() },
    pendingClaims: { wallets: Number(pending.n), lamports: pending.lamports.toString() },
    creditOutstanding: { lamports: credit.lamports.toString(), freeCalls: Number(credit.free) },
    revenueLamports: (credited - pending.lamports - credit.lamports).toString(),
    revenueByDay,
    callsByCapability,
    paidCallsMade: Number(credit.calls),
    x402,
    topWallets: top,
  };
}

/** x402 revenue beside the SOL credit: per asset paid in, in its atomic units. */
function x402Lines(x: Stats['x402']): string[] {
  if (!x || (x.settled.length === 0 && x.failed === 0)) return ['x402 revenue    none (no payment settled)'];
  return [
    ...x.settled.map((a) => `x402 revenue    ${a.amount} atomic units of ${a.asset} over ${a.payments} paid calls`),
    ...(x.failed ? [`x402 failed     ${x.failed} payments did not settle (their answers were withheld)`] : []),
    ...x.recent.map((c) => `  ${new Date(c.time * 1000).toISOString().slice(0, 19)}  ${c.payer}  ${c.amount} of ${c.asset.slice(0, 8)}…  ${c.capability} (${c.face})  ${c.status}  ${c.transaction ?? ''}`),
  ];
}

const sol = (lamports: string) => `${(Number(lamports) / 1e9).toFixed(4)} SOL`;

export function statsText(s: Stats): string {
  const lines = [
    `keys            ${s.keys.active} active, ${s.keys.revoked} revoked, ${s.keys.wallets} wallets`,
    `deposits        ${s.deposits.credited.count} credited (${s.deposits.credited.lamports} lamports, ${sol(s.deposits.credited.lamports)})`,
    `dust            ${s.dust.transfers} transfers below the minimum from ${s.dust.wallets} wallets, ${s.dust.lamports} lamports not yet credited`,
    `pending claims  ${s.pendingClaims.wallets} wallets, ${s.pendingClaims.lamports} lamports`,
    `outstanding     ${s.creditOutstanding.lamports} lamports of credit (${sol(s.creditOutstanding.lamports)}), ${s.creditOutstanding.freeCalls} free calls`,
    `revenue         ${s.revenueLamports} lamports (${sol(s.revenueLamports)}) over ${s.paidCallsMade} paid calls`,
    ...x402Lines(s.x402),
    '',
    'revenue by day (UTC)',
    ...(s.revenueByDay ? s.revenueByDay.map((d) => `  ${d.day}  ${d.lamports.padStart(16)} lamports  ${String(d.calls).padStart(8)} calls`) : ['  (this database keeps no per-call record)']),
    '',
    'calls by capability',
    ...(s.callsByCapability ? s.callsByCapability.map((c) => `  ${c.capability.padEnd(24)} ${String(c.calls).padStart(8)}`) : ['  (this database keeps no per-call record)']),
    '',
    'top wallets by calls',
    ...s.topWallets.map((w) => `  ${w.wallet.padEnd(44)} ${String(w.callsMade).padStart(8)} calls  ${w.creditLamports.padStart(14)} lamports left  ${w.depositedLamports.padStart(14)} deposited`),
  ];
  return lines.join('\n') + '\n';
}

export function listKeys(db: Db) {
  return db
    .select({ keyId: sql<string>`substr(${apiKeys.keyHash}, 1, 12)`, wallet: apiKeys.wallet, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .orderBy(apiKeys.createdAt, apiKeys.keyHash)
    .all()
    .map((k) => ({ ...k, createdAt: new Date(k.createdAt).toISOString(), revokedAt: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString() }));
}
