// Everything the gateway keeps. Times are Unix milliseconds; lamports are integers.
// API keys are stored only as SHA-256 hashes; private keys are never seen at all.
import { sql, type SQL } from 'drizzle-orm';
import { check, customType, index, integer, primaryKey, sqliteTable, text, uniqueIndex, type SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * Lamports: a SQLite INTEGER (signed 64 bits, 15 times the whole SOL supply), a bigint in JS.
 * bun:sqlite reads integers as doubles, rounded past 2^53, so an exact read goes through
 * exactLamports(); a plain read of a value it would round throws instead of returning it.
 */
const lamports = customType<{ data: bigint; driverData: bigint | number | string }>({
  dataType: () => 'integer',
  toDriver: (value) => value,
  fromDriver: (value) => {
    if (typeof value === 'bigint') return value;
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
    throw new RangeError(`lamports read inexactly (${String(value)}): select the column with exactLamports()`);
  },
});

/** The column as exact text from SQLite, mapped back to bigint: for selects and RETURNING. */
export function exactLamports(column: SQLiteColumn): SQL<bigint> {
  return sql`cast(${column} as text)`.mapWith(column) as SQL<bigint>;
}

// SQLite turns an integer sum that overflows 64 bits into a rounded REAL: refuse it instead.
const integral = (name: string, column: SQLiteColumn) => check(name, sql`typeof(${column}) = 'integer'`);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    wallet: text('wallet').notNull(),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
    /** Who revoked it: 'claim' (a newer claim of the wallet) or 'operator' (`gateway keys revoke`); null while live, and for keys revoked before this was kept. */
    revokedBy: text('revoked_by', { enum: ['claim', 'operator'] }),
  },
  (t) => [index('api_keys_wallet_idx').on(t.wallet)],
);

/** The credit account belongs to the wallet, so it survives key rotation. */
export const creditAccounts = sqliteTable(
  'credit_accounts',
  {
    wallet: text('wallet').primaryKey(),
    freeCalls: integer('free_calls').notNull(),
    creditLamports: lamports('credit_lamports').notNull(),
    callsMade: integer('calls_made').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    check('credit_accounts_free_calls_nonnegative', sql`${t.freeCalls} >= 0`),
    check('credit_accounts_credit_nonnegative', sql`${t.creditLamports} >= 0`),
    integral('credit_accounts_credit_integer', t.creditLamports),
  ],
);

/**
 * Every debit by the id of the call it paid for, written in the transaction that takes it from the
 * account: the primary key lets a call be debited once, and `refunded_at` lets it be refunded once,
 * whoever asks and however often (a refund kept while the database was away, a retry after a lost
 * COMMIT). After a write whose outcome is unknown, this row is how the gateway learns whether the
 * call was paid. Call ids begin with their time (src/billing/resilience/call-id.ts), so old rows are pruned by
 * the primary key (with the usage history), kept a week: longer than any refund can be owed.
 */
export const ledgerDebits = sqliteTable('ledger_debits', {
  callId: text('call_id').primaryKey(),
  wallet: text('wallet').notNull(),
  kind: text('kind', { enum: ['free', 'credit'] }).notNull(),
  price: integer('price').notNull(),
  refundedAt: integer('refunded_at'),
});

