// The seam between ingestion (issue 40's ingester: WebSocket subscriptions + gap fill) and watches
// (storage, billing, delivery). The ingester asks WatchedSet which wallets to follow and hands each
// transaction it finds for a watched wallet to WatchSink.recordActivity; everything after that
// (one event per watch, its debit, waking pullers, webhooks and MCP subscribers) is the sink's.
import type { Network } from '../config.ts';

/** Commitment an event was seen at. */
export type Commitment = 'confirmed' | 'finalized';

/** One transaction seen for one watched wallet, as the ingester found and decoded it. */
export interface Activity {
  signature: string;
  slot: number;
  /** Unix seconds; null when the node has none. */
  blockTime: number | null;
  commitment: Commitment;
  /**
   * Exactly the entry `transactions?decode=true` answers for this transaction and this wallet
   * (signatureEntry(info) merged with the decoded fields, foundVia included).
   */
  item: Record<string, unknown>;
}

/** Which wallets some active watch follows, per network; the ingester subscribes to these. */
export interface WatchedSet {
  /** The wallets watched now on this network (each once, whatever the number of watches). */
  wallets(network: Network): string[];
  /** Called whenever the set may have changed (a watch created, ended, paused or resumed); returns an unsubscribe. */
  onChange(cb: (network: Network) => void): () => void;
}

export interface WatchSink {
  /**
   * Records one transaction for a wallet: one event per active watch of that wallet on that network,
   * each written (idempotently: same transaction + watch + wallet = same event id, a second call is a
   * no-op) and debited before it is announced. Resolves once written; throws when storage is away
   * (the ingester keeps its cursor and tries again later, so nothing is lost).
   */
  recordActivity(network: Network, wallet: string, activity: Activity): Promise<void>;
}
