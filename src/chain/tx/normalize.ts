// One shape for a getTransaction result, whatever encoding the node used:
//  - json:       message.accountKeys are strings, instructions carry programIdIndex + base58 data
//  - base64:     transaction is [wireBytesBase64, 'base64'] (also [b58, 'base58']); decoded with @solana/kit
//  - jsonParsed: accountKeys are {pubkey,...} objects (lookup-table keys already included),
//                instructions carry programId and either `parsed` or base58 `data`
// v0 transactions: account keys = static keys + meta.loadedAddresses.writable + meta.loadedAddresses.readonly.
// Integers may arrive as number or bigint (parseJson), so every amount goes through big().

import { base58 } from '@scure/base';
import { base58Bytes } from '../base58';
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { big } from '../../json';

export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

/** The node's parsed form of an instruction (jsonParsed encoding only). */
export interface ParsedInstruction {
  readonly program: string | null;
  /** e.g. 'transfer', 'transferChecked', 'createIdempotent'; null when `parsed` was a bare string (memo). */
  readonly type: string | null;
  readonly info: Readonly<Record<string, unknown>> | null;
}

export interface NormalizedInstruction {
  /** Index of the top-level instruction this one ran under (its own index for a top-level instruction). */
  readonly topLevelIndex: number;
  /** 1 for top-level, >= 2 for inner (CPI) instructions; null when the node did not record it. */
  readonly stackHeight: number | null;
  readonly programId: string;
  readonly accounts: readonly string[];
  /** Raw instruction data when the encoding carries it (json, base64, partially decoded jsonParsed). */
  readonly data: Uint8Array | null;
  readonly parsed: ParsedInstruction | null;
}

export interface TokenBalance {
  readonly accountIndex: number;
  /** Address of the token account (from the account keys), null if the index is out of range. */
  readonly account: string | null;
  readonly mint: string;
  /** Wallet owning the token account; null on very old nodes that did not report it. */
  readonly owner: string | null;
  readonly programId: string | null;
  readonly amount: bigint;
  readonly decimals: number;
}

export interface NormalizedTransaction {
  readonly encoding: TxEncoding;
  readonly version: 'legacy' | number;
  readonly signatures: readonly string[];
  /** Static keys, then loaded writable, then loaded readonly: indexes line up with the balance arrays. */
  readonly accountKeys: readonly string[];
  readonly feePayer: string;
  /** Accounts that signed, fee payer first (the message header's signer count, or the parsed keys' flags). */
  readonly signers: readonly string[];
  readonly instructions: readonly NormalizedInstruction[];
  /** All inner (CPI) instructions, flattened in execution order; null when the node did not return them. */
  readonly innerInstructions: readonly NormalizedInstruction[] | null;
  /** Every program actually invoked: top-level, inner, and `Program <id> invoke [n]` log lines; first-seen order. */
  readonly invokedProgramIds: readonly string[];
  readonly logs: readonly string[];
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TokenBalance[];
  readonly postTokenBalances: readonly TokenBalance[];
  readonly slot: number;
  /** Unix seconds; null when the node has no block time. */
  readonly blockTime: number | null;
  readonly fee: bigint;
  /** meta.err (falls back to meta.status.Err); null on success. */
  readonly err: unknown;
  readonly computeUnitsConsumed: number | null;
}

/** The input is not a getTransaction result this module understands. */
export class TransactionFormatError extends Error {
  override name = 'TransactionFormatError';
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function obj(value: unknown, what: string): Obj {
  if (!isObj(value)) throw new TransactionFormatError(`${what} must be an object`);
  return value;
}

function arr(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new TransactionFormatError(`${what} must be an array`);
  return value;
}

function str(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TransactionFormatError(`${what} must be a string`);
  return value;
}

function int(value: unknown, what: string): bigint {
  try {
    return big(value);
  } catch {
    throw new TransactionFormatError(`${what} must be an integer`);
  }
}

function smallInt(value: unknown, what: string): number {
  const n = int(value, what);
  if (n < BigInt(Number.MIN_SAFE_INTEGER) || n > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new TransactionFormatError(`${what} is out of range`);
  }
  return Number(n);
}

function optionalSmallInt(value: unknown, what: string): number | null {
  return value === null || value === undefined ? null : smallInt(value, what);
}

function keyAt(keys: readonly string[], index: unknown, what: string): string {
  const i = smallInt(index, what);
  const key = keys[i];
  if (key === undefined) throw new TransactionFormatError(`${what} ${i} is outside the ${keys.length} account keys`);
  return key;
}

// A whole transaction fits in one 1232-byte packet; nothing in it can be longer.
const PACKET_BYTES = 1232;

function decodeBase58(text: string, what: string): Uint8Array {
  const bytes = base58Bytes(text, PACKET_BYTES);
  if (!bytes) throw new TransactionFormatError(`${what} is not base58`);
  return bytes;
}

const INVOKE_LINE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) invoke \[(\d+)\]$/;

