// `gateway watches [list | failing | wallet <wallet>] [--json]`: the operator's view of watches, read
// from the database the server uses (src/cli/database.ts). A webhook is shown by its host only: a
// receiver's URL may carry a token of its own.
import type { OperatorDb } from '../cli/database.ts';

export type WatchFilter = { kind: 'all' } | { kind: 'failing'; failingAfterMs: number; now: number } | { kind: 'wallet'; wallet: string };

export interface WatchLine {
  id: string;
  wallet: string;
  network: string;
  wallets: number;
  status: string;
  webhookHost: string | null;
  pending: number;
  attempts: number;
  lastError: string | null;
  failingSince: string | null;
  createdAt: string;
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export async function listWatches(db: OperatorDb, filter: WatchFilter, failingAfterMs: number, now = Date.now()): Promise<WatchLine[]> {
  if (!(await db.hasTable('watches'))) return [];
  const where = filter.kind === 'wallet' ? 'WHERE w.wallet = $1' : filter.kind === 'failing' ? `WHERE w.status = 'active' AND w.first_failure_at IS NOT NULL AND w.first_failure_at <= $1` : '';
  const params = filter.kind === 'wallet' ? [filter.wallet] : filter.kind === 'failing' ? [filter.now - filter.failingAfterMs] : [];
  const rows = await db.rows(
    `SELECT w.id, w.wallet, w.network, w.wallets, w.status, w.webhook_url, w.delivered_seq, w.attempts, w.last_error, w.first_failure_at, w.created_at,
       COALESCE((SELECT MAX(e.seq) FROM watch_events e WHERE e.watch_id = w.id), 0) AS last_seq
     FROM watches w ${where} ORDER BY w.created_at, w.id`,
    params,
  );
  return rows.map((r) => {
    const failing = r.status === 'active' && r.first_failure_at !== null && now - Number(r.first_failure_at) >= failingAfterMs;
    return {
      id: String(r.id),
      wallet: String(r.wallet),
      network: String(r.network),
      wallets: (JSON.parse(String(r.wallets)) as string[]).length,
      status: failing ? 'failing' : String(r.status),
      webhookHost: r.webhook_url ? new URL(String(r.webhook_url)).host : null,
      pending: r.webhook_url ? Math.max(0, Number(r.last_seq) - Number(r.delivered_seq)) : 0,
      attempts: Number(r.attempts),
      lastError: r.last_error === null ? null : String(r.last_error),
      failingSince: iso(r.first_failure_at),
      createdAt: iso(r.created_at)!,
    };
  });
}

export function watchesText(database: string, watches: WatchLine[]): string {
  if (!watches.length) return `no watches in ${database}\n`;
  const rows = watches.map(
    (w) =>
      `${w.id}  ${w.wallet.padEnd(44)}  ${w.network.padEnd(12)}  ${String(w.wallets).padStart(5)} wallet(s)  ${w.status.padEnd(16)}  ${w.webhookHost ? `${w.webhookHost} pending ${w.pending}` : 'pull only'}${w.lastError ? `  last error: ${w.lastError}` : ''}`,
  );
  return [`database ${database}: ${watches.length} watch(es)`, ...rows].join('\n') + '\n';
}
