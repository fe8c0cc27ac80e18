// Deposits: native SOL sent to the gateway address. Both detection paths (webhook and watcher)
// end in the store's recordDeposit (backend/*/), whose primary key makes each (transaction, sender)
// count exactly once.
import { base58Bytes } from '../chain/base58.ts';
import type { Network } from '../config.ts';
import { SYSTEM_PROGRAM } from '../chain/program-ids.ts';
import { depositLamports, deposits as depositCount } from '../metrics.ts';

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
// TransferWithSeed: index, lamports, then a seed (a length and at most 32 bytes) and the owner key.
const MAX_TRANSFER_DATA_BYTES = 4 + 8 + 8 + 32 + 32;

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
    // A transfer's data is 12 bytes; with a seed, at most a few dozen more: longer is something else.
    const data = base58Bytes(ix.data, MAX_TRANSFER_DATA_BYTES);
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

/** What one signed 64-bit SQLite integer holds: 15 times the whole SOL supply, so no real transfer exceeds it. */
export const MAX_LAMPORTS = 2n ** 63n - 1n;

/**
 * credited: recorded and added to the pending claim; duplicate: recorded before; dust: below the
 * minimum, added to the sender's dust total (the watcher only); below_minimum: below the minimum
 * and not recorded (the webhook leaves small transfers to the watcher, which sums them).
 */
export type DepositOutcome = 'credited' | 'duplicate' | 'dust' | 'below_minimum';

export interface DepositRecord {
  signature: string;
  network: Network;
  wallet: string;
  lamports: bigint;
  slot?: number;
  source: 'webhook' | 'watcher';
}

export const DEPOSIT_STATUSES = ['claimable', 'below_minimum', 'none'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** Counts a deposit the store recorded (committed), whichever database holds it. */
export function countDeposit(d: DepositRecord, outcome: DepositOutcome): void {
  if (outcome !== 'duplicate') depositCount.inc({ status: outcome, source: d.source });
  if (outcome === 'credited' || outcome === 'dust') depositLamports.inc(Number(d.lamports));
}
