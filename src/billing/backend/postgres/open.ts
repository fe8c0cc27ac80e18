// Several gateways on one PostgreSQL database (DATABASE_URL): the store and ledger, each replica's
// usage rows, and rate-limit buckets shared by every replica.
import type { Config } from '../../../config.ts';
import { migratePostgres, openPostgres } from '../../../db/pg-client.ts';
import type { Logger } from '../../../log.ts';
import type { OpenedBackend } from '../backend.ts';
import { PgLedger } from './ledger.ts';
import { PgRateLimiter } from './rate-limit.ts';
import { pgStore } from './store.ts';
import { PgUsageLog } from './usage.ts';

const MAX_CONNECTIONS = 20;

export function openPostgresBackend(url: string, config: Config, log: Logger): OpenedBackend {
  const db = openPostgres(url, MAX_CONNECTIONS);
  const ledger = new PgLedger(db.$client, config.rateLimitRps > 0 ? { rate: config.rateLimitRps, burst: config.rateLimitBurst } : undefined);
  ledger.sweepExpiredHolds();
  const { store, release } = pgStore(db, ledger);
  const limiter = config.rateLimitRps > 0 ? new PgRateLimiter(db.$client, config.rateLimitRps, config.rateLimitBurst) : undefined;
  return {
    store,
    usage: new PgUsageLog(db, config.usageRetentionDays, log, config.usageQueueRows, ledger),
    limiter,
    ready: migratePostgres(url),
    // The store's ping asks on a session of its own, so a restart between two probes is seen.
    probe: () => store.ping(),
    storeOf: (other) => other.postgres(db),
    async close() {
      limiter?.close();
      // Its holds go back to their accounts while the pool is still open.
      await ledger.close();
      await release();
      await db.$client.close();
    },
  };
}
