// Encoders: accounts (binary/base58/base64/base64+zstd/jsonParsed) and transactions (json/jsonParsed/base64/base58).

import { base58 } from '@scure/base';
import { U64_MAX } from './constants.ts';
import { RpcError, invalidParams } from './errors.ts';
import type { InnerIx, TxRecord } from './ledger.ts';
import { renderReturnData } from './ledger.ts';
import { parseInstruction } from './parse-instruction.ts';
import { parseTokenProgramAccount, renderTokenBalance, type AccountLookup, type RawAccount, type TokenBalance } from './token.ts';
import { b58, b64 } from './wire.ts';

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';
const ACCOUNT_ENCODINGS: readonly string[] = ['binary', 'base58', 'base64', 'jsonParsed', 'base64+zstd'];

export function accountEncoding(value: unknown, dflt: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return dflt;
  if (typeof value === 'string' && ACCOUNT_ENCODINGS.includes(value)) return value as AccountEncoding;
  throw invalidParams(`Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`);
}

export interface DataSlice {
  offset: number;
  length: number;
}

export function dataSlice(value: unknown): DataSlice | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value as { offset?: unknown; length?: unknown };
  if (typeof v !== 'object' || !Number.isSafeInteger(v.offset) || !Number.isSafeInteger(v.length) || (v.offset as number) < 0 || (v.length as number) < 0)
    throw invalidParams('Invalid params: invalid type: expected struct UiDataSliceConfig.');
  return { offset: v.offset as number, length: v.length as number };
}

function slice(data: Uint8Array, s: DataSlice | undefined): Uint8Array {
  if (!s) return data;
  if (s.offset >= data.length) return new Uint8Array(0);
  return data.subarray(s.offset, Math.min(data.length, s.offset + s.length));
}

const MAX_BASE58_BYTES = 128;

/** UiAccount in Agave's field order. Throws mainnet's -32600 for base58 of more than 128 bytes. */
export function encodeAccount(acc: RawAccount, encoding: AccountEncoding, ds: DataSlice | undefined, lookup: AccountLookup): Record<string, unknown> {
  const bytes = slice(acc.data, ds);
  let data: unknown;
  switch (encoding) {
    case 'binary':
    case 'base58':
      if (bytes.length > MAX_BASE58_BYTES)
        throw new RpcError(-32600, `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`);
      data = encoding === 'binary' ? base58.encode(bytes) : [base58.encode(bytes), 'base58'];
      break;
    case 'base64':
      data = [b64(bytes), 'base64'];
      break;
    case 'base64+zstd':
      data = [b64(Bun.zstdCompressSync(bytes)), 'base64+zstd'];
      break;
    case 'jsonParsed':
      data = parseTokenProgramAccount(acc, lookup) ?? [b64(bytes), 'base64'];
      break;
  }
  return { lamports: acc.lamports, data, owner: acc.owner, executable: acc.executable, rentEpoch: U64_MAX, space: BigInt(acc.data.length) };
}

// ---- transactions ----

export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

export function txEncoding(value: unknown): TxEncoding {
  if (value === undefined || value === null) return 'json';
  if (value === 'json' || value === 'jsonParsed' || value === 'base64' || value === 'base58') return value;
  if (value === 'binary') return 'base58';
  throw invalidParams(`Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`);
}

function renderCompiledInner(groups: { index: number; instructions: InnerIx[] }[]) {
  return groups.map((g) => ({
    index: g.index,
    instructions: g.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: b58(ix.data), stackHeight: ix.stackHeight })),
  }));
}

/** Inner instructions in jsonParsed form (also what simulateTransaction returns when asked for them). */
export function renderParsedInner(groups: { index: number; instructions: InnerIx[] }[], keys: string[]) {
  return groups.map((g) => ({
    index: g.index,
    instructions: g.instructions.map((ix) =>
      parseInstruction(keys[ix.programIdIndex]!, ix.accounts.map((a) => keys[a]!), ix.data, ix.stackHeight),
    ),
  }));
}

export function renderTokenBalances(list: TokenBalance[], zeroAsNull: boolean) {
  return list.map((b) => renderTokenBalance(b, zeroAsNull));
}

function renderMeta(rec: TxRecord, parsed: boolean): Record<string, unknown> {
  const m = rec.meta;
  const out: Record<string, unknown> = {
    err: m.err,
    status: m.err === null ? { Ok: null } : { Err: m.err },
    fee: m.fee,
    preBalances: m.preBalances,
    postBalances: m.postBalances,
    innerInstructions: parsed ? renderParsedInner(m.innerInstructions, rec.accountKeys) : renderCompiledInner(m.innerInstructions),
    logMessages: m.logMessages,
    preTokenBalances: renderTokenBalances(m.preTokenBalances, true),
    postTokenBalances: renderTokenBalances(m.postTokenBalances, true),
    rewards: [],
  };
  if (!parsed) out.loadedAddresses = { writable: rec.loaded.writable, readonly: rec.loaded.readonly };
  if (m.returnData) out.returnData = renderReturnData(m.returnData);
  out.computeUnitsConsumed = m.computeUnitsConsumed;
  return out;
}

function renderJsonTx(rec: TxRecord): Record<string, unknown> {
  const { tx } = rec;
  const message: Record<string, unknown> = {
    header: tx.header,
    accountKeys: tx.staticKeys,
    recentBlockhash: tx.recentBlockhash,
    instructions: tx.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: b58(ix.data), stackHeight: null })),
  };
  if (tx.version === 0) message.addressTableLookups = tx.lookups;
  return { signatures: tx.signatures.map(b58), message };
}

function renderParsedTx(rec: TxRecord): Record<string, unknown> {
  const { tx, accountKeys } = rec;
  const nStatic = tx.staticKeys.length;
  const message: Record<string, unknown> = {
    accountKeys: accountKeys.map((pubkey, i) => ({
      pubkey,
      writable: rec.writable[i],
      signer: i < tx.header.numRequiredSignatures,
      source: i < nStatic ? 'transaction' : 'lookupTable',
    })),
    recentBlockhash: tx.recentBlockhash,
    instructions: tx.instructions.map((ix) =>
      parseInstruction(accountKeys[ix.programIdIndex]!, ix.accounts.map((a) => accountKeys[a]!), ix.data, null),
    ),
  };
  if (tx.version === 0) message.addressTableLookups = tx.lookups;
  return { signatures: tx.signatures.map(b58), message };
}

/** getTransaction's result. `version` is only present when the caller sent maxSupportedTransactionVersion. */
export function renderTransaction(rec: TxRecord, encoding: TxEncoding, includeVersion: boolean): Record<string, unknown> {
  let transaction: unknown;
  switch (encoding) {
    case 'json':
      transaction = renderJsonTx(rec);
      break;
    case 'jsonParsed':
      transaction = renderParsedTx(rec);
      break;
    case 'base64':
      transaction = [b64(rec.tx.bytes), 'base64'];
      break;
    case 'base58':
      transaction = [b58(rec.tx.bytes), 'base58'];
      break;
  }
  const out: Record<string, unknown> = {
    slot: rec.slot,
    transaction,
    meta: renderMeta(rec, encoding === 'jsonParsed'),
  };
  if (includeVersion) out.version = rec.tx.version;
  out.blockTime = rec.blockTime;
  return out;
}
