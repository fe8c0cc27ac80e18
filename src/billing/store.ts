// Where billing keeps its state, as billing's callers see it: keys, the ledger, challenges, claims,
// deposits and the watcher's cursor and leadership. Two implementations: SQLite for the embedded
// single binary (sqlite-store.ts, the default) and PostgreSQL for several replicas on one database
// (pg-store.ts, chosen by DATABASE_URL). Async because Postgres is over the network.
import type { Network } from '../config.ts';
import type { DepositOutcome, DepositRecord, DepositStatus } from './deposits.ts';
import type { KeyOwner, Revocation } from './keys.ts';
import type { AccountView, Balance, Debit, Refund } from './ledger.ts';

export interface ClaimedKey extends Balance {
  apiKey: string;
}

interface SignaturePoint {
  signature: string;
  slot: number;
}

/** The watcher's place in the address's history: the newest signature done, and a walk back to it in progress. */
export interface WatcherCursor {
  last?: SignaturePoint;
  walk?: { head: SignaturePoint; before?: string };
}

/** An x402 payment as recorded before its call runs (schema.ts x402Payments). */
export interface HeldPayment {
  txKey: string;
  network: string;
  payer: string;
  asset: string;
  amount: number;
  payTo: string;
  capability: string;
  face: 'rest' | 'mcp';
  /** The call it pays for: after a write whose outcome is unknown, tells this call's record from a replay's. */
  callId: string;
}

/** How a held payment ended. */
export type PaymentEnd = { status: 'settled'; signature: string } | { status: 'failed'; reason: string; signature?: string };

export interface BillingStore {
  readonly backend: 'sqlite' | 'postgres';
  /** Resolves once the database is reachable and migrated; rejects when it is not. */
  readonly ready: Promise<void>;
  /** Who holds this live (unrevoked) key; null for a revoked, unknown or malformed one. At once when the store knows without asking the database. */
  identify(apiKey: string | undefined): KeyOwner | null | Promise<KeyOwner | null>;
  /** A key with this hash as issued: live (`revokedAt` null) or revoked, when and by whom; null when never issued. Says why a key was refused. */
  keyStatus(keyHash: string): Promise<{ revokedAt: number | null; revokedBy: Revocation['revokedBy'] } | null>;
  /**
   * Takes one free call, or else `price` lamports, for the call `callId`; null when the account
   * cannot pay. Resolves once durable, and with what really happened even when the connection
   * was lost around COMMIT; rejects with UnsettledWrite (pg-ledger.ts) when that cannot be learned
   * in time. A call id is never debited twice. `keyHash`: the key the call came with; a store that
   * remembers keys (key-cache.ts) checks it live in the debit's own transaction, else rejects with KeyGone.
   */
  debit(wallet: string, priceLamports: number, callId: string, keyHash?: string): Promise<Debit | null>;
  /** Gives back what the call `debit.callId` was debited, once however often asked. Resolves once durable. */
  refund(debit: Debit): Promise<Refund>;
  /** The account's committed state; at once when the store holds it in memory. */
  account(wallet: string): AccountView | null | Promise<AccountView | null>;
  /** A newer challenge for a wallet supersedes only the same requester's (client address) older ones. */
  issueChallenge(ttlSeconds: number, requester: string, wallet: string | undefined, now: number): Promise<{ challenge: string; expiresAt: number }>;
  /** Uses the challenge up whatever happens next; true when it was live and bound to this wallet or to none. */
  consumeChallenge(challenge: string, wallet: string, now: number): Promise<boolean>;
  /** Atomically: takes the wallet's pending claim, revokes its keys, issues a new one, credits the account. Null when nothing is pending. */
  claim(wallet: string, freeCallsOnOpen: number, now: number): Promise<ClaimedKey | null>;
  /** deposits.ts recordDeposit: once per (signature, sender); below the minimum, the watcher's dust total. */
  recordDeposit(d: DepositRecord, minDepositLamports: bigint, now?: number): Promise<DepositOutcome>;
  /** What the claim page may know about a wallet's deposits (never an amount). */
  depositStatus(wallet: string): Promise<DepositStatus>;
  watcherCursor(network: Network, address: string): Promise<WatcherCursor>;
  saveWatcherCursor(network: Network, address: string, cursor: WatcherCursor): Promise<void>;
  /** Records one chunk of the watcher's deposits and saves its cursor, in one transaction. */
  recordWatcherChunk(network: Network, address: string, deposits: DepositRecord[], minDepositLamports: bigint, cursor: WatcherCursor): Promise<DepositOutcome[]>;
  /** True while this process is the one deposit watcher for the address (always, on SQLite). */
  leadWatcher(network: Network, address: string): Promise<boolean>;
  /**
   * x402: records a verified payment, committed before it resolves; false when its transaction was
   * recorded before for another call (a replay). A lost answer is settled by reading the record back.
   */
  holdPayment(p: HeldPayment, now: number): Promise<boolean>;
  /** x402: forgets the payment held for call `callId` whose call failed: it was never submitted, so it may pay for another call. */
  releasePayment(txKey: string, callId: string): Promise<void>;
  finishPayment(txKey: string, end: PaymentEnd, now: number): Promise<void>;
  /** Throws when the database cannot answer (health check). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

type CursorRow = { lastSignature: string; lastSlot: number | null; walkHead: string | null; walkHeadSlot: number | null; walkBefore: string | null };

/** A stored cursor row (either dialect) as the watcher uses it. */
export function cursorOf(row: CursorRow | undefined): WatcherCursor {
  if (!row) return {};
  return {
    last: row.lastSignature ? { signature: row.lastSignature, slot: row.lastSlot ?? 0 } : undefined,
    walk: row.walkHead ? { head: { signature: row.walkHead, slot: row.walkHeadSlot ?? 0 }, before: row.walkBefore ?? undefined } : undefined,
  };
}

/** The watcher's cursor as the columns both dialects store it (the inverse of cursorOf), stamped now. */
export function cursorRow(c: WatcherCursor): CursorRow & { updatedAt: number } {
  return {
    lastSignature: c.last?.signature ?? '',
    lastSlot: c.last?.slot ?? null,
    walkHead: c.walk?.head.signature ?? null,
    walkHeadSlot: c.walk?.head.slot ?? null,
    walkBefore: c.walk?.before ?? null,
    updatedAt: Date.now(),
  };
}