/** Program ids of `Program <id> invoke [n]` lines (runtime-written; program output is prefixed "Program log:"). */
export function programIdsFromLogs(logs: readonly string[]): string[] {
  const ids: string[] = [];
  for (const line of logs) {
    const m = INVOKE_LINE.exec(line);
    if (m?.[1]) ids.push(m[1]);
  }
  return ids;
}

// ---- message decoding, per encoding -------------------------------------------------------------

interface DecodedMessage {
  staticKeys: string[];
  signatures: string[];
  version: 'legacy' | number;
  /** Top-level instructions with indexes still unresolved (resolved once loaded addresses are appended). */
  instructions: ((keys: readonly string[]) => NormalizedInstruction)[];
  /** Whether staticKeys already include lookup-table keys (jsonParsed). */
  keysComplete: boolean;
  /** How many leading static keys signed; null when the message does not say. */
  signerCount: number | null;
  /** jsonParsed: the keys flagged `signer`. */
  signerKeys: string[] | null;
}

function versionOf(value: unknown): 'legacy' | number {
  if (value === undefined || value === null || value === 'legacy') return 'legacy';
  return smallInt(value, 'version');
}

function decodeWire(bytes: Uint8Array, encoding: TxEncoding): DecodedMessage {
  let tx;
  let message;
  try {
    tx = getTransactionDecoder().decode(bytes);
    message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  } catch (cause) {
    throw new TransactionFormatError(`${encoding} transaction bytes do not decode: ${(cause as Error).message}`);
  }
  const staticKeys = message.staticAccounts.map(String);
  const signatures = Object.values(tx.signatures)
    .filter((s): s is NonNullable<typeof s> => s !== null)
    .map((s) => base58.encode(new Uint8Array(s)));
  const compiled =
    message.version === 1
      ? message.instructionHeaders.map((h, i) => ({
          programAddressIndex: h.programAccountIndex,
          accountIndices: message.instructionPayloads[i]?.instructionAccountIndices ?? [],
          data: message.instructionPayloads[i]?.instructionData,
        }))
      : message.instructions;
  return {
    staticKeys,
    signatures,
    version: message.version,
    keysComplete: false,
    signerCount: message.header.numSignerAccounts,
    signerKeys: null,
    instructions: compiled.map((ix, index) => (keys: readonly string[]) => ({
      topLevelIndex: index,
      stackHeight: 1,
      programId: keyAt(keys, ix.programAddressIndex, `instruction ${index} program index`),
      accounts: (ix.accountIndices ?? []).map((a) => keyAt(keys, a, `instruction ${index} account index`)),
      data: ix.data ? new Uint8Array(ix.data) : new Uint8Array(0),
      parsed: null,
    })),
  };
}

