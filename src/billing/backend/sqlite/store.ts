// The embedded store: one SQLite file, synchronous underneath. Only the ledger waits (its group
// commit); everything else answers at once behind a resolved promise.
import { and, eq } from 'drizzle-orm';
import type { Network } from '../../../config.ts';
import type { Db } from '../../../db/client.ts';
import { apiKeys, exactLamports, pendingClaims, watcherCursors, x402Payments } from '../../../db/schema.ts';
import type { BillingStore, ClaimedKey, WatcherCursor } from '../../store.ts';
import { cursorOf, cursorRow } from '../cursor-row.ts';
import { consumeChallenge, issueChallenge } from './challenges.ts';
import { depositStatus, recordDeposit } from './deposits.ts';
import { keyLookup, rotateKey } from './keys.ts';
import { Ledger } from './ledger.ts';

export function sqliteStore(db: Db, ledger = new Ledger(db)): BillingStore {
  // Keys and balances are cached in this process (keys.ts, ledger.ts): sound here because one file has
  // one writer process and SQLite's data_version reveals any other writer (the keys command).
  const identify = keyLookup(db);
  const saveCursor = (network: Network, address: string, c: WatcherCursor) => {
    const values = cursorRow(c);
    db.insert(watcherCursors)
      .values({ network, address, ...values })
      .onConflictDoUpdate({ target: [watcherCursors.network, watcherCursors.address], set: values })
      .run();
  };
  return {
    backend: 'sqlite',
    identify: (apiKey) => identify(apiKey),
    keyStatus: async (keyHash) => db.select({ revokedAt: apiKeys.revokedAt, revokedBy: apiKeys.revokedBy }).from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).get() ?? null,
    debit: (wallet, price, callId) => ledger.debit(wallet, price, callId),
    refund: (call) => ledger.refund(call),
    account: (wallet) => ledger.account(wallet),
    issueChallenge: async (ttl, requester, wallet, now) => issueChallenge(db, ttl, requester, wallet, now),
    consumeChallenge: async (challenge, wallet, now) => consumeChallenge(db, challenge, wallet, now),
    async claim(wallet, freeCalls, now) {
      // One synchronous transaction: of two racing claims only one finds the pending row.
      return db.transaction((): ClaimedKey | null => {
        const pending = db.delete(pendingClaims).where(eq(pendingClaims.wallet, wallet)).returning({ creditLamports: exactLamports(pendingClaims.creditLamports) }).get();
        if (!pending) return null;
        const apiKey = rotateKey(db, wallet, now);
        return { apiKey, ...ledger.credit(wallet, pending.creditLamports, freeCalls, now) };
      });
    },
    recordDeposit: async (d, min, now) => recordDeposit(db, d, min, now),
    depositStatus: async (wallet) => depositStatus(db, wallet),
    async watcherCursor(network, address) {
      const row = db
        .select()
        .from(watcherCursors)
        .where(and(eq(watcherCursors.network, network), eq(watcherCursors.address, address)))
        .get();
      return cursorOf(row);
    },
    saveWatcherCursor: async (network, address, cursor) => saveCursor(network, address, cursor),
    async recordWatcherChunk(network, address, deposits, min, cursor) {
      return db.transaction(() => {
        const outcomes = deposits.map((d) => recordDeposit(db, d, min));
        saveCursor(network, address, cursor);
        return outcomes;
      });
    },
    async holdPayment(p, now) {
      // Held already, it is another call's (a replay): each call holds once, under an id of its own
      // (calls/pipeline.ts), and an insert here is answered or fails, never lost.
      const row = db.insert(x402Payments).values({ ...p, status: 'held', createdAt: now }).onConflictDoNothing().returning({ txKey: x402Payments.txKey }).get();
      return row !== undefined;
    },
    async releasePayment(txKey, callId) {
      db.delete(x402Payments).where(and(eq(x402Payments.txKey, txKey), eq(x402Payments.callId, callId), eq(x402Payments.status, 'held'))).run();
    },
    async finishPayment(txKey, end, now) {
      const reason = end.status === 'failed' ? end.reason : null;
      db.update(x402Payments).set({ status: end.status, signature: end.signature ?? null, reason, settledAt: now }).where(eq(x402Payments.txKey, txKey)).run();
    },
    // One process owns the file: it is always the watcher.
    leadWatcher: async () => true,
    async ping() {
      db.$client.query('SELECT 1').get();
    },
  };
}
