// What watches ask of the gateway's database, brought to the billing seam's storeOf (services.ts
// hands it in): the seam picks the dialect and guards every call by the storage outage rules, so
// no watch module opens a connection, holds an unguarded one or asks which database it is.
import type { Db } from '../db/client.ts';
import type { PgDb } from '../db/pg-client.ts';
import type { Logger } from '../log.ts';
import { localBus, pgBus, type Bus } from './bus.ts';
import { pgWatchStore, sqliteWatchStore, type WatchStore } from './store.ts';

/** A store written for both databases, opened on the one in use (the seam's `storeOf`). */
export type StoreOf = <T extends object>(store: { sqlite(db: Db): T; postgres(db: PgDb): T }) => T;

export const watchStore = {
  sqlite: (db: Db): WatchStore => sqliteWatchStore(db.$client),
  postgres: (db: PgDb): WatchStore => pgWatchStore(db.$client),
};

/** How this process shares the database: alone on a SQLite file, or beside other replicas on PostgreSQL. */
export interface Sharing {
  /** No other process writes (a SQLite file): leases left by an earlier run are stale at start. */
  soleWriter: boolean;
  /** Tells every replica of new events and changed watches: LISTEN/NOTIFY on the same PostgreSQL pool, or a local call. */
  bus(log: Logger): Promise<Bus>;
}

export const sharing = {
  sqlite: (): Sharing => ({ soleWriter: true, bus: async () => localBus() }),
  postgres: (db: PgDb): Sharing => ({ soleWriter: false, bus: (log) => pgBus(db.$client, log) }),
};