/** A json-encoded (indexes) or jsonParsed (addresses) instruction. */
function jsonInstruction(
  raw: unknown,
  keys: readonly string[],
  topLevelIndex: number,
  defaultStackHeight: number | null,
  what: string,
): NormalizedInstruction {
  const ix = obj(raw, what);
  const stackHeight = optionalSmallInt(ix.stackHeight, `${what} stackHeight`) ?? defaultStackHeight;
  if (ix.programIdIndex !== undefined) {
    return {
      topLevelIndex,
      stackHeight,
      programId: keyAt(keys, ix.programIdIndex, `${what} programIdIndex`),
      accounts: arr(ix.accounts ?? [], `${what} accounts`).map((a) => keyAt(keys, a, `${what} account index`)),
      data: decodeBase58(typeof ix.data === 'string' ? ix.data : '', `${what} data`),
      parsed: null,
    };
  }
  const programId = str(ix.programId, `${what} programId`);
  if (ix.parsed !== undefined) {
    const p = ix.parsed;
    const parsed: ParsedInstruction = isObj(p)
      ? {
          program: typeof ix.program === 'string' ? ix.program : null,
          type: typeof p.type === 'string' ? p.type : null,
          info: isObj(p.info) ? p.info : null,
        }
      : { program: typeof ix.program === 'string' ? ix.program : null, type: null, info: null };
    return { topLevelIndex, stackHeight, programId, accounts: [], data: null, parsed };
  }
  return {
    topLevelIndex,
    stackHeight,
    programId,
    accounts: arr(ix.accounts ?? [], `${what} accounts`).map((a) => str(a, `${what} account`)),
    data: typeof ix.data === 'string' ? decodeBase58(ix.data, `${what} data`) : null,
    parsed: null,
  };
}

function decodeJsonMessage(transaction: Obj, version: 'legacy' | number): DecodedMessage {
  const message = obj(transaction.message, 'transaction.message');
  const rawKeys = arr(message.accountKeys, 'message.accountKeys');
  const parsedKeys = rawKeys.some(isObj);
  const staticKeys = rawKeys.map((k, i) => (isObj(k) ? str(k.pubkey, `accountKeys[${i}].pubkey`) : str(k, `accountKeys[${i}]`)));
  const signatures = arr(transaction.signatures ?? [], 'transaction.signatures').map((s, i) => str(s, `signatures[${i}]`));
  const header = isObj(message.header) ? message.header : null;
  return {
    staticKeys,
    signatures,
    version,
    keysComplete: parsedKeys,
    signerCount: header ? smallInt(header.numRequiredSignatures, 'header.numRequiredSignatures') : null,
    signerKeys: parsedKeys ? rawKeys.flatMap((k, i) => (isObj(k) && k.signer === true ? [staticKeys[i]!] : [])) : null,
    instructions: arr(message.instructions, 'message.instructions').map(
      (raw, index) => (keys: readonly string[]) => jsonInstruction(raw, keys, index, 1, `instruction ${index}`),
    ),
  };
}

function tokenBalances(value: unknown, keys: readonly string[], what: string): TokenBalance[] {
  if (value === null || value === undefined) return [];
  return arr(value, what).map((raw, i) => {
    const b = obj(raw, `${what}[${i}]`);
    const ui = obj(b.uiTokenAmount, `${what}[${i}].uiTokenAmount`);
    const accountIndex = smallInt(b.accountIndex, `${what}[${i}].accountIndex`);
    const decimals = smallInt(ui.decimals, `${what}[${i}].decimals`);
    // A mint's decimals are a u8 on chain; anything else is not a real balance.
    if (decimals < 0 || decimals > 255) throw new TransactionFormatError(`${what}[${i}].decimals must be 0..255`);
    return {
      accountIndex,
      account: keys[accountIndex] ?? null,
      mint: str(b.mint, `${what}[${i}].mint`),
      owner: typeof b.owner === 'string' ? b.owner : null,
      programId: typeof b.programId === 'string' ? b.programId : null,
      amount: int(ui.amount, `${what}[${i}].amount`),
      decimals,
    };
  });
}

function uniqueInOrder(ids: Iterable<string>): string[] {
  return [...new Set(ids)];
}

/**
 * Normalize a getTransaction `result` (already parsed with parseJson) in json, jsonParsed, base64 or base58
 * encoding. Throws TransactionFormatError for null (not found) or anything that is not such a result.
 */
