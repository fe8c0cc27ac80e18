// Normalizes a getAccountInfo / getMultipleAccounts `value` into a MintInfo, or null when the
// account is not an initialized SPL Token / Token-2022 mint (the caller answers 404 "not a mint").
//
// Accepted shapes of `value.data`:
//   - jsonParsed: { program, parsed: { type: 'mint', info: {...} }, space }
//   - [base64, 'base64'] or [base58, 'base58'] tuples, and the legacy bare base58 string
//     (what getAccountInfo returns without an `encoding`). A jsonParsed request also falls back to
//     base64 when the node cannot parse the account, so raw Token-2022 data is decoded here too:
//     the 82-byte base mint (via @solana-program/token's getMintDecoder) plus the extension TLV
//     entries, rendered in the same `{ extension, state }` shape the node's jsonParsed uses.
// Integers inside RPC results may be number or bigint (see src/json.ts); amounts become bigint.

import { getBase58Encoder, getBase64Encoder, getBase58Decoder, getBase64Decoder, unwrapOption } from '@solana/kit';
import { getMintDecoder } from '@solana-program/token';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../program-ids.ts';
import { big } from '../../json.ts';

export type TokenProgramName = 'spl-token' | 'spl-token-2022';

/** One mint extension as RPC jsonParsed reports it (`state` absent for marker extensions). */
export interface MintExtension {
  readonly extension: string;
  readonly state?: Readonly<Record<string, unknown>>;
}

export interface MintInfo {
  /** The mint address. */
  readonly address: string;
  readonly program: TokenProgramName;
  /** Owning program id: TOKEN_PROGRAM or TOKEN_2022_PROGRAM. */
  readonly tokenProgram: string;
  readonly decimals: number;
  readonly supply: bigint;
  /** null when revoked (fixed supply). */
  readonly mintAuthority: string | null;
  /** null when revoked (nobody can freeze holders). */
  readonly freezeAuthority: string | null;
  /** Token-2022 extensions, in account order; [] for the classic program. */
  readonly extensions: readonly MintExtension[];
  /** How the account data arrived. */
  readonly encoding: 'jsonParsed' | 'base64' | 'base58';
}

const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_MINT = 1;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function programName(owner: unknown): TokenProgramName | null {
  if (owner === TOKEN_PROGRAM) return 'spl-token';
  if (owner === TOKEN_2022_PROGRAM) return 'spl-token-2022';
  return null;
}

function optionalAddress(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * `value`: the `result.value` of getAccountInfo, or one element of getMultipleAccounts'
 * `result.value` (null when the account does not exist).
 * Returns null for: a missing account, an account not owned by a token program, a token account /
 * multisig / anything else, or an uninitialized mint.
 * Throws TypeError only for data it cannot even read (e.g. base64+zstd, malformed base64).
 */
export function parseMintAccount(address: string, value: unknown): MintInfo | null {
  if (!isRecord(value)) return null;
  const program = programName(value.owner);
  if (program === null) return null;
  const tokenProgram = value.owner as string;
  const data = value.data;

  if (isRecord(data)) {
    const parsed = data.parsed;
    if (!isRecord(parsed) || parsed.type !== 'mint' || !isRecord(parsed.info)) return null;
    const info = parsed.info;
    if (info.isInitialized === false) return null;
    const decimals = Number(info.decimals);
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) return null;
    const extensions = Array.isArray(info.extensions)
      ? info.extensions.filter(isRecord).map((e): MintExtension => {
          const name = typeof e.extension === 'string' ? e.extension : 'unparseableExtension';
          return isRecord(e.state) ? { extension: name, state: e.state } : { extension: name };
        })
      : [];
    return {
      address,
      program,
      tokenProgram,
      decimals,
      supply: big(info.supply),
      mintAuthority: optionalAddress(info.mintAuthority),
      freezeAuthority: optionalAddress(info.freezeAuthority),
      extensions,
      encoding: 'jsonParsed',
    };
  }

  let bytes: Uint8Array;
  let encoding: 'base64' | 'base58';
  if (typeof data === 'string') {
    encoding = 'base58';
    bytes = decodeRaw(data, 'base58');
  } else if (Array.isArray(data) && typeof data[0] === 'string' && (data[1] === 'base64' || data[1] === 'base58')) {
    encoding = data[1];
    bytes = decodeRaw(data[0], data[1]);
  } else if (Array.isArray(data)) {
    throw new TypeError(`unsupported account data encoding: ${String(data[1])}`);
  } else {
    return null;
  }
  return decodeRawMint(address, program, tokenProgram, bytes, encoding);
}

function decodeRaw(text: string, encoding: 'base64' | 'base58'): Uint8Array {
  try {
    return new Uint8Array(encoding === 'base64' ? getBase64Encoder().encode(text) : getBase58Encoder().encode(text));
  } catch (cause) {
    throw new TypeError(`account data is not valid ${encoding}`, { cause });
  }
}

