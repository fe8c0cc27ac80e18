// The store for several gateways on one PostgreSQL database (DATABASE_URL). Every replica reads and
// writes the same rows: key lookups, debits and claims are exact across replicas because each
// decision is one statement or transaction on the database, never a value cached in a process.
import type { SQL } from 'bun';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Network } from '../../../config.ts';
import type { PgDb } from '../../../db/pg-client.ts';
import { apiKeys, challenges, creditAccounts, creditHolds, deposits, dustTotals, pendingClaims, watcherCursors, x402Payments } from '../../../db/pg-schema.ts';
import { outcomeUnknown } from '../../../db/faults.ts';
import { MAX_LAMPORTS, type DepositOutcome, type DepositRecord } from '../../deposits.ts';
import { generateApiKey, hashApiKey } from '../../keys.ts';
import { settleWithin, SETTLE_WITHIN_MS } from '../../resilience/unsettled.ts';
import { KeyGone, type BillingStore, type WatcherCursor } from '../../store.ts';
import { cursorOf, cursorRow } from '../cursor-row.ts';
import { KeyCache } from './key-cache.ts';
import { KEY_GONE, type PgLedger } from './ledger.ts';

type Tx = Parameters<Parameters<PgDb['transaction']>[0]>[0];

/**
 * deposits.ts recordDeposit, on Postgres, inside the caller's transaction: the deposits primary
 * key decides (a replica inserting the same deposit waits for the first to commit, then inserts
 * nothing); below the minimum, only the watcher adds to the sender's dust total.
 */
async function recordDepositTx(tx: Tx, d: DepositRecord, min: bigint, now: number): Promise<DepositOutcome> {
  if (d.lamports > MAX_LAMPORTS) throw new RangeError('deposit beyond any lamport supply');
  if (d.lamports < min) {
    if (d.source !== 'watcher') return 'below_minimum';
    const [dust] = await tx
      .insert(dustTotals)
      .values({ wallet: d.wallet, lamports: d.lamports, transfers: 1, updatedAt: now })
      .onConflictDoUpdate({ target: dustTotals.wallet, set: { lamports: sql`${dustTotals.lamports} + ${d.lamports}`, transfers: sql`${dustTotals.transfers} + 1`, updatedAt: now } })
      .returning({ lamports: dustTotals.lamports });
    if (dust!.lamports < min) return 'dust';
    await tx.delete(dustTotals).where(eq(dustTotals.wallet, d.wallet));
    await addToPendingClaim(tx, d.wallet, dust!.lamports, now);
    return 'credited';
  }
  const [inserted] = await tx
    .insert(deposits)
    .values({ signature: d.signature, network: d.network, wallet: d.wallet, lamports: d.lamports, slot: d.slot ?? null, source: d.source, status: 'credited', createdAt: now })
    .onConflictDoNothing()
    .returning({ signature: deposits.signature });
  if (!inserted) return 'duplicate';
  await addToPendingClaim(tx, d.wallet, d.lamports, now);
  return 'credited';
}

async function addToPendingClaim(tx: Tx, wallet: string, lamports: bigint, now: number) {
  await tx
    .insert(pendingClaims)
    .values({ wallet, creditLamports: lamports, deposits: 1, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: pendingClaims.wallet,
      set: { creditLamports: sql`${pendingClaims.creditLamports} + ${lamports}`, deposits: sql`${pendingClaims.deposits} + 1`, updatedAt: now },
    });
}

async function saveCursor(db: PgDb | Tx, network: Network, address: string, c: WatcherCursor) {
  const values = cursorRow(c);
  await db
    .insert(watcherCursors)
    .values({ network, address, ...values })
    .onConflictDoUpdate({ target: [watcherCursors.network, watcherCursors.address], set: values });
}

/** Arbitrary constant naming the watcher locks among the database's advisory locks (key 1 of 2). */
const WATCHER_LOCK_CLASS = 0x43494702;