export function normalizeTransaction(result: unknown): NormalizedTransaction {
  if (result === null || result === undefined) {
    throw new TransactionFormatError('no transaction: getTransaction returned null (not found or not yet confirmed)');
  }
  const root = obj(result, 'getTransaction result');
  const meta = obj(root.meta, 'meta (the node returned no status metadata for this transaction)');
  const version = versionOf(root.version);

  let encoding: TxEncoding;
  let decoded: DecodedMessage;
  const transaction = root.transaction;
  if (Array.isArray(transaction)) {
    const [payload, kind] = transaction;
    const text = str(payload, 'transaction[0]');
    if (kind === 'base64') {
      encoding = 'base64';
      decoded = decodeWire(new Uint8Array(getBase64Encoder().encode(text)), encoding);
    } else if (kind === 'base58') {
      encoding = 'base58';
      decoded = decodeWire(decodeBase58(text, 'transaction[0]'), encoding);
    } else {
      throw new TransactionFormatError(`unsupported transaction encoding ${JSON.stringify(kind)}`);
    }
  } else {
    decoded = decodeJsonMessage(obj(transaction, 'transaction'), version);
    encoding = decoded.keysComplete ? 'jsonParsed' : 'json';
  }

  const preBalances = arr(meta.preBalances, 'meta.preBalances').map((v, i) => int(v, `preBalances[${i}]`));
  const postBalances = arr(meta.postBalances, 'meta.postBalances').map((v, i) => int(v, `postBalances[${i}]`));

  let accountKeys = decoded.staticKeys;
  const loaded = isObj(meta.loadedAddresses) ? meta.loadedAddresses : null;
  if (!decoded.keysComplete && loaded) {
    const writable = arr(loaded.writable ?? [], 'loadedAddresses.writable').map((k, i) => str(k, `loadedAddresses.writable[${i}]`));
    const readonly = arr(loaded.readonly ?? [], 'loadedAddresses.readonly').map((k, i) => str(k, `loadedAddresses.readonly[${i}]`));
    accountKeys = [...accountKeys, ...writable, ...readonly];
  }
  const feePayer = accountKeys[0];
  if (feePayer === undefined) throw new TransactionFormatError('transaction has no account keys');

  const instructions = decoded.instructions.map((build) => build(accountKeys));
  // Without a header (very old captures) every signature stands for one leading signer key.
  const signers =
    decoded.signerKeys ?? accountKeys.slice(0, Math.max(1, decoded.signerCount ?? decoded.signatures.length));

  let innerInstructions: NormalizedInstruction[] | null = null;
  if (Array.isArray(meta.innerInstructions)) {
    innerInstructions = [];
    for (const [g, rawGroup] of meta.innerInstructions.entries()) {
      const group = obj(rawGroup, `innerInstructions[${g}]`);
      const index = smallInt(group.index, `innerInstructions[${g}].index`);
      for (const [j, raw] of arr(group.instructions, `innerInstructions[${g}].instructions`).entries()) {
        innerInstructions.push(jsonInstruction(raw, accountKeys, index, null, `inner instruction ${index}.${j}`));
      }
    }
  }

  const logs = Array.isArray(meta.logMessages) ? meta.logMessages.filter((l): l is string => typeof l === 'string') : [];

  const invokedProgramIds = uniqueInOrder([
    ...instructions.flatMap((ix) => [
      ix.programId,
      ...(innerInstructions ?? []).filter((inner) => inner.topLevelIndex === ix.topLevelIndex).map((inner) => inner.programId),
    ]),
    ...(innerInstructions ?? []).map((ix) => ix.programId),
    ...programIdsFromLogs(logs),
  ]);

  const status = isObj(meta.status) ? meta.status : null;
  const err = meta.err !== undefined ? meta.err : status && 'Err' in status ? status.Err : null;

  return {
    encoding,
    version: decoded.version,
    signatures: decoded.signatures,
    accountKeys,
    feePayer,
    signers,
    instructions,
    innerInstructions,
    invokedProgramIds,
    logs,
    preBalances,
    postBalances,
    preTokenBalances: tokenBalances(meta.preTokenBalances, accountKeys, 'preTokenBalances'),
    postTokenBalances: tokenBalances(meta.postTokenBalances, accountKeys, 'postTokenBalances'),
    slot: smallInt(root.slot, 'slot'),
    blockTime: optionalSmallInt(root.blockTime, 'blockTime'),
    fee: int(meta.fee, 'meta.fee'),
    err: err ?? null,
    computeUnitsConsumed: optionalSmallInt(meta.computeUnitsConsumed, 'computeUnitsConsumed'),
  };
}
