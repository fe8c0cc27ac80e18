// Wire-format transactions: decoding, sanitizing and signature checks, with mainnet's error texts.

import { createPublicKey, verify } from 'node:crypto';
import { base58, base64 } from '@scure/base';
import { RpcError, invalidParams } from './errors.ts';

export const b58 = (bytes: Uint8Array): string => base58.encode(bytes);
export const b64 = (bytes: Uint8Array): string => base64.encode(bytes);
export const fromB64 = (s: string): Uint8Array => base64.decode(s);

export interface CompiledIx {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface Lookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface Header {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface WireTx {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  /** base58 of the first signature: the transaction id. */
  signature: string;
  messageBytes: Uint8Array;
  version: 'legacy' | 0;
  header: Header;
  staticKeys: string[];
  recentBlockhash: string;
  instructions: CompiledIx[];
  lookups: Lookup[];
}

/** A JSON-RPC -32602 for bytes bincode cannot turn into a VersionedTransaction. */
export const TX_TYPE_NAME = 'solana_transaction::versioned::VersionedTransaction';
const PACKET_DATA_SIZE = 1232;
const MAX_BASE58_SIZE = 1683;
const MAX_BASE64_SIZE = 1644;

class Reader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  get offset() {
    return this.pos;
  }
  u8(): number {
    if (this.pos >= this.buf.length) throw new Error('io error: unexpected end of file');
    return this.buf[this.pos++]!;
  }
  peek(): number {
    if (this.pos >= this.buf.length) throw new Error('io error: unexpected end of file');
    return this.buf[this.pos]!;
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error('io error: unexpected end of file');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  shortVec(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.u8();
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) {
        if (i > 0 && b === 0) throw new Error('invalid value: continue signal on byte-three, expected a terminal signal');
        return value;
      }
    }
    throw new Error('invalid value: overflow, expected a ShortU16');
  }
}

