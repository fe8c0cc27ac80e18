// Everything the gateway keeps. Times are Unix milliseconds; lamports are integers.
// API keys are stored only as SHA-256 hashes; private keys are never seen at all.
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const apiKeys = sqliteTable(
  'api_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    wallet: text('wallet').notNull(),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('api_keys_wallet_idx').on(t.wallet)],
);

/** The credit account belongs to the wallet, so it survives key rotation. */
export const creditAccounts = sqliteTable(
  'credit_accounts',
  {
    wallet: text('wallet').primaryKey(),
    freeCalls: integer('free_calls').notNull(),
    creditLamports: integer('credit_lamports').notNull(),
    callsMade: integer('calls_made').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    check('credit_accounts_free_calls_nonnegative', sql`${t.freeCalls} >= 0`),
    check('credit_accounts_credit_nonnegative', sql`${t.creditLamports} >= 0`),
  ],
);

/** Credit waiting for the wallet to prove ownership; the key itself is made at claim time. */
export const pendingClaims = sqliteTable(
  'pending_claims',
  {
    wallet: text('wallet').primaryKey(),
    creditLamports: integer('credit_lamports').notNull(),
    deposits: integer('deposits').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [check('pending_claims_credit_nonnegative', sql`${t.creditLamports} >= 0`)],
);

export const challenges = sqliteTable(
  'challenges',
  {
    challenge: text('challenge').primaryKey(),
    wallet: text('wallet'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('challenges_wallet_idx').on(t.wallet), index('challenges_expires_idx').on(t.expiresAt)],
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
    lamports: integer('lamports').notNull(),
    slot: integer('slot'),
    source: text('source', { enum: ['webhook', 'watcher'] }).notNull(),
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
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.address] })],
);
