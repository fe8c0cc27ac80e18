// Balance changes of a simulated transaction (pure): which accounts it can write (static keys by the
// message header, lookup-table keys by the tables' contents), and what each owner gains or loses
// between the accounts' state before the simulation and the state simulateTransaction returns.

import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { base58 } from '@scure/base';
import { big } from '../../json';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../program-ids';
import { type AccountChange, accountChangesOf, ownerChangesOf } from './changes';
import { type OwnerChangesView, ownerViews } from './describe';
import type { NormalizedTransaction, TokenBalance } from './normalize';

export interface WireAccounts {
  readonly signers: readonly string[];
  /** Program of each top-level instruction, in order (a program id is always a static key). */
  readonly instructionPrograms: readonly string[];
  /** Static keys the transaction may write, in message order. */
  readonly writableStatic: readonly string[];
  readonly lookups: readonly { readonly table: string; readonly writableIndexes: readonly number[] }[];
}

/** Signers, writable static keys and lookup-table references of a base64 wire transaction (legacy or v0). */
export function wireAccounts(base64: string): WireAccounts {
  const tx = getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(base64)));
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const keys = message.staticAccounts.map(String);
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  const writableStatic = keys.filter(
    (_k, i) => (i < numSignerAccounts ? i < numSignerAccounts - numReadonlySignerAccounts : i < keys.length - numReadonlyNonSignerAccounts),
  );
  const lookups =
    'addressTableLookups' in message && message.addressTableLookups
      ? message.addressTableLookups.map((l) => ({ table: String(l.lookupTableAddress), writableIndexes: [...l.writableIndexes] }))
      : [];
  const instructionPrograms = 'instructions' in message ? message.instructions.map((ix) => keys[ix.programAddressIndex] ?? '') : [];
  return { signers: keys.slice(0, numSignerAccounts), instructionPrograms, writableStatic, lookups };
}

/** Bytes before the first address in an address lookup table account (LOOKUP_TABLE_META_SIZE). */
const LOOKUP_TABLE_META_SIZE = 56;

/** The addresses stored in an address lookup table account's data. */
export function lookupTableAddresses(data: Uint8Array): string[] {
  const addresses: string[] = [];
  for (let at = LOOKUP_TABLE_META_SIZE; at + 32 <= data.length; at += 32) addresses.push(base58.encode(data.subarray(at, at + 32)));
  return addresses;
}

export class LookupTableError extends Error {}

/** Every account the transaction may write: static ones, then each table's writable entries (v0 order). */
export function writableAccounts(wire: WireAccounts, tables: ReadonlyMap<string, readonly string[]>): string[] {
  const loaded = wire.lookups.flatMap(({ table, writableIndexes }) => {
    const addresses = tables.get(table);
    if (!addresses) throw new LookupTableError(`address lookup table ${table} was not found`);
    return writableIndexes.map((i) => {
      const address = addresses[i];
      if (address === undefined) throw new LookupTableError(`address lookup table ${table} has no entry ${i}`);
      return address;
    });
  });
  return [...new Set([...wire.writableStatic, ...loaded])];
}

/** One account's state as read with jsonParsed encoding; token fields when it is a token account. */
export interface AccountState {
  readonly lamports: bigint;
  readonly token: { readonly mint: string; readonly owner: string; readonly amount: bigint; readonly decimals: number; readonly programId: string } | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A jsonParsed UiAccount (getMultipleAccounts / simulateTransaction accounts) -> AccountState; null for no account. */
export function accountState(ui: unknown): AccountState | null {
  if (!isObj(ui)) return null;
  const lamports = big(ui.lamports);
  const owner = typeof ui.owner === 'string' ? ui.owner : null;
  const data = isObj(ui.data) ? ui.data : null;
  const parsed = data && isObj(data.parsed) ? data.parsed : null;
  const info = parsed && parsed.type === 'account' && isObj(parsed.info) ? parsed.info : null;
  const amount = info && isObj(info.tokenAmount) ? info.tokenAmount : null;
  if (!info || !amount || (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM)) return { lamports, token: null };
  const decimals = Number(amount.decimals);
  if (typeof info.mint !== 'string' || typeof info.owner !== 'string' || !Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    return { lamports, token: null };
  }
  return { lamports, token: { mint: info.mint, owner: info.owner, amount: big(amount.amount), decimals, programId: owner } };
}

export interface SimulatedBalances {
  readonly addresses: readonly string[];
  readonly signers: readonly string[];
  /** Fee the node says it charged in the simulation; null when it does not say (older nodes). */
  readonly fee: bigint | null;
  readonly before: readonly (AccountState | null)[];
  readonly after: readonly (AccountState | null)[];
}

function tokenBalances(states: readonly (AccountState | null)[], addresses: readonly string[]): TokenBalance[] {
  return states.flatMap((s, accountIndex) =>
    s?.token
      ? [{ accountIndex, account: addresses[accountIndex] ?? null, mint: s.token.mint, owner: s.token.owner, programId: s.token.programId, amount: s.token.amount, decimals: s.token.decimals }]
      : [],
  );
}

/** The simulated state as a transaction whose only facts are the writable accounts' balances. */
function simulatedTransaction(sim: SimulatedBalances): NormalizedTransaction {
  return {
    encoding: 'base64',
    version: 0,
    signatures: [],
    accountKeys: sim.addresses,
    feePayer: sim.signers[0] ?? sim.addresses[0] ?? '',
    signers: sim.signers,
    instructions: [],
    innerInstructions: [],
    invokedProgramIds: [],
    logs: [],
    preBalances: sim.before.map((s) => s?.lamports ?? 0n),
    postBalances: sim.after.map((s) => s?.lamports ?? 0n),
    preTokenBalances: tokenBalances(sim.before, sim.addresses),
    postTokenBalances: tokenBalances(sim.after, sim.addresses),
    slot: 0,
    blockTime: null,
    fee: sim.fee ?? 0n,
    err: null,
    computeUnitsConsumed: null,
  };
}

/**
 * Per-owner changes (every signer, then every owner whose token balances moved), with the same arithmetic
 * and the same view as decode-tx. Without a fee from the node, the fee payer's SOL change includes the fee.
 */
export function simulatedOwnerChanges(sim: SimulatedBalances): OwnerChangesView[] {
  const tx = simulatedTransaction(sim);
  return ownerViews(tx, ownerChangesOf(tx));
}

/** Each writable account whose lamports or token amount the simulation changed (decode-tx's per-address view). */
export function accountChanges(sim: SimulatedBalances): AccountChange[] {
  return accountChangesOf(simulatedTransaction(sim));
}
