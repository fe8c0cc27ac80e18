// Builds the watch feature from the gateway's parts: its store on the same database as billing,
// the sealing key, the resolver, the bus between replicas, the watches, the webhook sender and the
// ingester that feeds them (src/watch/ingest).
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { BillingStore } from '../billing/store.ts';
import type { Rpc } from '../chain/upstream.ts';
import type { Config, Network } from '../config.ts';
import type { Logger } from '../log.ts';
import { sharing, watchStore, type StoreOf } from './database.ts';
import { Deliverer } from './deliverer.ts';
import { ingestStore, startIngestion } from './ingest/index.ts';
import { resolver } from './resolve.ts';
import { lazySecretBox, loadSealingKey } from './secrets.ts';
import { Watches } from './watches.ts';

export interface Watching {
  watches: Watches;
  deliverer: Deliverer;
  close(): Promise<void>;
}

/** `storeOf` is the billing seam's: every store call passes a storage fault through the outage (a clear 500 with Retry-After, the episode told), as billing's store does. */
export async function createWatching(o: { config: Config; log: Logger; billing: BillingStore; storeOf: StoreOf; rpc: (network: Network) => Rpc }): Promise<Watching> {
  const { config, log } = o;
  const store = o.storeOf(watchStore);
  const shared = o.storeOf(sharing);
  const keyFile = config.webhookKeyFile ?? join(dirname(resolvePath(config.databasePath === ':memory:' ? './data/x' : config.databasePath)), 'webhook-secrets.key');
  const box = lazySecretBox(() => loadSealingKey(config.webhookSecretKey, keyFile));
  const resolve = resolver(config.webhookDnsServers);
  const bus = await shared.bus(log);
  if (config.webhookAllowPrivate) log.warn('WEBHOOK_ALLOW_PRIVATE is on: watch webhooks may use plain http and private or loopback addresses (tests and the sandbox only)');
  const watches = new Watches({ store, billing: o.billing, config, log, box, resolve, bus });
  const deliverer = new Deliverer({ store, config, log, box, resolve });
  bus.subscribe((m) => m.kind === 'events' && deliverer.wake(m.watchId));
  await watches.start();
  await deliverer.start(shared.soleWriter);
  const ingestion = startIngestion({ config, log, rpc: o.rpc, store: o.storeOf(ingestStore), watched: watches, sink: watches });
  return {
    watches,
    deliverer,
    async close() {
      // The ingester first: nothing is recorded into watches that are stopping.
      await ingestion.stop();
      await deliverer.stop();
      await watches.stop();
    },
  };
}
