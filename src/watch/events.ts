// What a watch event is, as every face shows it, and its ids. Pure.
import { createHash } from 'node:crypto';
import { callIdsBefore } from '../billing/resilience/call-id.ts';
import type { Network } from '../config.ts';
import type { Activity } from './sink.ts';

export const EVENT_TYPE = 'wallet.activity';

/** A watch's events as an MCP resource (reads take `?after=<cursor>`). */
export const eventsUri = (network: string, watchId: string) => `solana://${network}/watches/${watchId}/events`;

export interface WatchEvent {
  id: string;
  type: typeof EVENT_TYPE;
  watchId: string;
  wallet: string;
  network: Network;
  signature: string;
  slot: number;
  blockTime: number | null;
  commitment: Activity['commitment'];
  item: Record<string, unknown>;
}

const tagOf = (network: Network, signature: string, watchId: string, wallet: string) =>
  createHash('sha256').update(`${network}\n${signature}\n${watchId}\n${wallet}`).digest('hex').slice(0, 32);

/** The same transaction for the same watch and wallet is always the same id. */
export const eventId = (network: Network, signature: string, watchId: string, wallet: string) => 'evt_' + tagOf(network, signature, watchId, wallet);

/**
 * The ledger call id an event is debited under (COMMON's convention: a time stamp, then 'e' and the
 * event's tag). The stamp is the block's time (the same on every retry of the same event, unlike
 * the time it is recorded), or now when the node gave none.
 */
export const eventCallId = (id: string, blockTime: number | null, now = Date.now()) => callIdsBefore(blockTime === null ? now : blockTime * 1000) + 'e' + id.slice(4);

export function buildEvent(watchId: string, network: Network, wallet: string, a: Activity): WatchEvent {
  return {
    id: eventId(network, a.signature, watchId, wallet),
    type: EVENT_TYPE,
    watchId,
    wallet,
    network,
    signature: a.signature,
    slot: a.slot,
    blockTime: a.blockTime,
    commitment: a.commitment,
    item: a.item,
  };
}
