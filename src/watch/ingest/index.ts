// Watch ingestion for the whole gateway: per network, one ingester at `confirmed` for every watched
// wallet and one at `finalized` for the wallets some watch asks that of. Both report to the same sink,
// each activity carrying its commitment; a watch takes the events of its own commitment only. So a
// confirmed event whose block were then skipped (never seen on mainnet since optimistic confirmation,
// but not impossible) gets no retraction, and a watch that cannot live with that asks for finalized.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Rpc } from '../../chain/upstream.ts';
import { NETWORKS, wsUrls, type Config, type Network } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Commitment, WatchedSet, WatchSink } from '../sink.ts';
import { Ingester } from './ingester.ts';
import { pgIngestStore, sqliteIngestStore, type IngestStore } from './store.ts';
import type { Db } from '../../db/client.ts';
import type { PgDb } from '../../db/pg-client.ts';

export { sqliteIngestStore, pgIngestStore, type IngestStore } from './store.ts';

/** The cursors and leases on the gateway's database, for the billing seam's storeOf (createWatching holds it). */
export const ingestStore = {
  sqlite: (db: Db): IngestStore => sqliteIngestStore(db.$client),
  postgres: (db: PgDb): IngestStore => pgIngestStore(db.$client),
};

/** A watched set that can say which wallets a watch at `finalized` follows (without it, all are ingested at both). */
export type WatchedAt = WatchedSet & { walletsAt?(network: Network, commitment: Commitment): string[] };

export interface IngestionDeps {
  config: Config;
  log: Logger;
  rpc: (network: Network) => Rpc;
  store: IngestStore;
  watched: WatchedAt;
  sink: WatchSink;
  /** Lease length (ms); the default moves a killed replica's wallets within 10 s. */
  leaseMs?: number;
}

export interface Ingestion {
  readonly ingesters: readonly Ingester[];
  stop(): Promise<void>;
}

/** Starts ingesting; a network nobody watches opens no connection and reads nothing. */
export function startIngestion(deps: IngestionDeps): Ingestion {
  const { config, watched } = deps;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const ingesters = NETWORKS.flatMap((network) =>
    (['confirmed', 'finalized'] as const).map(
      (commitment) =>
        new Ingester({
          network,
          commitment,
          rpc: deps.rpc(network),
          wsUrls: wsUrls(config, network),
          perSocket: config.watchSubscriptionsPerSocket,
          fillEveryMs: config.watchFillSeconds * 1000,
          store: deps.store,
          wallets: () => (commitment === 'confirmed' || !watched.walletsAt ? watched.wallets(network) : watched.walletsAt(network, commitment)),
          onChange: (cb) => watched.onChange(cb),
          sink: deps.sink,
          log: deps.log,
          owner,
          leaseMs: deps.leaseMs,
        }),
    ),
  );
  return {
    ingesters,
    async stop() {
      await Promise.all(ingesters.map((i) => i.stop()));
    },
  };
}
