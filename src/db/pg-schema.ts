// The same tables as schema.ts, for PostgreSQL (drizzle builds each dialect's tables separately;
// tests/unit/pg-schema.test.ts fails when the two drift apart). Times (Unix ms) and lamports need
// 64 bits here: Postgres `integer` is 32-bit, SQLite's is not. Lamports are bigint in JS, read
// exactly (Postgres refuses a bigint overflow by itself, where SQLite needs its typeof checks).
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });
const lamports = (name: string) => bigint(name, { mode: 'bigint' });

export const apiKeys = pgTable(
  'api_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    wallet: text('wallet').notNull(),
    createdAt: ms('created_at').notNull(),
    revokedAt: ms('revoked_at'),
    revokedBy: text('revoked_by', { enum: ['claim', 'operator'] }),
  },
  (t) => [index('api_keys_wallet_idx').on(t.wallet)],
);

export const creditAccounts = pgTable(
  'credit_accounts',
  {
    wallet: text('wallet').primaryKey(),
    freeCalls: integer('free_calls').notNull(),
    creditLamports: lamports('credit_lamports').notNull(),
    callsMade: integer('calls_made').notNull().default(0),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [
    check('credit_accounts_free_calls_nonnegative', sql`${t.freeCalls} >= 0`),
    check('credit_accounts_credit_nonnegative', sql`${t.creditLamports} >= 0`),
  ],
);

/** schema.ts ledgerDebits: the primary key is what lets a call be debited, and refunded, once across replicas. */
export const ledgerDebits = pgTable('ledger_debits', {
  callId: text('call_id').primaryKey(),
  wallet: text('wallet').notNull(),
  kind: text('kind', { enum: ['free', 'credit'] }).notNull(),
  price: bigint('price', { mode: 'number' }).notNull(),
  refundedAt: ms('refunded_at'),
});

export const pendingClaims = pgTable(
  'pending_claims',
  {
    wallet: text('wallet').primaryKey(),
    creditLamports: lamports('credit_lamports').notNull(),
    deposits: integer('deposits').notNull(),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [check('pending_claims_credit_nonnegative', sql`${t.creditLamports} >= 0`)],
);

export const challenges = pgTable(
  'challenges',
  {
    challenge: text('challenge').primaryKey(),
    wallet: text('wallet'),
    requester: text('requester').notNull().default(''),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [index('challenges_wallet_idx').on(t.wallet, t.requester), index('challenges_expires_idx').on(t.expiresAt)],
);

export const deposits = pgTable(
  'deposits',
  {
    signature: text('signature').notNull(),
    network: text('network').notNull(),
    wallet: text('wallet').notNull(),
    lamports: lamports('lamports').notNull(),
    slot: bigint('slot', { mode: 'number' }),
    source: text('source', { enum: ['webhook', 'watcher'] }).notNull(),
    status: text('status', { enum: ['credited', 'below_minimum'] }).notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.signature, t.wallet] }), index('deposits_wallet_idx').on(t.wallet)],
);

export const watcherCursors = pgTable(
  'watcher_cursors',
  {
    network: text('network').notNull(),
    address: text('address').notNull(),
    lastSignature: text('last_signature').notNull(),
    lastSlot: bigint('last_slot', { mode: 'number' }),
    walkHead: text('walk_head'),
    walkHeadSlot: bigint('walk_head_slot', { mode: 'number' }),
    walkBefore: text('walk_before'),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.address] })],
);

export const dustTotals = pgTable('dust_totals', {
  wallet: text('wallet').primaryKey(),
  lamports: lamports('lamports').notNull(),
  transfers: integer('transfers').notNull(),
  updatedAt: ms('updated_at').notNull(),
});

export const usageEvents = pgTable(
  'usage_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    callId: text('call_id').unique(),
    wallet: text('wallet').notNull(),
    at: ms('at').notNull(),
    capability: text('capability').notNull(),
    face: text('face', { enum: ['rest', 'mcp'] }).notNull(),
    paidWith: text('paid_with', { enum: ['free_call', 'credit'] }).notNull(),
    lamports: lamports('lamports').notNull(),
    refunded: boolean('refunded').notNull(),
    status: integer('status').notNull(),
  },
  (t) => [index('usage_events_wallet_idx').on(t.wallet, t.id)],
);

