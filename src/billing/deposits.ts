// Deposits: native SOL sent to the gateway address. Both detection paths (webhook and watcher)
// end in recordDeposit, whose primary key makes each (transaction, sender) count exactly once.
import { base58Bytes } from '../chain/base58.ts';
import { sql } from 'drizzle-orm';
import type { Network } from '../config.ts';
import type { Db } from '../db/client.ts';
import { deposits, pendingClaims } from '../db/schema.ts';
import { SYSTEM_PROGRAM } from '../chain/program-ids.ts';

export interface Transfer {
  from: string;
  lamports: bigint;
}

interface RawInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
}

interface RpcTransaction {
  slot: number;
  meta: { err: unknown; innerInstructions?: { instructions: RawInstruction[] }[] | null; loadedAddresses?: { writable: string[]; readonly: string[] } } | null;
  transaction: { message: { accountKeys: string[]; instructions: RawInstruction[] } };
}

const SYSTEM_TRANSFER = 2;
const SYSTEM_TRANSFER_WITH_SEED = 11;

/**
 * Native SOL moved to `to` by System transfers (top level or inner) of a successful transaction,
 * summed per sender. Reads the instructions themselves: balance deltas alone cannot say who paid.
 * Expects getTransaction's `json` encoding.
 */
export function transfersTo(tx: unknown, to: string): Transfer[] {
  const t = tx as RpcTransaction | null;
  if (!t?.meta || t.meta.err !== null || !t.transaction?.message) return [];
  const keys = [...t.transaction.message.accountKeys, ...(t.meta.loadedAddresses?.writable ?? []), ...(t.meta.loadedAddresses?.readonly ?? [])];
  const all = [...t.transaction.message.instructions, ...(t.meta.innerInstructions ?? []).flatMap((i) => i.instructions)];
  const sums = new Map<string, bigint>();
  for (const ix of all) {
    if (keys[ix.programIdIndex] !== SYSTEM_PROGRAM) continue;
    const data = base58Bytes(ix.data);
    if (!data || data.length < 12) continue;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const kind = view.getUint32(0, true);
    const lamports = view.getBigUint64(4, true);
    const [fromIdx, toIdx] =
      kind === SYSTEM_TRANSFER ? [ix.accounts[0], ix.accounts[1]] : kind === SYSTEM_TRANSFER_WITH_SEED ? [ix.accounts[0], ix.accounts[2]] : [];
    if (fromIdx === undefined || toIdx === undefined || keys[toIdx] !== to) continue;
    const from = keys[fromIdx]!;
    if (from === to) continue;
    sums.set(from, (sums.get(from) ?? 0n) + lamports);
  }
  return [...sums].map(([from, lamports]) => ({ from, lamports }));
}

export type DepositOutcome = 'credited' | 'below_minimum' | 'duplicate';

export interface DepositRecord {
  signature: string;
  network: Network;
  wallet: string;
  lamports: bigint;
  slot?: number;
  source: 'webhook' | 'watcher';
}

/** Records a deposit once and, when it meets the minimum, adds it to the wallet's pending claim. */
export function recordDeposit(db: Db, d: DepositRecord, minDepositLamports: number, now = Date.now()): DepositOutcome {
  if (d.lamports > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('deposit exceeds the ledger range');
  const lamports = Number(d.lamports);
  const status = lamports >= minDepositLamports ? 'credited' : 'below_minimum';
  return db.transaction(() => {
    const inserted = db
      .insert(deposits)
      .values({ signature: d.signature, network: d.network, wallet: d.wallet, lamports, slot: d.slot ?? null, source: d.source, status, createdAt: now })
      .onConflictDoNothing()
      .returning({ signature: deposits.signature })
      .get();
    if (!inserted) return 'duplicate';
    if (status === 'credited') {
      db.insert(pendingClaims)
        .values({ wallet: d.wallet, creditLamports: lamports, deposits: 1, createdAt: now, updatedAt: now })
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
    return status;
  });
}

