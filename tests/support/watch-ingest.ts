// Watch ingestion on its own, for its tests and the bench: the real ingester (src/watch/ingest) on a
// real database (SQLite file or PostgreSQL) reading the sandbox chain's JSON-RPC and WebSocket API,
// reporting to a recording sink. The sink stands in for the watches (src/watch, built on another
// branch): it keeps what it is handed and says which wallets are watched, and, like the real one,
// records one transaction for one wallet once, however often it is handed over.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Upstream } from '../../src/chain/upstream.ts';
import { defaultConfig, type Config, type Network } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { migratePostgres, openPostgres } from '../../src/db/pg-client.ts';
import { silentLogger, type Logger } from '../../src/log.ts';
import { startIngestion, sqliteIngestStore, pgIngestStore, type Ingestion, type WatchedAt } from '../../src/watch/ingest/index.ts';
import type { Activity, Commitment, WatchSink } from '../../src/watch/sink.ts';
import { within } from './poll.ts';

export interface Recorded extends Activity {
  network: Network;
  wallet: string;
  /** performance.now() when the sink was handed it. */
  at: number;
}

export class RecordingSink implements WatchSink, WatchedAt {
  /** Each (network, commitment, wallet, signature) once, in the order handed over. */
  readonly records: Recorded[] = [];
  /** Every call, repeats included. */
  calls = 0;
  private readonly seen = new Set<string>();
  private readonly watched = new Map<Commitment, Set<string>>([
    ['confirmed', new Set()],
    ['finalized', new Set()],
  ]);
  private readonly listeners = new Set<(n: Network) => void>();
  /** Set to make recordActivity throw (storage away). */
  failing = false;
  /** Told of each record as it is kept (the bench's clock). */
  onRecord?: (r: Recorded) => void;

  constructor(readonly network: Network = 'mainnet-beta') {}

  watch(wallets: string[], commitment: Commitment = 'confirmed'): void {
    for (const w of wallets) this.watched.get(commitment)!.add(w);
    for (const l of this.listeners) l(this.network);
  }

  unwatch(wallets: string[], commitment: Commitment = 'confirmed'): void {
    for (const w of wallets) this.watched.get(commitment)!.delete(w);
    for (const l of this.listeners) l(this.network);
  }

  wallets(network: Network): string[] {
    return network === this.network ? [...this.watched.get('confirmed')!] : [];
  }

  walletsAt(network: Network, commitment: Commitment): string[] {
    return network === this.network ? [...this.watched.get(commitment)!] : [];
  }

  onChange(cb: (network: Network) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  async recordActivity(network: Network, wallet: string, activity: Activity): Promise<void> {
    this.calls++;
    if (this.failing) throw new Error('storage unavailable');
    const key = `${network} ${activity.commitment} ${wallet} ${activity.signature}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const r = { network, wallet, ...activity, at: performance.now() };
    this.records.push(r);
    this.onRecord?.(r);
  }

  of(wallet: string, commitment: Commitment = 'confirmed'): Recorded[] {
    return this.records.filter((r) => r.wallet === wallet && r.commitment === commitment);
  }
}

export interface TestIngestion {
  sink: RecordingSink;
  ingestion: Ingestion;
  config: Config;
  /** Resolves once every watched wallet is followed, subscribed and has its cursor, and no fill is running. */
  settled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface IngestionSetup {
  rpcUrl: string;
  /** A PostgreSQL URL; else a fresh SQLite file (or `sqlitePath`, to start again on the same one). */
  databaseUrl?: string;
  sqlitePath?: string;
  sink?: RecordingSink;
  settings?: Partial<Config>;
  leaseMs?: number;
  log?: Logger;
  /** Subscriptions open on the sandbox's WebSocket server (settled() waits for them). */
  subscriptionsOpen?: () => number;
}

export async function startTestIngestion(setup: IngestionSetup): Promise<TestIngestion> {
  const config: Config = { ...defaultConfig(), mainnetRpcUrls: [setup.rpcUrl], devnetRpcUrls: [setup.rpcUrl], rpcTimeoutMs: 4000, rpcRetries: 0, ...setup.settings };
  const log = setup.log ?? silentLogger;
  const sink = setup.sink ?? new RecordingSink();
  let close: () => Promise<void>;
  let store;
  let dir: string | undefined;
  if (setup.databaseUrl) {
    await migratePostgres(setup.databaseUrl);
    const db = openPostgres(setup.databaseUrl, 4);
    store = pgIngestStore(db.$client);
    close = () => db.$client.close();
  } else {
    if (!setup.sqlitePath) dir = mkdtempSync(join(tmpdir(), 'cig-ingest-'));
    const db = openDatabase(setup.sqlitePath ?? join(dir!, 'gateway.sqlite'));
    store = sqliteIngestStore(db.$client);
    close = async () => db.$client.close();
  }
  const upstream = new Upstream({ label: 'sandbox', urls: [setup.rpcUrl], timeoutMs: config.rpcTimeoutMs, retries: 0, log });
  const ingestion = startIngestion({ config, log, rpc: () => upstream, store, watched: sink, sink, leaseMs: setup.leaseMs });
  return {
    sink,
    ingestion,
    config,
    async settled(timeoutMs = 10_000) {
      const wanted = () => sink.wallets(sink.network).length + sink.walletsAt(sink.network, 'finalized').length;
      const took = await within(timeoutMs, async () => {
        const stats = ingestion.ingesters.map((i) => i.stats());
        const followed = stats.reduce((n, s) => n + s.wallets, 0);
        const addresses = stats.reduce((n, s) => n + s.addresses, 0);
        const busy = stats.some((s) => s.filling > 0 || s.queued > 0);
        return followed === wanted() && !busy && (!setup.subscriptionsOpen || setup.subscriptionsOpen() >= addresses);
      });
      if (took === null) throw new Error(`ingestion not settled within ${timeoutMs} ms: ${JSON.stringify(ingestion.ingesters.map((i) => i.stats()))}`);
      // The fills the subscriptions' acknowledgments started have run (their cursors are saved).
      await Bun.sleep(50);
      await within(timeoutMs, () => ingestion.ingesters.every((i) => i.stats().filling === 0 && i.stats().queued === 0));
    },
    async stop() {
      await ingestion.stop();
      await close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