function decodeRawMint(
  address: string,
  program: TokenProgramName,
  tokenProgram: string,
  bytes: Uint8Array,
  encoding: 'base64' | 'base58',
): MintInfo | null {
  if (program === 'spl-token') {
    if (bytes.length !== MINT_SIZE) return null; // 165 = token account, 355 = multisig
  } else if (bytes.length !== MINT_SIZE) {
    // Token-2022 with extensions: base mint, zero padding up to 165, account-type byte, TLV entries.
    if (bytes.length <= TOKEN_ACCOUNT_SIZE || bytes[TOKEN_ACCOUNT_SIZE] !== ACCOUNT_TYPE_MINT) return null;
    if (bytes.subarray(MINT_SIZE, TOKEN_ACCOUNT_SIZE).some((b) => b !== 0)) return null;
  }
  const base = getMintDecoder().decode(bytes.subarray(0, MINT_SIZE));
  if (!base.isInitialized) return null;
  const extensions = bytes.length > MINT_SIZE ? decodeExtensions(bytes.subarray(TOKEN_ACCOUNT_SIZE + 1)) : [];
  return {
    address,
    program,
    tokenProgram,
    decimals: base.decimals,
    supply: base.supply,
    mintAuthority: unwrapOption(base.mintAuthority, () => null),
    freezeAuthority: unwrapOption(base.freezeAuthority, () => null),
    extensions,
    encoding,
  };
}

// ---------------------------------------------------------------------------------------------
// Token-2022 TLV extensions (type u16 LE, length u16 LE, value). Mint-side extension type ids and
// their jsonParsed names (agave account-decoder UiExtension, camelCase).
const EXTENSION_NAMES: Readonly<Record<number, string>> = {
  1: 'transferFeeConfig',
  3: 'mintCloseAuthority',
  4: 'confidentialTransferMint',
  6: 'defaultAccountState',
  9: 'nonTransferable',
  10: 'interestBearingConfig',
  12: 'permanentDelegate',
  14: 'transferHook',
  16: 'confidentialTransferFeeConfig',
  18: 'metadataPointer',
  19: 'tokenMetadata',
  20: 'groupPointer',
  21: 'tokenGroup',
  22: 'groupMemberPointer',
  23: 'tokenGroupMember',
  24: 'confidentialMintBurn',
  25: 'scaledUiAmountConfig',
  26: 'pausableConfig',
  28: 'permissionedBurnConfig',
};

class Reader {
  private offset = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  /** OptionalNonZeroPubkey: all-zero means None. */
  key(): string | null {
    const slice = this.take(32);
    return slice.every((b) => b === 0) ? null : getBase58Decoder().decode(slice);
  }
  /** Like jsonParsed: null when all zero, else base64. */
  blob(length: number): string | null {
    const slice = this.take(length);
    return slice.every((b) => b === 0) ? null : getBase64Decoder().decode(slice);
  }
  u8(): number {
    return this.take(1)[0] as number;
  }
  bool(): boolean {
    return this.u8() !== 0;
  }
  u16(): number {
    return this.view.getUint16(this.advance(2), true);
  }
  i16(): number {
    return this.view.getInt16(this.advance(2), true);
  }
  u32(): number {
    return this.view.getUint32(this.advance(4), true);
  }
  /** u64 as parseJson would give it: number when safe, else bigint. */
  u64(): number | bigint {
    return jsonInteger(this.view.getBigUint64(this.advance(8), true));
  }
  i64(): number | bigint {
    return jsonInteger(this.view.getBigInt64(this.advance(8), true));
  }
  f64(): number {
    return this.view.getFloat64(this.advance(8), true);
  }
  string(): string {
    const length = this.u32();
    return new TextDecoder().decode(this.take(length));
  }
  done(): boolean {
    return this.offset === this.bytes.length;
  }
  private advance(n: number): number {
    const at = this.offset;
    if (at + n > this.bytes.length) throw new RangeError('extension data too short');
    this.offset += n;
    return at;
  }
  private take(n: number): Uint8Array {
    const at = this.advance(n);
    return this.bytes.subarray(at, at + n);
  }
}

