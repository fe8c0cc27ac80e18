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

/** Who holds a live key. Runs on every call, so the query is prepared once. */
export function keyLookup(db: Db): (apiKey: string | undefined) => KeyOwner | null {
  const query = db
    .select({ wallet: apiKeys.wallet })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
    .prepare();
  return (apiKey) => {
    if (!apiKey || !apiKey.startsWith(KEY_PREFIX) || apiKey.length > 80) return null;
    const keyHash = hashApiKey(apiKey);
    const row = query.get({ keyHash });
    return row ? { wallet: row.wallet, keyHash } : null;
  };
}

/** Revokes every earlier key of the wallet and stores the new key's hash. Call inside a transaction. */
export function rotateKey(db: Db, wallet: string, now: number): string {
  const key = generateApiKey();
  db.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.wallet, wallet), isNull(apiKeys.revokedAt))).run();
  db.insert(apiKeys).values({ keyHash: hashApiKey(key), wallet, createdAt: now }).run();
  return key;
}