/** Credit waiting for the wallet to prove ownership; the key itself is made at claim time. */
export const pendingClaims = sqliteTable(
  'pending_claims',
  {
    wallet: text('wallet').primaryKey(),
    creditLamports: lamports('credit_lamports').notNull(),
    deposits: integer('deposits').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [check('pending_claims_credit_nonnegative', sql`${t.creditLamports} >= 0`), integral('pending_claims_credit_integer', t.creditLamports)],
);

export const challenges = sqliteTable(
  'challenges',
  {
    challenge: text('challenge').primaryKey(),
    wallet: text('wallet'),
    /** Client address that asked for it: a newer challenge supersedes only the same requester's. */
    requester: text('requester').notNull().default(''),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('challenges_wallet_idx').on(t.wallet, t.requester), index('challenges_expires_idx').on(t.expiresAt)],
);

/**
 * One row per (deposit transaction, sender), whichever detection path saw it first: the primary
 * key is what makes a deposit count once.
 */
export const deposits = sqliteTable(
  'deposits',
  {
    signature: text('signature').notNull(),
    network: text('network').notNull(),
    wallet: text('wallet').notNull(),
    lamports: lamports('lamports').notNull(),
    slot: integer('slot'),
    source: text('source', { enum: ['webhook', 'watcher'] }).notNull(),
    // 'below_minimum' only in rows written before small transfers were summed in dust_totals.
    status: text('status', { enum: ['credited', 'below_minimum'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.signature, t.wallet] }), index('deposits_wallet_idx').on(t.wallet)],
);

/** Where the deposit watcher stopped reading the gateway address's history. */
export const watcherCursors = sqliteTable(
  'watcher_cursors',
  {
    network: text('network').notNull(),
    address: text('address').notNull(),
    lastSignature: text('last_signature').notNull(),
    lastSlot: integer('last_slot'),
    /** A walk back to last_signature in progress: it started at walk_head and has read down to walk_before. */
    walkHead: text('walk_head'),
    walkHeadSlot: integer('walk_head_slot'),
    walkBefore: text('walk_before'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.address] })],
);

/**
 * Transfers below the minimum deposit, summed per sender without a row each; once a sender's sum
 * reaches the minimum it moves to the pending claim as one deposit and the sum starts again.
 */
