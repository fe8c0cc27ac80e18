// `gateway stats` and `gateway keys list`: what the database says about the business, read while
// the server runs (SQLite's WAL lets a reader in beside the writer; PostgreSQL always does).
// Lamports are exact: integers are read as bigint (SQLite) or text (PostgreSQL), never as floats.
import type { OperatorDb } from './database.ts';
import { counted } from './counted.ts';

export interface Stats {
  /** The file's absolute path, or the PostgreSQL URL with its password masked. */
  database: string;
  /** No key, deposit, small transfer, pending claim, account or x402 payment at all. */
  empty: boolean;
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
  /**
   * Per UTC day, from the per-call usage record (null when this database has none): key-paid calls
   * kept and their lamports, and the settled x402 calls per asset with their atomic units.
   */
  revenueByDay: { day: string; lamports: string; calls: number; x402: X402Total[] }[] | null;
  /** Paid calls kept (not refunded) per capability, from the usage record (null when absent): by key, and settled by x402. */
  callsByCapability: { capability: string; calls: number; x402Calls: number }[] | null;
  paidCallsMade: number;
  /** x402 payments (no account): settled per asset, in its atomic units; null when this database has no x402 table. */
  x402: { settled: { asset: string; payments: number; amount: string }[]; failed: number; recent: X402Call[] } | null;
  topWallets: { wallet: string; callsMade: number; creditLamports: string; freeCalls: number; depositedLamports: string }[];
}

