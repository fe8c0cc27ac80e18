// API keys on SQLite: who holds a live key, from memory when seen recently, and the rotation a
// claim makes (backend/sqlite/store.ts).
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { otherWriters } from '../../../db/other-writers.ts';
import { apiKeys } from '../../../db/schema.ts';
import { generateApiKey, hashApiKey, KEY_PREFIX, type KeyOwner } from '../../keys.ts';
import { RememberedKeys } from '../remembered-keys.ts';

// Live keys recently seen, per database: a call with a known key costs neither a SHA-256 nor a
// query. Only live keys are remembered (unknown ones would let anyone fill the cache), and every
// revocation goes through rotateKey below, which forgets the wallet's keys before anything else
// can run. The cache holds keys in memory only, as each request does; never on disk.
const liveKeys = new WeakMap<Db, RememberedKeys>();

function cacheOf(db: Db): RememberedKeys {
  let cache = liveKeys.get(db);
  if (!cache) liveKeys.set(db, (cache = new RememberedKeys()));
  return cache;
}

/**
 * Who holds a live key, for the SQLite store only: its invalidation rests on SQLite's data_version,
 * which says nothing about writes by other replicas on PostgreSQL. Runs on every call: served from
 * memory, else one prepared query.
 */
export function keyLookup(db: Db): (apiKey: string | undefined) => KeyOwner | null {
  const query = db
    .select({ wallet: apiKeys.wallet })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
    .prepare();
  const cache = cacheOf(db);
  // Another process (the `gateway keys revoke` command) may revoke keys in the same file: after any
  // commit of another connection nothing remembered is trusted.
  const othersWrote = otherWriters(db.$client);
  return (apiKey) => {
    if (!apiKey || !apiKey.startsWith(KEY_PREFIX) || apiKey.length > 80) return null;
    if (othersWrote()) cache.clear();
    const known = cache.get(apiKey);
    if (known) return known;
    const keyHash = hashApiKey(apiKey);
    const row = query.get({ keyHash });
    if (!row) return null;
    const owner = { wallet: row.wallet, keyHash };
    cache.set(apiKey, owner);
    return owner;
  };
}

/** Revokes every earlier key of the wallet and stores the new key's hash. Call inside a transaction. */
export function rotateKey(db: Db, wallet: string, now: number): string {
  const key = generateApiKey();
  // Forgotten first: should the transaction roll back, the old key is merely looked up again.
  cacheOf(db).forgetWallet(wallet);
  db.update(apiKeys).set({ revokedAt: now, revokedBy: 'claim' }).where(and(eq(apiKeys.wallet, wallet), isNull(apiKeys.revokedAt))).run();
  db.insert(apiKeys).values({ keyHash: hashApiKey(key), wallet, createdAt: now }).run();
  return key;
}