function jsonInteger(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const;

type StateDecoder = (r: Reader) => Record<string, unknown>;

function transferFee(r: Reader): Record<string, unknown> {
  const epoch = r.u64();
  const maximumFee = r.u64();
  const transferFeeBasisPoints = r.u16();
  return { epoch, maximumFee, transferFeeBasisPoints };
}

// Fixed layouts from spl-token-2022 (Pod structs, little-endian).
const STATE_DECODERS: Readonly<Record<string, StateDecoder>> = {
  transferFeeConfig: (r) => {
    const transferFeeConfigAuthority = r.key();
    const withdrawWithheldAuthority = r.key();
    const withheldAmount = r.u64();
    const olderTransferFee = transferFee(r);
    const newerTransferFee = transferFee(r);
    return { transferFeeConfigAuthority, withdrawWithheldAuthority, withheldAmount, olderTransferFee, newerTransferFee };
  },
  mintCloseAuthority: (r) => ({ closeAuthority: r.key() }),
  confidentialTransferMint: (r) => {
    const authority = r.key();
    const autoApproveNewAccounts = r.bool();
    const auditorElgamalPubkey = r.blob(32);
    return { authority, autoApproveNewAccounts, auditorElgamalPubkey };
  },
  defaultAccountState: (r) => ({ accountState: ACCOUNT_STATES[r.u8()] ?? 'unknown' }),
  nonTransferable: () => ({}),
  interestBearingConfig: (r) => {
    const rateAuthority = r.key();
    const initializationTimestamp = r.i64();
    const preUpdateAverageRate = r.i16();
    const lastUpdateTimestamp = r.i64();
    const currentRate = r.i16();
    return { rateAuthority, initializationTimestamp, preUpdateAverageRate, lastUpdateTimestamp, currentRate };
  },
  permanentDelegate: (r) => ({ delegate: r.key() }),
  transferHook: (r) => {
    const authority = r.key();
    const programId = r.key();
    return { authority, programId };
  },
  confidentialTransferFeeConfig: (r) => {
    const authority = r.key();
    const withdrawWithheldAuthorityElgamalPubkey = r.blob(32);
    const harvestToMintEnabled = r.bool();
    const withheldAmount = r.blob(64);
    return { authority, withdrawWithheldAuthorityElgamalPubkey, harvestToMintEnabled, withheldAmount };
  },
  metadataPointer: (r) => {
    const authority = r.key();
    const metadataAddress = r.key();
    return { authority, metadataAddress };
  },
  tokenMetadata: (r) => {
    const updateAuthority = r.key();
    const mint = r.key();
    const name = r.string();
    const symbol = r.string();
    const uri = r.string();
    const count = r.u32();
    const additionalMetadata: [string, string][] = [];
    for (let i = 0; i < count; i++) additionalMetadata.push([r.string(), r.string()]);
    return { updateAuthority, mint, name, symbol, uri, additionalMetadata };
  },
  groupPointer: (r) => {
    const authority = r.key();
    const groupAddress = r.key();
    return { authority, groupAddress };
  },
  tokenGroup: (r) => {
    const updateAuthority = r.key();
    const mint = r.key();
    const size = r.u64();
    const maxSize = r.u64();
    return { updateAuthority, mint, size, maxSize };
  },
  groupMemberPointer: (r) => {
    const authority = r.key();
    const memberAddress = r.key();
    return { authority, memberAddress };
  },
  tokenGroupMember: (r) => {
    const mint = r.key();
    const group = r.key();
    const memberNumber = r.u64();
    return { mint, group, memberNumber };
  },
  scaledUiAmountConfig: (r) => {
    const authority = r.key();
    const multiplier = String(r.f64());
    const newMultiplierEffectiveTimestamp = r.i64();
    const newMultiplier = String(r.f64());
    return { authority, multiplier, newMultiplierEffectiveTimestamp, newMultiplier };
  },
  pausableConfig: (r) => {
    const authority = r.key();
    const paused = r.bool();
    return { authority, paused };
  },
  permissionedBurnConfig: (r) => ({ authority: r.key() }),
};

function decodeExtensions(tlv: Uint8Array): MintExtension[] {
  const out: MintExtension[] = [];
  const view = new DataView(tlv.buffer, tlv.byteOffset, tlv.byteLength);
  let offset = 0;
  while (offset + 4 <= tlv.length) {
    const type = view.getUint16(offset, true);
    if (type === 0) break; // Uninitialized: padding, no more entries
    const length = view.getUint16(offset + 2, true);
    const start = offset + 4;
    if (start + length > tlv.length) {
      out.push({ extension: 'unparseableExtension', state: { extensionType: type } });
      break;
    }
    out.push(decodeExtension(type, tlv.subarray(start, start + length)));
    offset = start + length;
  }
  return out;
}

function decodeExtension(type: number, value: Uint8Array): MintExtension {
  const name = EXTENSION_NAMES[type];
  if (name === undefined) return { extension: 'unparseableExtension', state: { extensionType: type } };
  const decoder = STATE_DECODERS[name];
  // Known, but state not decoded here (confidentialMintBurn: ciphertexts only) or a marker.
  if (decoder === undefined || name === 'nonTransferable') return { extension: name };
  try {
    const reader = new Reader(value);
    const state = decoder(reader);
    // Fixed-size extensions must match their length exactly (as the node's pod_from_bytes does).
    if (name !== 'tokenMetadata' && !reader.done()) throw new RangeError('extension length mismatch');
    return { extension: name, state };
  } catch {
    return { extension: 'unparseableExtension', state: { extensionType: type } };
  }
}

/** The named extension of a mint, if present. */
export function findExtension(mint: MintInfo, name: string): MintExtension | undefined {
  return mint.extensions.find((e) => e.extension === name);
}
