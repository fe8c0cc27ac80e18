// API keys: `cig_` + base58 of 32 random bytes. Only the SHA-256 of a key is stored; the plaintext
// lives in memory just long enough to be returned by the claim.
import { base58 } from '@scure/base';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';

export const KEY_PREFIX = 'cig_';

export function generateApiKey(): string {
  return KEY_PREFIX + base58.encode(crypto.getRandomValues(new Uint8Array(32)));
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface KeyOwner {
  wallet: string;
  keyHash: string;
}

/** The hash of something shaped like a key; null for anything that cannot be one (never looked up). */
export function keyHashOf(apiKey: string | undefined): string | null {
  if (!apiKey || !apiKey.startsWith(KEY_PREFIX) || apiKey.length > 80) return null;
  return hashApiKey(apiKey);
}

/** Wallet of the live key with this hash. Runs on every call, so the query is prepared once. */
export function keyLookupByHash(db: Db): (keyHash: string) => string | null {
  const query = db
    .select({ wallet: apiKeys.wallet })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
    .prepare();
  return (keyHash) => query.get({ keyHash })?.wallet ?? null;
}

/** Revokes every earlier key of the wallet and stores the new key's hash. Call inside a transaction. */
export function rotateKey(db: Db, wallet: string, now: number): string {
  const key = generateApiKey();
  db.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.wallet, wallet), isNull(apiKeys.revokedAt))).run();
  db.insert(apiKeys).values({ keyHash: hashApiKey(key), wallet, createdAt: now }).run();
  return key;
}