/** schema.ts x402Payments: the primary key is what lets replicas settle one payment once. */
export const x402Payments = pgTable(
  'x402_payments',
  {
    txKey: text('tx_key').primaryKey(),
    network: text('network').notNull(),
    payer: text('payer').notNull(),
    asset: text('asset').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    payTo: text('pay_to').notNull(),
    capability: text('capability').notNull(),
    face: text('face', { enum: ['rest', 'mcp'] }).notNull(),
    status: text('status', { enum: ['held', 'settled', 'failed'] }).notNull(),
    signature: text('signature'),
    reason: text('reason'),
    createdAt: ms('created_at').notNull(),
    settledAt: ms('settled_at'),
    callId: text('call_id'),
  },
  (t) => [index('x402_payments_payer_idx').on(t.payer, t.createdAt)],
);

/**
 * Postgres only: token buckets shared by every replica (one process keeps them in memory).
 * `allowed` is what the last upsert gave (how many of the requests it carried were allowed), so one
 * upsert both decides and reports it.
 */
export const rateBuckets = pgTable('rate_buckets', {
  key: text('key').primaryKey(),
  tokens: doublePrecision('tokens').notNull(),
  at: doublePrecision('at').notNull(),
  allowed: integer('allowed').notNull(),
});

/**
 * Credit a replica holds out of a busy account (backend/postgres/holds.ts): its debits of that
 * wallet touch this row alone, not the account every replica shares. An account's balance is its
 * row plus its holds; any replica folds a hold back when the account needs it, or once it expires.
 */
export const creditHolds = pgTable(
  'credit_holds',
  {
    wallet: text('wallet').notNull(),
    holder: text('holder').notNull(),
    creditLamports: lamports('credit_lamports').notNull(),
    callsMade: integer('calls_made').notNull().default(0),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.wallet, t.holder] }), check('credit_holds_credit_nonnegative', sql`${t.creditLamports} >= 0`), index('credit_holds_expires_idx').on(t.expiresAt)],
);

/** schema.ts siwxNonces: the primary key lets one replica, and one call, use a nonce. */
export const siwxNonces = pgTable(
  'siwx_nonces',
  {
    nonce: text('nonce').primaryKey(),
    wallet: text('wallet').notNull(),
    callId: text('call_id').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [index('siwx_nonces_expires_idx').on(t.expiresAt)],
);

/** schema.ts x402PaymentIds: the primary key lets one replica run the call an id names. */
export const x402PaymentIds = pgTable(
  'x402_payment_ids',
  {
    id: text('id').primaryKey(),
    payloadHash: text('payload_hash').notNull(),
    callId: text('call_id').notNull(),
    answer: text('answer'),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [index('x402_payment_ids_expires_idx').on(t.expiresAt)],
);

/** schema.ts watches. */
export const watches = pgTable(
  'watches',
  {
    id: text('id').primaryKey(),
    wallet: text('wallet').notNull(),
    network: text('network').notNull(),
    wallets: text('wallets').notNull(),
    commitment: text('commitment').notNull(),
    webhookUrl: text('webhook_url'),
    secretSealed: text('secret_sealed'),
    status: text('status', { enum: ['active', 'paused_no_credit', 'ended'] }).notNull(),
    endedReason: text('ended_reason'),
    pausedAt: ms('paused_at'),
    skippedEvents: integer('skipped_events').notNull().default(0),
    deliveredSeq: integer('delivered_seq').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ms('next_attempt_at'),
    lastError: text('last_error'),
    firstFailureAt: ms('first_failure_at'),
    leaseOwner: text('lease_owner'),
    leaseUntil: ms('lease_until'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [index('watches_wallet_idx').on(t.wallet)],
);

/** schema.ts watchEvents. */
export const watchEvents = pgTable(
  'watch_events',
  {
    id: text('id').primaryKey(),
    watchId: text('watch_id').notNull(),
    seq: integer('seq').notNull(),
    body: text('body').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [uniqueIndex('watch_events_seq_idx').on(t.watchId, t.seq), index('watch_events_created_idx').on(t.createdAt)],
);

export const watchIngestCursors = pgTable(
  'watch_ingest_cursors',
  {
    network: text('network').notNull(),
    commitment: text('commitment', { enum: ['confirmed', 'finalized'] }).notNull(),
    address: text('address').notNull(),
    wallet: text('wallet').notNull(),
    lastSignature: text('last_signature').notNull(),
    lastSlot: bigint('last_slot', { mode: 'number' }).notNull(),
    sinceSlot: bigint('since_slot', { mode: 'number' }).notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.commitment, t.address] })],
);

/**
 * Postgres only: which replica ingests each watched wallet (one process needs no lease). A replica
 * renews its rows well within `expires_at`; one killed stops renewing and another takes them over.
 */
export const watchIngestLeases = pgTable(
  'watch_ingest_leases',
  {
    network: text('network').notNull(),
    commitment: text('commitment', { enum: ['confirmed', 'finalized'] }).notNull(),
    wallet: text('wallet').notNull(),
    owner: text('owner').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.commitment, t.wallet] })],
);
