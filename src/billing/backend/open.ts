// The one place the database is chosen: DATABASE_URL opens PostgreSQL (shared by replicas), else the
// SQLite file. What it hands on is guarded by the outage rules (outage.ts): every store method, the
// usage pages and the shared rate limiter turn a storage fault into StorageUnavailable, counted and
// logged as one episode; no caller holds an unguarded part, and none asks which database it is.
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { RateLimiter } from '../rate-limit.ts';
import type { UsageCursor } from '../usage-pages.ts';
import type { Backend, OpenedBackend } from './backend.ts';

export type { Backend };
import { guard, guardAll, guardLimiter, StorageOutage } from './outage.ts';
import { openSqlite } from './sqlite/open.ts';

/** Resolves once the database is open and migrated; rejects (closing what it opened) when it cannot be. */
export async function openBackend(config: Config, log: Logger): Promise<Backend> {
  // Postgres code loads only when asked for: the embedded default starts as it always did.
  const opened: OpenedBackend = config.databaseUrl ? (await import('./postgres/open.ts')).openPostgresBackend(config.databaseUrl, config, log) : openSqlite(config, log);
  try {
    await opened.ready;
  } catch (e) {
    await opened.close().catch(() => {});
    throw e;
  }
  const health = new StorageOutage(opened.store.backend, log, opened.probe);
  health.onChange = opened.onAvailability;
  const local = new RateLimiter(config.rateLimitRps, config.rateLimitBurst);
  const { usage } = opened;
  return {
    // Recording queues and settling waits: neither asks the database on the caller's path; a page reads it.
    store: guardAll(opened.store, health),
    usage: {
      record: (debit, call) => usage.record(debit, call),
      page: guard(health, (wallet: string, limit: number, cursor?: UsageCursor) => usage.page(wallet, limit, cursor)),
      settled: (withinMs) => usage.settled(withinMs),
    },
    limiter: opened.limiter ? guardLimiter(opened.limiter, local, health) : local,
    health,
    storeOf: (store) => guardAll(opened.storeOf(store), health),
    close: () => opened.close(),
  };
}
