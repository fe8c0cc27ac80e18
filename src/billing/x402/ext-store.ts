// What x402's extensions keep, on either database, so that every replica sees it: the sign-in
// nonces used up, and the payment identifiers with the answer each one got. Each decision is one
// insert on a primary key (the first replica to insert wins); a lost answer around COMMIT is
// settled by reading the row back and comparing the call id it carries with our own.
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { outcomeUnknown } from '../../db/faults.ts';
import type { PgDb } from '../../db/pg-client.ts';
import * as pgTables from '../../db/pg-schema.ts';
import * as sqliteTables from '../../db/schema.ts';
import { settleWithin, SETTLE_WITHIN_MS } from '../resilience/unsettled.ts';

/** A payment identifier already taken: by which payload, for which call, and its answer once given. */
export interface TakenPaymentId {
  payloadHash: string;
  callId: string;
  /** The answer as stored (JSON), or null while its call is still running. */
  answer: string | null;
  createdAt: number;
}

export interface ExtensionStore {
  /** Uses `nonce` up for the call `callId`; false when it was used before (a replay). */
  useNonce(nonce: string, wallet: string, callId: string, expiresAt: number): Promise<boolean>;
  /** Takes `id` for the call `callId` with a payload of this hash; else what holds it. */
  takePaymentId(id: string, payloadHash: string, callId: string, now: number, expiresAt: number): Promise<{ taken: true } | { taken: false; holder: TakenPaymentId }>;
  /** Hands `id`, held by `callId`, over to `nextCallId` when it is still the holder (an abandoned run). */
  retakePaymentId(id: string, callId: string, nextCallId: string, now: number): Promise<boolean>;
  /** Records the answer the call `callId` gave under `id`. */
  answerPaymentId(id: string, callId: string, answer: string): Promise<void>;
  /** Frees `id`, held by `callId` without an answer worth keeping (the payment could not even be looked at). */
  releasePaymentId(id: string, callId: string): Promise<void>;
  /** Forgets what has expired. */
  prune(now: number): Promise<void>;
}

export function sqliteExtensionStore(db: Db): ExtensionStore {
  const { siwxNonces: nonces, x402PaymentIds: ids } = sqliteTables;
  return {
    async useNonce(nonce, wallet, callId, expiresAt) {
      return db.insert(nonces).values({ nonce, wallet, callId, expiresAt }).onConflictDoNothing().returning({ nonce: nonces.nonce }).get() !== undefined;
    },
    takePaymentId: async function take(id, payloadHash, callId, now, expiresAt): ReturnType<ExtensionStore['takePaymentId']> {
      const inserted = db.insert(ids).values({ id, payloadHash, callId, createdAt: now, expiresAt }).onConflictDoNothing().returning({ id: ids.id }).get();
      if (inserted) return { taken: true };
      const holder = db.select({ payloadHash: ids.payloadHash, callId: ids.callId, answer: ids.answer, createdAt: ids.createdAt }).from(ids).where(eq(ids.id, id)).get();
      // Deleted in between (released or pruned): free again.
      return holder ? { taken: false, holder } : take(id, payloadHash, callId, now, expiresAt);
    },
    async retakePaymentId(id, callId, nextCallId, now) {
      const row = db.update(ids).set({ callId: nextCallId, createdAt: now }).where(and(eq(ids.id, id), eq(ids.callId, callId))).returning({ id: ids.id }).get();
      return row !== undefined;
    },
    async answerPaymentId(id, callId, answer) {
      db.update(ids).set({ answer }).where(and(eq(ids.id, id), eq(ids.callId, callId))).run();
    },
    async releasePaymentId(id, callId) {
      db.delete(ids).where(and(eq(ids.id, id), eq(ids.callId, callId))).run();
    },
    async prune(now) {
      db.delete(nonces).where(lt(nonces.expiresAt, now)).run();
      db.delete(ids).where(lt(ids.expiresAt, now)).run();
    },
  };
}

export function pgExtensionStore(db: PgDb): ExtensionStore {
  const { siwxNonces: nonces, x402PaymentIds: ids } = pgTables;
  /** An insert on a primary key whose answer may be lost: ours when the row carries our call id. */
  async function insertOnce(insert: () => Promise<unknown[]>, owner: () => Promise<string | null>, callId: string): Promise<boolean> {
    const deadline = Date.now() + SETTLE_WITHIN_MS;
    let lost = false;
    while (true) {
      try {
        if ((await insert()).length === 1) return true;
        if (!lost) return false;
      } catch (e) {
        if (!outcomeUnknown(e)) throw e;
        lost = true;
      }
      const holder = await settleWithin(deadline, callId, owner);
      if (holder !== null) return holder === callId;
    }
  }
  const holderOf = async (id: string): Promise<TakenPaymentId | undefined> =>
    (await db.select({ payloadHash: ids.payloadHash, callId: ids.callId, answer: ids.answer, createdAt: ids.createdAt }).from(ids).where(eq(ids.id, id)))[0];
  return {
    useNonce(nonce, wallet, callId, expiresAt) {
      return insertOnce(
        () => db.insert(nonces).values({ nonce, wallet, callId, expiresAt }).onConflictDoNothing().returning({ nonce: nonces.nonce }),
        async () => (await db.select({ callId: nonces.callId }).from(nonces).where(eq(nonces.nonce, nonce)))[0]?.callId ?? null,
        callId,
      );
    },
    takePaymentId: async function take(id, payloadHash, callId, now, expiresAt): ReturnType<ExtensionStore['takePaymentId']> {
      const taken = await insertOnce(
        () => db.insert(ids).values({ id, payloadHash, callId, createdAt: now, expiresAt }).onConflictDoNothing().returning({ id: ids.id }),
        async () => (await holderOf(id))?.callId ?? null,
        callId,
      );
      if (taken) return { taken: true };
      const holder = await holderOf(id);
      return holder ? { taken: false, holder } : take(id, payloadHash, callId, now, expiresAt);
    },
    async retakePaymentId(id, callId, nextCallId, now) {
      const rows = await db.update(ids).set({ callId: nextCallId, createdAt: now }).where(and(eq(ids.id, id), eq(ids.callId, callId))).returning({ id: ids.id });
      return rows.length === 1;
    },
    async answerPaymentId(id, callId, answer) {
      await db.update(ids).set({ answer }).where(and(eq(ids.id, id), eq(ids.callId, callId)));
    },
    async releasePaymentId(id, callId) {
      await db.delete(ids).where(and(eq(ids.id, id), eq(ids.callId, callId)));
    },
    async prune(now) {
      await db.delete(nonces).where(lt(nonces.expiresAt, now));
      await db.delete(ids).where(lt(ids.expiresAt, now));
    },
  };
}