/** The store on `db`, and the release of the connections it reserved (before the pool closes). */
export function pgStore(db: PgDb, ledger: PgLedger): { store: BillingStore; release(): Promise<void> } {
  const client = db.$client;
  // Plain SQL through the client (measured at 5x the rate of the same query built by drizzle on each call).
  const keys = new KeyCache({
    async live(keyHashes) {
      const rows = await client<{ key_hash: string; wallet: string }[]>`SELECT key_hash, wallet FROM api_keys WHERE key_hash = ANY(${keyHashes}::text[]) AND revoked_at IS NULL`;
      return new Map(rows.map((r) => [r.key_hash, r.wallet]));
    },
  });
  // The watcher lock is held by a session, so it lives on one reserved connection: when this
  // process dies its connection closes and Postgres releases the lock at once for another replica.
  let lockConn: Awaited<ReturnType<SQL['reserve']>> | undefined;
  let leading = false;
  // The health probe's own session: a restart of the server ends it, so the next probe sees even a
  // restart that came and went between two probes (a pooled connection would just reconnect).
  let probeConn: ReturnType<SQL['reserve']> | undefined;

  const balanceColumns = { freeCalls: creditAccounts.freeCalls, creditLamports: creditAccounts.creditLamports };

  const store: BillingStore = {
    backend: 'postgres',
    // Remembered per replica (key-cache.ts): each debit checks its key live again in its own transaction.
    identify: (apiKey) => keys.identify(apiKey),
    async keyStatus(keyHash) {
      const [row] = await db.select({ revokedAt: apiKeys.revokedAt, revokedBy: apiKeys.revokedBy }).from(apiKeys).where(eq(apiKeys.keyHash, keyHash));
      return row ?? null;
    },
    async debit(wallet, price, callId, keyHash) {
      const debit = await ledger.debit(wallet, price, callId, keyHash);
      if (debit !== KEY_GONE) return debit;
      keys.forget(keyHash!);
      throw new KeyGone();
    },
    ...(ledger.buckets && {
      async debitDrawing(wallet: string, price: number, callId: string, keyHash: string, bucket: string) {
        const { decision, debit } = await ledger.debitDrawing(wallet, price, callId, keyHash, bucket);
        if (debit === KEY_GONE) keys.forget(keyHash);
        return {
          decision,
          taken() {
            if (debit === KEY_GONE) throw new KeyGone();
            return debit;
          },
        };
      },
    }),
    refund: (call) => ledger.refund(call),
    account: (wallet) => ledger.account(wallet),
    async issueChallenge(ttlSeconds, requester, wallet, now) {
      const challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
      const expiresAt = now + ttlSeconds * 1000;
      await db.transaction(async (tx) => {
        await tx.delete(challenges).where(lt(challenges.expiresAt, now));
        if (wallet) await tx.delete(challenges).where(and(eq(challenges.wallet, wallet), eq(challenges.requester, requester)));
        await tx.insert(challenges).values({ challenge, wallet: wallet ?? null, requester, createdAt: now, expiresAt });
      });
      return { challenge, expiresAt };
    },
    async consumeChallenge(challenge, wallet, now) {
      const [row] = await db.delete(challenges).where(eq(challenges.challenge, challenge)).returning();
      if (!row || row.expiresAt <= now) return false;
      return row.wallet === null || row.wallet === wallet;
    },
    async claim(wallet, freeCalls, now) {
      // Of two racing claims (on any replicas) the second waits on the pending row's lock and then
      // finds it gone. The wallet's old keys are forgotten here at once; other replicas learn it at
      // their next debit with one (key-cache.ts).
      const claimed = await db.transaction(async (tx) => {
        const [pending] = await tx.delete(pendingClaims).where(eq(pendingClaims.wallet, wallet)).returning();
        if (!pending) return null;
        const apiKey = generateApiKey();
        await tx.update(apiKeys).set({ revokedAt: now, revokedBy: 'claim' }).where(and(eq(apiKeys.wallet, wallet), isNull(apiKeys.revokedAt)));
        await tx.insert(apiKeys).values({ keyHash: hashApiKey(apiKey), wallet, createdAt: now });
        const [balance] = await tx
          .insert(creditAccounts)
          .values({ wallet, freeCalls, creditLamports: pending.creditLamports, callsMade: 0, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: creditAccounts.wallet, set: { creditLamports: sql`${creditAccounts.creditLamports} + ${pending.creditLamports}`, updatedAt: now } })
          .returning(balanceColumns);
        // What replicas hold of the account is the wallet's too (holds.ts).
        const [held] = await tx.select({ lamports: sql<string>`coalesce(sum(${creditHolds.creditLamports}), 0)::text` }).from(creditHolds).where(eq(creditHolds.wallet, wallet));
        return { apiKey, ...balance!, creditLamports: balance!.creditLamports + BigInt(held!.lamports) };
      });
      if (claimed) keys.forgetWallet(wallet);
      return claimed;
    },
    recordDeposit: (d, min, now = Date.now()) => db.transaction((tx) => recordDepositTx(tx, d, min, now)),
    async depositStatus(wallet) {
      const [pending] = await db.select({ wallet: pendingClaims.wallet }).from(pendingClaims).where(eq(pendingClaims.wallet, wallet));
      if (pending) return 'claimable';
      const [dust] = await db.select({ wallet: dustTotals.wallet }).from(dustTotals).where(eq(dustTotals.wallet, wallet));
      return dust ? 'below_minimum' : 'none';
    },
    async watcherCursor(network, address) {
      const [row] = await db
        .select()
        .from(watcherCursors)
        .where(and(eq(watcherCursors.network, network), eq(watcherCursors.address, address)));
      return cursorOf(row);
    },
    saveWatcherCursor: (network, address, cursor) => saveCursor(db, network, address, cursor),
    recordWatcherChunk(network, address, found, min, cursor) {
      return db.transaction(async (tx) => {
        const outcomes: DepositOutcome[] = [];
        // One after another: they may add to the same sender's totals.
        for (const d of found) outcomes.push(await recordDepositTx(tx, d, min, Date.now()));
        await saveCursor(tx, network, address, cursor);
        return outcomes;
      });
    },
    // The primary key decides between replicas: a second insert of one payment waits for the first
    // to commit, then inserts nothing. When the insert's answer is lost, the record read back says
    // whose it is: this call's (held), another's (a replay), or nobody's (not written: try again).
    // A conflict with no answer lost before it is another call's: each call holds under an id of its own.
    async holdPayment(p, now) {
      const deadline = Date.now() + SETTLE_WITHIN_MS;
      let lost = false;
      while (true) {
        try {
          const rows = await db.insert(x402Payments).values({ ...p, status: 'held', createdAt: now }).onConflictDoNothing().returning({ txKey: x402Payments.txKey });
          if (rows.length === 1) return true;
          if (!lost) return false;
        } catch (e) {
          if (!outcomeUnknown(e)) throw e;
          lost = true;
        }
        const owner = await settleWithin(deadline, p.callId, async () => {
          const [row] = await db.select({ callId: x402Payments.callId }).from(x402Payments).where(eq(x402Payments.txKey, p.txKey));
          return row ? (row.callId ?? '') : null;
        });
        if (owner !== null) return owner === p.callId;
      }
    },
    async releasePayment(txKey, callId) {
      await db.delete(x402Payments).where(and(eq(x402Payments.txKey, txKey), eq(x402Payments.callId, callId), eq(x402Payments.status, 'held')));
    },
    async finishPayment(txKey, end, now) {
      const reason = end.status === 'failed' ? end.reason : null;
      await db.update(x402Payments).set({ status: end.status, signature: end.signature ?? null, reason, settledAt: now }).where(eq(x402Payments.txKey, txKey));
    },
    async leadWatcher(network, address) {
      try {
        lockConn ??= await client.reserve();
        if (leading) {
          // Still ours as long as the session that took it is alive.
          await lockConn`SELECT 1`;
          return true;
        }
        const [row] = await lockConn<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${WATCHER_LOCK_CLASS}, hashtext(${`${network}:${address}`})) AS locked`;
        leading = row!.locked;
        return leading;
      } catch (e) {
        // The session is gone, and the lock with it: start over with a new connection next time.
        leading = false;
        lockConn?.release();
        lockConn = undefined;
        throw e;
      }
    },
    async ping() {
      const conn = (probeConn ??= client.reserve());
      try {
        await (await conn)`SELECT 1`;
      } catch (e) {
        if (probeConn === conn) probeConn = undefined;
        (await conn.catch(() => undefined))?.release();
        throw e;
      }
    },
  };
  return {
    store,
    async release() {
      keys.close();
      lockConn?.release();
      (await probeConn?.catch(() => undefined))?.release();
    },
  };
}