/** Settled x402 payments in one asset. */
export interface X402Total {
  asset: string;
  calls: number;
  amount: string;
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

const big = (v: unknown) => BigInt((v as bigint | number | string | null) ?? 0);
const num = (v: unknown) => Number((v as bigint | number | string | null) ?? 0);

/** Key-paid calls kept and settled x402 calls, per UTC day, oldest first. */
async function byDay(db: OperatorDb, hasX402: boolean): Promise<NonNullable<Stats['revenueByDay']>> {
  const days = new Map<string, NonNullable<Stats['revenueByDay']>[number]>();
  const dayOf = (day: string) => days.get(day) ?? days.set(day, { day, lamports: '0', calls: 0, x402: [] }).get(day)!;
  for (const r of await db.rows(`SELECT ${db.utcDay('at')} AS day, coalesce(sum(lamports), 0) AS lamports, count(*) AS calls FROM usage_events WHERE NOT refunded GROUP BY day`)) {
    Object.assign(dayOf(String(r.day)), { lamports: big(r.lamports).toString(), calls: num(r.calls) });
  }
  if (hasX402) {
    const rows = await db.rows(
      `SELECT ${db.utcDay('created_at')} AS day, asset, count(*) AS calls, coalesce(sum(amount), 0) AS amount FROM x402_payments WHERE status = 'settled' GROUP BY day, asset ORDER BY asset`,
    );
    for (const r of rows) dayOf(String(r.day)).x402.push({ asset: String(r.asset), calls: num(r.calls), amount: big(r.amount).toString() });
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/** Key-paid calls kept and settled x402 calls, per capability, the most called first. */
async function byCapability(db: OperatorDb, hasX402: boolean): Promise<NonNullable<Stats['callsByCapability']>> {
  const caps = new Map<string, { capability: string; calls: number; x402Calls: number }>();
  const capOf = (capability: string) => caps.get(capability) ?? caps.set(capability, { capability, calls: 0, x402Calls: 0 }).get(capability)!;
  for (const r of await db.rows(`SELECT capability, count(*) AS calls FROM usage_events WHERE NOT refunded GROUP BY capability`)) capOf(String(r.capability)).calls = num(r.calls);
  if (hasX402) {
    for (const r of await db.rows(`SELECT capability, count(*) AS calls FROM x402_payments WHERE status = 'settled' GROUP BY capability`)) capOf(String(r.capability)).x402Calls = num(r.calls);
  }
  return [...caps.values()].sort((a, b) => b.calls + b.x402Calls - (a.calls + a.x402Calls) || a.capability.localeCompare(b.capability));
}

/** The credit accounts as their wallets have them: on PostgreSQL, with what replicas hold of them (credit_holds). */
async function accountsOf(db: OperatorDb): Promise<string> {
  if (!(await db.hasTable('credit_holds'))) return 'credit_accounts';
  return `(SELECT a.wallet, a.free_calls, a.credit_lamports + coalesce(h.c, 0) AS credit_lamports, a.calls_made + coalesce(h.m, 0) AS calls_made
     FROM credit_accounts a LEFT JOIN (SELECT wallet, sum(credit_lamports) AS c, sum(calls_made) AS m FROM credit_holds GROUP BY wallet) h ON h.wallet = a.wallet)`;
}

export async function collectStats(db: OperatorDb): Promise<Stats> {
  const one = async (sql: string) => (await db.rows(sql))[0]!;
  const accounts = await accountsOf(db);
  const keys = await one(
    `SELECT count(*) FILTER (WHERE revoked_at IS NULL) AS active, count(*) FILTER (WHERE revoked_at IS NOT NULL) AS revoked, count(DISTINCT wallet) AS wallets FROM api_keys`,
  );
  const depositRows = await db.rows(`SELECT status, count(*) AS n, coalesce(sum(lamports), 0) AS lamports FROM deposits GROUP BY status`);
  const dep = (status: string) => {
    const row = depositRows.find((r) => r.status === status);
    return { count: num(row?.n), lamports: big(row?.lamports).toString() };
  };
  const dust = await one(`SELECT count(*) AS n, coalesce(sum(transfers), 0) AS transfers, coalesce(sum(lamports), 0) AS lamports FROM dust_totals`);
  const pending = await one(`SELECT count(*) AS n, coalesce(sum(credit_lamports), 0) AS lamports FROM pending_claims`);
  const credit = await one(
    `SELECT count(*) AS n, coalesce(sum(credit_lamports), 0) AS lamports, coalesce(sum(free_calls), 0) AS free, coalesce(sum(calls_made), 0) AS calls FROM ${accounts} a`,
  );
  const credited = big(depositRows.find((r) => r.status === 'credited')?.lamports);

  const hasUsage = await db.hasTable('usage_events');
  const hasX402 = await db.hasTable('x402_payments');
  const revenueByDay = hasUsage ? await byDay(db, hasX402) : null;
  const callsByCapability = hasUsage ? await byCapability(db, hasX402) : null;

  const x402 = hasX402
    ? {
        settled: (await db.rows(`SELECT asset, count(*) AS payments, coalesce(sum(amount), 0) AS amount FROM x402_payments WHERE status = 'settled' GROUP BY asset ORDER BY asset`)).map((r) => ({
          asset: String(r.asset),
          payments: num(r.payments),
          amount: big(r.amount).toString(),
        })),
        failed: num((await one(`SELECT count(*) AS n FROM x402_payments WHERE status = 'failed'`)).n),
        recent: (
          await db.rows(
            `SELECT created_at, payer, asset, amount, capability, face, status, signature
             FROM x402_payments WHERE status != 'held' ORDER BY created_at DESC LIMIT 10`,
          )
        ).map((r) => ({
          time: Math.floor(num(r.created_at) / 1000),
          payer: String(r.payer),
          asset: String(r.asset),
          amount: num(r.amount),
          capability: String(r.capability),
          face: String(r.face),
          status: String(r.status),
          transaction: r.signature === null ? null : String(r.signature),
        })),
      }
    : null;

  const top = await db.rows(
    `SELECT a.wallet, a.calls_made AS calls, a.credit_lamports AS credit, a.free_calls AS free,
            coalesce((SELECT sum(d.lamports) FROM deposits d WHERE d.wallet = a.wallet AND d.status = 'credited'), 0) AS deposited
     FROM ${accounts} a ORDER BY a.calls_made DESC, a.wallet LIMIT 10`,
  );

  const counts = [keys.active, keys.revoked, depositRows.length, dust.n, pending.n, credit.n, x402 ? x402.settled.length + x402.failed : 0];
  return {
    database: db.name,
    empty: counts.every((n) => num(n) === 0),
    keys: { active: num(keys.active), revoked: num(keys.revoked), wallets: num(keys.wallets) },
    deposits: { credited: dep('credited') },
    dust: { wallets: num(dust.n), transfers: num(dust.transfers), lamports: big(dust.lamports).toString() },
    pendingClaims: { wallets: num(pending.n), lamports: big(pending.lamports).toString() },
    creditOutstanding: { lamports: big(credit.lamports).toString(), freeCalls: num(credit.free) },
    revenueLamports: (credited - big(pending.lamports) - big(credit.lamports)).toString(),
    revenueByDay,
    callsByCapability,
    paidCallsMade: num(credit.calls),
    x402,
    topWallets: top.map((w) => ({
      wallet: String(w.wallet),
      callsMade: num(w.calls),
      creditLamports: big(w.credit).toString(),
      freeCalls: num(w.free),
      depositedLamports: big(w.deposited).toString(),
    })),
  };
}

/** x402 revenue beside the SOL credit: per asset paid in, in its atomic units. */
function x402Lines(x: Stats['x402']): string[] {
  if (!x || (x.settled.length === 0 && x.failed === 0)) return ['x402 revenue    none (no payment settled)'];
  return [
    ...x.settled.map((a) => `x402 revenue    ${a.amount} atomic units of ${a.asset} over ${counted(a.payments, 'paid call')}`),
    ...(x.failed ? [`x402 failed     ${counted(x.failed, 'payment')} did not settle (their answers were withheld)`] : []),
    ...x.recent.map((c) => `  ${new Date(c.time * 1000).toISOString().slice(0, 19)}  ${c.payer}  ${c.amount} of ${c.asset.slice(0, 8)}…  ${c.capability} (${c.face})  ${c.status}  ${c.transaction ?? ''}`),
  ];
}

const sol = (lamports: string) => `${(Number(lamports) / 1e9).toFixed(4)} SOL`;

/** A section's lines; undefined where the database keeps no per-call record. */
const listed = (lines: string[] | undefined) => (lines === undefined ? ['  (this database keeps no per-call record)'] : lines.length ? lines : ['  (none yet)']);

export function statsText(s: Stats): string {
  const lines = [
    `database        ${s.database}${s.empty ? ' (empty: no keys, deposits, accounts or x402 payments yet)' : ''}`,
    `keys            ${s.keys.active} active, ${s.keys.revoked} revoked, of ${counted(s.keys.wallets, 'wallet')}`,
    `deposits        ${s.deposits.credited.count} credited (${s.deposits.credited.lamports} lamports, ${sol(s.deposits.credited.lamports)})`,
    `dust            ${counted(s.dust.transfers, 'transfer')} below the minimum from ${counted(s.dust.wallets, 'wallet')}, ${s.dust.lamports} lamports not yet credited`,
    `pending claims  ${counted(s.pendingClaims.wallets, 'wallet')}, ${s.pendingClaims.lamports} lamports`,
    `outstanding     ${s.creditOutstanding.lamports} lamports of credit (${sol(s.creditOutstanding.lamports)}), ${counted(s.creditOutstanding.freeCalls, 'free call')}`,
    `revenue         ${s.revenueLamports} lamports (${sol(s.revenueLamports)}) over ${counted(s.paidCallsMade, 'paid call')}`,
    ...x402Lines(s.x402),
    '',
    'revenue by day (UTC)',
    ...listed(
      s.revenueByDay?.map(
        (d) =>
          `  ${d.day}  ${d.lamports.padStart(16)} lamports  ${String(d.calls).padStart(8)} calls` +
          d.x402.map((x) => `  x402: ${x.amount} of ${x.asset.slice(0, 8)}… over ${counted(x.calls, 'call')}`).join(''),
      ),
    ),
    '',
    'calls by capability (by key, by x402)',
    ...listed(s.callsByCapability?.map((c) => `  ${c.capability.padEnd(24)} ${String(c.calls).padStart(8)} ${String(c.x402Calls).padStart(8)}`)),
    '',
    'top wallets by calls',
    ...listed(s.topWallets.map((w) => `  ${w.wallet.padEnd(44)} ${String(w.callsMade).padStart(8)} calls  ${w.creditLamports.padStart(14)} lamports left  ${w.depositedLamports.padStart(14)} deposited`)),
  ];
  return lines.join('\n') + '\n';
}

export interface KeyRow {
  /** The first 12 hex digits of the key's SHA-256, as the access log shows it. */
  keyId: string;
  wallet: string;
  createdAt: string;
  revokedAt: string | null;
  /** Who revoked it: `claim` (a newer claim of the wallet) or `operator`; null when live or not recorded. */
  revokedBy: 'claim' | 'operator' | null;
  /** The wallet's credit, exact (it belongs to the wallet: every key of it shows the same). */
  creditLamports: string;
  /** The wallet's free calls left. */
  freeCalls: number;
}

const iso = (ms: unknown) => new Date(num(ms)).toISOString();

export async function listKeys(db: OperatorDb): Promise<KeyRow[]> {
  const by = (await db.hasColumn('api_keys', 'revoked_by')) ? 'revoked_by' : 'NULL';
  const accounts = await accountsOf(db);
  const rows = await db.rows(
    `SELECT substr(k.key_hash, 1, 12) AS key_id, k.wallet, k.created_at, k.revoked_at, ${by === 'NULL' ? 'NULL' : 'k.revoked_by'} AS revoked_by,
            coalesce(a.credit_lamports, 0) AS credit, coalesce(a.free_calls, 0) AS free
     FROM api_keys k LEFT JOIN ${accounts} a ON a.wallet = k.wallet ORDER BY k.created_at, k.key_hash`,
  );
  return rows.map((k) => ({
    keyId: String(k.key_id),
    wallet: String(k.wallet),
    createdAt: iso(k.created_at),
    revokedAt: k.revoked_at === null ? null : iso(k.revoked_at),
    revokedBy: k.revoked_by === 'claim' || k.revoked_by === 'operator' ? k.revoked_by : null,
    creditLamports: big(k.credit).toString(),
    freeCalls: num(k.free),
  }));
}

export function keysText(database: string, keys: KeyRow[]): string {
  if (!keys.length) return `no keys in ${database}\n`;
  const by = { claim: ' by a newer claim', operator: ' by the operator' } as const;
  const rows = keys.map(
    (k) =>
      `${k.keyId}  ${k.wallet.padEnd(44)}  ${k.createdAt}  ${k.creditLamports.padStart(14)} lamports  ${String(k.freeCalls).padStart(10)}  ` +
      (k.revokedAt ? `revoked ${k.revokedAt}${k.revokedBy ? by[k.revokedBy] : ''}` : 'active'),
  );
  const header = `${'key id'.padEnd(12)}  ${'wallet'.padEnd(44)}  ${'created'.padEnd(24)}  ${'credit'.padStart(23)}  free calls  state`;
  return [`database ${database}: ${counted(keys.length, 'key')}`, header, ...rows].join('\n') + '\n';
}

/**
 * Revokes the wallet's live keys, saying the operator did (the refused key's holder is told so);
 * how many. A database an older gateway last migrated has no revoked_by yet: there the keys are
 * revoked without it, and a refused key's holder is told it was revoked, not by whom.
 */
export async function revokeKeys(db: OperatorDb, wallet: string, now: number): Promise<number> {
  const by = (await db.hasColumn('api_keys', 'revoked_by')) ? `, revoked_by = 'operator'` : '';
  return (await db.rows(`UPDATE api_keys SET revoked_at = $1${by} WHERE wallet = $2 AND revoked_at IS NULL RETURNING key_hash`, [now, wallet])).length;
}