export const dustTotals = sqliteTable(
  'dust_totals',
  {
    wallet: text('wallet').primaryKey(),
    lamports: lamports('lamports').notNull(),
    transfers: integer('transfers').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [integral('dust_totals_lamports_integer', t.lamports)],
);

/**
 * The key holder's usage history: one row per charged call, written by the call pipeline and kept
 * for USAGE_RETENTION_DAYS. `lamports` is what was taken from credit (0 when a free call paid).
 * Written on every paid call, so it carries as little as it can: the id is the rowid (no
 * AUTOINCREMENT bookkeeping row; old rows are pruned from the bottom, so ids keep growing), and
 * the only index is the one pages are read by. Rows are recorded in the order calls arrive, so
 * pruning walks up from the lowest id instead of needing an index on `at`.
 */
export const usageEvents = sqliteTable(
  'usage_events',
  {
    id: integer('id').primaryKey(),
    /** The call's id (ledger_debits): a row retried after a failed or unknown write is written once. */
    callId: text('call_id').unique(),
    wallet: text('wallet').notNull(),
    at: integer('at').notNull(),
    capability: text('capability').notNull(),
    face: text('face', { enum: ['rest', 'mcp'] }).notNull(),
    paidWith: text('paid_with', { enum: ['free_call', 'credit'] }).notNull(),
    lamports: lamports('lamports').notNull(),
    refunded: integer('refunded', { mode: 'boolean' }).notNull(),
    status: integer('status').notNull(),
  },
  (t) => [index('usage_events_wallet_idx').on(t.wallet, t.id)],
);

/**
 * x402 payments: one row per payment transaction (its message hash), written after verification
 * and before the call runs, so the primary key lets a payment buy one call, whatever replays it.
 * `held` while its call runs (deleted if the call fails: the payment was never submitted), then
 * `settled` with the landed signature, or `failed` when settlement did not confirm.
 */
export const x402Payments = sqliteTable(
  'x402_payments',
  {
    txKey: text('tx_key').primaryKey(),
    network: text('network').notNull(),
    payer: text('payer').notNull(),
    asset: text('asset').notNull(),
    amount: integer('amount').notNull(),
    payTo: text('pay_to').notNull(),
    capability: text('capability').notNull(),
    face: text('face', { enum: ['rest', 'mcp'] }).notNull(),
    status: text('status', { enum: ['held', 'settled', 'failed'] }).notNull(),
    signature: text('signature'),
    reason: text('reason'),
    createdAt: integer('created_at').notNull(),
    settledAt: integer('settled_at'),
    /** The call it pays for: after a write whose outcome is unknown, tells this call's record from a replay's. */
    callId: text('call_id'),
  },
  (t) => [index('x402_payments_payer_idx').on(t.payer, t.createdAt)],
);

/**
 * Sign-in-with-x nonces used up: one row per nonce a wallet signed in with, kept until its proof
 * could no longer be accepted anyway (issued too long ago), so a replay on any replica finds it.
 * `callId`: the call that used it, to tell this call's insert from a replay's after a lost answer.
 */
export const siwxNonces = sqliteTable(
  'siwx_nonces',
  {
    nonce: text('nonce').primaryKey(),
    wallet: text('wallet').notNull(),
    callId: text('call_id').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('siwx_nonces_expires_idx').on(t.expiresAt)],
);

/**
 * x402 payment identifiers (the payment-identifier extension): the first payment presented under
 * an id (the hash of its payload), the call it went to, and, once answered, that answer, replayed
 * to a payment presented again under the id until `expiresAt`.
 */
export const x402PaymentIds = sqliteTable(
  'x402_payment_ids',
  {
    id: text('id').primaryKey(),
    payloadHash: text('payload_hash').notNull(),
    callId: text('call_id').notNull(),
    /** The answer as JSON ({status, headers, body}); null while the call runs. */
    answer: text('answer'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('x402_payment_ids_expires_idx').on(t.expiresAt)],
);

/**
 * Watches (issue 40, src/watch/): a key holder's wallets whose activity is pushed. `wallet` is the
 * paying account; `wallets` a JSON array. The webhook's delivery queue is a cursor (events are sent
 * in order, one watch at a time): `delivered_seq` is the last event the receiver took, the retry
 * state beside it; `lease_*` is the replica sending it now.
 */
export const watches = sqliteTable(
  'watches',
  {
    id: text('id').primaryKey(),
    wallet: text('wallet').notNull(),
    network: text('network').notNull(),
    wallets: text('wallets').notNull(),
    commitment: text('commitment').notNull(),
    webhookUrl: text('webhook_url'),
    /** The whsec_ secret, AES-GCM sealed with a key the database does not hold (src/watch/secrets.ts). */
    secretSealed: text('secret_sealed'),
    status: text('status', { enum: ['active', 'paused_no_credit', 'ended'] }).notNull(),
    endedReason: text('ended_reason'),
    pausedAt: integer('paused_at'),
    skippedEvents: integer('skipped_events').notNull().default(0),
    deliveredSeq: integer('delivered_seq').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    lastError: text('last_error'),
    firstFailureAt: integer('first_failure_at'),
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('watches_wallet_idx').on(t.wallet)],
);

/** One event per transaction, watch and wallet; `seq` orders a watch's events (the cursor). */
export const watchEvents = sqliteTable(
  'watch_events',
  {
    id: text('id').primaryKey(),
    watchId: text('watch_id').notNull(),
    seq: integer('seq').notNull(),
    body: text('body').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('watch_events_seq_idx').on(t.watchId, t.seq), index('watch_events_created_idx').on(t.createdAt)],
);

/**
 * Where watch ingestion (src/watch/ingest) stopped reading each address's history at one commitment: a
 * watched wallet or one of its token accounts. `last_signature` is '' when the address had none; `since_slot` is the slot
 * the wallet's ingestion began at (a token account found later is read back to it, no further).
 */
export const watchIngestCursors = sqliteTable(
  'watch_ingest_cursors',
  {
    network: text('network').notNull(),
    commitment: text('commitment', { enum: ['confirmed', 'finalized'] }).notNull(),
    address: text('address').notNull(),
    wallet: text('wallet').notNull(),
    lastSignature: text('last_signature').notNull(),
    lastSlot: integer('last_slot').notNull(),
    sinceSlot: integer('since_slot').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.commitment, t.address] })],
);
