// Deposits on SQLite: each (transaction, sender) recorded once, added to the wallet's pending claim,
// dust summed per sender; and what the claim page may learn of a wallet.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { deposits, dustTotals, exactLamports, pendingClaims } from '../../../db/schema.ts';
import { MAX_LAMPORTS, type DepositOutcome, type DepositRecord, type DepositStatus } from '../../deposits.ts';

/**
 * Records a deposit once (keyed by signature and sender) and adds it to the wallet's pending
 * claim. A transfer below the minimum costs no row: the watcher adds it to the sender's dust
 * total, which becomes one credited deposit when it reaches the minimum. Dust is counted only by
 * the watcher, whose cursor moves in the same transaction, so it too counts exactly once.
 */
export function recordDeposit(db: Db, d: DepositRecord, minDepositLamports: bigint, now = Date.now()): DepositOutcome {
  if (d.lamports > MAX_LAMPORTS) throw new RangeError('deposit beyond any lamport supply');
  return db.transaction((): DepositOutcome => {
    if (d.lamports < minDepositLamports) {
      if (d.source !== 'watcher') return 'below_minimum';
      const total = addDust(db, d.wallet, d.lamports, now);
      if (total < minDepositLamports) return 'dust';
      db.delete(dustTotals).where(eq(dustTotals.wallet, d.wallet)).run();
      addToPendingClaim(db, d.wallet, total, now);
      return 'credited';
    }
    const inserted = db
      .insert(deposits)
      .values({ signature: d.signature, network: d.network, wallet: d.wallet, lamports: d.lamports, slot: d.slot ?? null, source: d.source, status: 'credited', createdAt: now })
      .onConflictDoNothing()
      .returning({ signature: deposits.signature })
      .get();
    if (!inserted) return 'duplicate';
    addToPendingClaim(db, d.wallet, d.lamports, now);
    return 'credited';
  });
}

function addDust(db: Db, wallet: string, lamports: bigint, now: number): bigint {
  return db
    .insert(dustTotals)
    .values({ wallet, lamports, transfers: 1, updatedAt: now })
    .onConflictDoUpdate({
      target: dustTotals.wallet,
      set: { lamports: sql`${dustTotals.lamports} + ${lamports}`, transfers: sql`${dustTotals.transfers} + 1`, updatedAt: now },
    })
    .returning({ lamports: exactLamports(dustTotals.lamports) })
    .get().lamports;
}

function addToPendingClaim(db: Db, wallet: string, lamports: bigint, now: number) {
  db.insert(pendingClaims)
    .values({ wallet, creditLamports: lamports, deposits: 1, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: pendingClaims.wallet,
      set: {
        creditLamports: sql`${pendingClaims.creditLamports} + ${lamports}`,
        deposits: sql`${pendingClaims.deposits} + 1`,
        updatedAt: now,
      },
    })
    .run();
}

/**
 * All anyone may learn about a wallet (for the claim page): whether credit waits for its claim, or
 * its transfers so far add up to less than the minimum (dust, summed until it reaches it). No
 * amounts; the transfers themselves are public on chain.
 */
export function depositStatus(db: Db, wallet: string): DepositStatus {
  if (db.select({ wallet: pendingClaims.wallet }).from(pendingClaims).where(eq(pendingClaims.wallet, wallet)).get()) return 'claimable';
  if (db.select({ wallet: dustTotals.wallet }).from(dustTotals).where(eq(dustTotals.wallet, wallet)).get()) return 'below_minimum';
  return 'none';
}