/** Decode the RPC's `encoding` param's string into bytes, with mainnet's error messages. */
export function decodeWire(encoded: unknown, encoding: unknown): Uint8Array {
  if (typeof encoded !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
  const enc = encoding ?? 'base58';
  let bytes: Uint8Array;
  if (enc === 'base58') {
    if (encoded.length > MAX_BASE58_SIZE)
      throw invalidParams(`base58 encoded ${TX_TYPE_NAME} too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE58_SIZE}/${PACKET_DATA_SIZE})`);
    try {
      bytes = base58.decode(encoded);
    } catch {
      const bad = [...encoded].findIndex((c) => !/[1-9A-HJ-NP-Za-km-z]/.test(c));
      throw invalidParams(`invalid base58 encoding: InvalidCharacter { character: '${encoded[bad] ?? '?'}', index: ${Math.max(bad, 0)} }`);
    }
  } else if (enc === 'base64') {
    if (encoded.length > MAX_BASE64_SIZE)
      throw invalidParams(`base64 encoded ${TX_TYPE_NAME} too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE64_SIZE}/${PACKET_DATA_SIZE})`);
    try {
      bytes = base64.decode(encoded);
    } catch {
      const bad = [...encoded].findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
      throw invalidParams(bad >= 0 ? `invalid base64 encoding: InvalidByte(${bad}, ${encoded.charCodeAt(bad)})` : 'invalid base64 encoding: InvalidPadding');
    }
  } else {
    throw invalidParams(`Invalid params: unknown variant \`${String(enc)}\`, expected \`base58\` or \`base64\`.`);
  }
  if (bytes.length > PACKET_DATA_SIZE)
    throw invalidParams(`decoded ${TX_TYPE_NAME} too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  return bytes;
}

/** Parse a wire transaction; a malformed one throws the -32602 mainnet sends for it. */
export function parseWireTx(bytes: Uint8Array): WireTx {
  try {
    return parse(bytes);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw invalidParams(`failed to deserialize ${TX_TYPE_NAME}: ${(e as Error).message}`);
  }
}

function parse(bytes: Uint8Array): WireTx {
  const r = new Reader(bytes);
  const nsig = r.shortVec();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < nsig; i++) signatures.push(r.bytes(64));
  const messageStart = r.offset;
  let version: 'legacy' | 0 = 'legacy';
  if (r.peek() & 0x80) {
    const v = r.u8() & 0x7f;
    if (v !== 0) throw new Error(`invalid value: integer \`${v}\`, expected a valid transaction message version`);
    version = 0;
  }
  const header: Header = { numRequiredSignatures: r.u8(), numReadonlySignedAccounts: r.u8(), numReadonlyUnsignedAccounts: r.u8() };
  const nkeys = r.shortVec();
  const staticKeys: string[] = [];
  for (let i = 0; i < nkeys; i++) staticKeys.push(b58(r.bytes(32)));
  const recentBlockhash = b58(r.bytes(32));
  const nix = r.shortVec();
  const instructions: CompiledIx[] = [];
  for (let i = 0; i < nix; i++) {
    const programIdIndex = r.u8();
    const na = r.shortVec();
    const accounts = [...r.bytes(na)];
    const nd = r.shortVec();
    instructions.push({ programIdIndex, accounts, data: r.bytes(nd).slice() });
  }
  const lookups: Lookup[] = [];
  if (version === 0) {
    const nl = r.shortVec();
    for (let i = 0; i < nl; i++) {
      const accountKey = b58(r.bytes(32));
      const writableIndexes = [...r.bytes(r.shortVec())];
      const readonlyIndexes = [...r.bytes(r.shortVec())];
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  const messageBytes = bytes.slice(messageStart, r.offset);
  const wireBytes = bytes.slice(0, r.offset); // bincode allows trailing bytes; they are not part of the transaction
  return {
    bytes: wireBytes,
    signatures,
    signature: b58(signatures[0] ?? new Uint8Array(64)),
    messageBytes,
    version,
    header,
    staticKeys,
    recentBlockhash,
    instructions,
    lookups,
  };
}

const sanitizeFailure = () => invalidParams('invalid transaction: Transaction failed to sanitize accounts offsets correctly');

/** Agave's Message/Transaction sanitize + duplicate-key check, as `sanitize_transaction` reports them. */
export function sanitize(tx: WireTx): void {
  const { header, staticKeys, instructions, lookups, signatures } = tx;
  if (signatures.length !== header.numRequiredSignatures) throw sanitizeFailure();
  if (header.numRequiredSignatures === 0 || header.numRequiredSignatures > staticKeys.length) throw sanitizeFailure();
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) throw sanitizeFailure();
  if (header.numReadonlyUnsignedAccounts + header.numRequiredSignatures > staticKeys.length) throw sanitizeFailure();
  const numLoaded = lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  for (const l of lookups) if (l.writableIndexes.length + l.readonlyIndexes.length === 0) throw sanitizeFailure();
  const total = staticKeys.length + numLoaded;
  if (total > 256) throw sanitizeFailure();
  for (const ix of instructions) {
    // program ids must be static keys and never the fee payer
    if (ix.programIdIndex === 0 || ix.programIdIndex >= staticKeys.length) throw sanitizeFailure();
    for (const a of ix.accounts) if (a >= total) throw sanitizeFailure();
  }
  if (new Set(staticKeys).size !== staticKeys.length) throw invalidParams('invalid transaction: Account loaded twice');
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Verify every required signature over the message bytes (ed25519, synchronous). */
export function verifySignatures(tx: WireTx): boolean {
  for (let i = 0; i < tx.header.numRequiredSignatures; i++) {
    const sig = tx.signatures[i];
    const key = tx.staticKeys[i];
    if (!sig || !key) return false;
    try {
      const pub = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, base58.decode(key)]), format: 'der', type: 'spki' });
      if (!verify(null, tx.messageBytes, pub, sig)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Whether static key `i` is writable per the header (before demotion of programs and reserved accounts). */
export function isStaticWritable(tx: WireTx, i: number): boolean {
  const { numRequiredSignatures: ns, numReadonlySignedAccounts: rs, numReadonlyUnsignedAccounts: ru } = tx.header;
  if (i < ns) return i < ns - rs;
  return i < tx.staticKeys.length - ru;
}

/** Parse an address param like Agave's verify_pubkey: "Invalid param: Invalid" / "Invalid param: WrongSize". */
export function parsePubkey(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
  if (value.length > 44) throw invalidParams('Invalid param: WrongSize');
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(value);
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw invalidParams('Invalid param: WrongSize');
  return value;
}

/** Parse a signature param like Agave's verify_signature. */
export function parseSignature(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
  if (value.length > 88) throw invalidParams('Invalid param: WrongSize');
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(value);
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (bytes.length !== 64) throw invalidParams('Invalid param: WrongSize');
  return value;
}

export function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}
export function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}
export function readU16(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint16(offset, true);
}
