// Where billing keeps its state, as billing's callers see it: keys and claims, the credit ledger,
// deposits and the watcher's cursor and leadership, x402 records. Two implementations behind one
// seam (backend/open.ts): SQLite for the embedded single binary (backend/sqlite/, the default) and
// PostgreSQL for several replicas on one database (backend/postgres/, chosen by DATABASE_URL).
// Async because Postgres is over the network.
import type { Network } from '../config.ts';
import type { AccountView, Balance, Debit, DebitRef, Refund } from './credit.ts';
import type { DepositOutcome, DepositRecord, DepositStatus } from './deposits.ts';
import type { KeyOwner, Revocation } from './keys.ts';
import type { RateDecision } from './rate-limit.ts';

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

/** API keys, claim challenges and claims: who holds a key, and how a wallet gets one. */
export interface KeyStore {
  /** Who holds this live (unrevoked) key; null for a revoked, unknown or malformed one. At once when the store knows without asking the database. */
  identify(apiKey: string | undefined): KeyOwner | null | Promise<KeyOwner | null>;
  /** A key with this hash as issued: live (`revokedAt` null) or revoked, when and by whom; null when never issued. Says why a key was refused. */
  keyStatus(keyHash: string): Promise<{ revokedAt: number | null; revokedBy: Revocation['revokedBy'] } | null>;
  /** A newer challenge for a wallet supersedes only the same requester's (client address) older ones. */
  issueChallenge(ttlSeconds: number, requester: string, wallet: string | undefined, now: number): Promise<{ challenge: string; expiresAt: number }>;
  /** Uses the challenge up whatever happens next; true when it was live and bound to this wallet or to none. */
  consumeChallenge(challenge: string, wallet: string, now: number): Promise<boolean>;
  /** Atomically: takes the wallet's pending claim, revokes its keys, issues a new one, credits the account. Null when nothing is pending. */
  claim(wallet: string, freeCallsOnOpen: number, now: number): Promise<ClaimedKey | null>;
}

/** The credit ledger: one debit per paid call, its refund by the call's id, the account as committed. */
export interface CreditLedger {
  /**
   * Takes one free call, or else `price` lamports, for the call `callId`; null when the account
   * cannot pay. Resolves once durable, and with what really happened even when the connection
   * was lost around COMMIT; rejects with UnsettledWrite (resilience/unsettled.ts) when that cannot
   * be learned in time. A call id is never debited twice. `keyHash`: the key the call came with; a
   * store that remembers keys (backend/postgres/key-cache.ts) checks it live in the debit's own
   * transaction, else rejects with KeyGone.
   */
  debit(wallet: string, priceLamports: number, callId: string, keyHash?: string): Promise<Debit | null>;
  /**
   * debit() with one token drawn first from the rate-limit bucket `bucket`, in the same transaction:
   * present where the buckets are shared in the database (one commit for both). Refused by the
   * limit, nothing is taken. `taken()` is the debit (null without credit; throws KeyGone).
   */
  debitDrawing?(wallet: string, priceLamports: number, callId: string, keyHash: string, bucket: string): Promise<{ decision: RateDecision; taken(): Debit | null }>;
  /** Gives back what the call `call.callId` was debited (read from its record), once however often asked. Resolves once durable. */
  refund(call: DebitRef): Promise<Refund>;
  /** The account's committed state; at once when the store holds it in memory. */
  account(wallet: string): AccountView | null | Promise<AccountView | null>;
}

/** Deposits as both detection paths record them, and the watcher's cursor and leadership. */
export interface DepositStore {
  /** Once per (signature, sender); below the minimum, the watcher's dust total. */
  recordDeposit(d: DepositRecord, minDepositLamports: bigint, now?: number): Promise<DepositOutcome>;
  /** What the claim page may know about a wallet's deposits (never an amount). */
  depositStatus(wallet: string): Promise<DepositStatus>;
  watcherCursor(network: Network, address: string): Promise<WatcherCursor>;
  saveWatcherCursor(network: Network, address: string, cursor: WatcherCursor): Promise<void>;
  /** Records one chunk of the watcher's deposits and saves its cursor, in one transaction. */
  recordWatcherChunk(network: Network, address: string, deposits: DepositRecord[], minDepositLamports: bigint, cursor: WatcherCursor): Promise<DepositOutcome[]>;
  /** True while this process is the one deposit watcher for the address (always, on SQLite). */
  leadWatcher(network: Network, address: string): Promise<boolean>;
}

/** x402 payments, recorded before their call runs and settled after it. */
export interface X402Records {
  /**
   * Records a verified payment, committed before it resolves; false when its transaction was
   * recorded before for another call (a replay). A lost answer is settled by reading the record back.
   */
  holdPayment(p: HeldPayment, now: number): Promise<boolean>;
  /** Forgets the payment held for call `callId` whose call failed: it was never submitted, so it may pay for another call. */
  releasePayment(txKey: string, callId: string): Promise<void>;
  finishPayment(txKey: string, end: PaymentEnd, now: number): Promise<void>;
}

/**
 * Everything billing keeps, one part per concern; each user takes the part it needs. The backend
 * seam (backend/open.ts) hands it out with every method guarded by the outage rules.
 */
export interface BillingStore extends KeyStore, CreditLedger, DepositStore, X402Records {
  /** Which database keeps it, for the log and the tests; nothing branches on it. */
  readonly backend: 'sqlite' | 'postgres';
  /** Throws when the database cannot answer (/healthz). */
  ping(): Promise<void>;
}

/** A store's debit found the call's key revoked in its own transaction: nothing was taken. */
export class KeyGone extends Error {
  constructor() {
    super('the key was revoked');
  }
}
