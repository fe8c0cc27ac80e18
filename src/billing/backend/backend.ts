// What a database gives billing, as it opens (one per backend: sqlite/open.ts, postgres/open.ts),
// and what the seam (open.ts) hands on once every part is guarded by the outage rules.
import type { Db } from '../../db/client.ts';
import type { PgDb } from '../../db/pg-client.ts';
import type { Limiter } from '../rate-limit.ts';
import type { BillingStore } from '../store.ts';
import type { UsageHistory } from '../usage-history.ts';
import type { StorageOutage, StorageProbe } from './outage.ts';

/** A store of another part (watches, x402's extensions) written for both databases: the seam picks the one in use. */
export interface OnEitherDatabase<T extends object> {
  sqlite(db: Db): T;
  postgres(db: PgDb): T;
}

/** One database's parts, unguarded: only the seam holds them. */
export interface OpenedBackend {
  store: BillingStore;
  usage: UsageHistory;
  /** Rate-limit buckets the database keeps for every replica; absent: each process keeps its own. */
  limiter?: Limiter & { close(): void };
  /** Resolves once the database is reachable and migrated; rejects when it is not. */
  ready: Promise<void>;
  /** The health probe's question to the database. */
  probe: StorageProbe;
  /** Told when an outage begins (false) and ends (true). */
  onAvailability?(available: boolean): void;
  /** `store` on this database. */
  storeOf<T extends object>(store: OnEitherDatabase<T>): T;
  close(): Promise<void>;
}

/** Billing's storage as the gateway uses it: every part guarded, none to tell which database holds it. */
export interface Backend {
  /** Keys and claims, the credit ledger, deposits and x402 records (store.ts), by concern. */
  store: BillingStore;
  usage: UsageHistory;
  limiter: Limiter;
  /** The outage state and its probe: /readyz reads it, the guards feed it. */
  health: StorageOutage;
  /** Another part's store on the same database, guarded like the rest: its caller brings both dialects and never asks which. */
  storeOf<T extends object>(store: OnEitherDatabase<T>): T;
  /** Stops the shared buckets' sweeper and closes the database (SQLite commits what its ledger still holds first). */
  close(): Promise<void>;
}
