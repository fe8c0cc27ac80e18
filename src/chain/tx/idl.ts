// IDLs published on chain (pure, but for the address derivation's hashing): where a program's IDL is, and
// the instruction names it gives. Two places: Anchor's IDL account, as Anchor's `idl` instructions write it
// (8-byte discriminator sha256("internal:IdlAccount"), 32-byte authority, u32 LE length, then that many bytes
// of zlib-compressed IDL JSON), and the Program Metadata program's canonical "idl" entry (a 96-byte header,
// then the data, compressed after UTF-8 encoding). Anything else (another owner, a bad discriminator, a
// length past the data, a bomb, JSON that is no Anchor IDL) is no IDL: the decoder falls back to what the
// instructions did.

import { createHash } from 'node:crypto';
import { gunzipSync, inflateSync } from 'node:zlib';
import { address, createAddressWithSeed, getAddressEncoder, getProgramDerivedAddress } from '@solana/kit';

export const IDL_SEED = 'anchor:idl';
export const IDL_ACCOUNT_DISCRIMINATOR: Uint8Array = new Uint8Array(createHash('sha256').update('internal:IdlAccount').digest().subarray(0, 8));
const HEADER_BYTES = 8 + 32 + 4;

/** Largest IDL account read (the compressed IDL of the biggest programs is a few tens of KiB). */
export const MAX_IDL_ACCOUNT_BYTES = 256 * 1024;
/** Largest inflated IDL JSON accepted: a zip bomb stops here. */
export const MAX_IDL_JSON_BYTES = 4 * 1024 * 1024;
/** Instructions kept from one IDL. */
const MAX_INSTRUCTIONS = 512;
// Names reach summaries and llm_context: anything but an identifier (a newline, a sentence for an agent to
// obey) is not a name. Anchor's own instruction and program names are Rust identifiers.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const PROGRAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export interface IdlInstruction {
  /** Instruction data prefix that selects it (8 bytes for Anchor's own, any length an IDL states). */
  readonly discriminator: Uint8Array;
  /** snake_case, as the decoder's tables spell names. */
  readonly name: string;
}

export interface ProgramIdl {
  /** The IDL's program name (e.g. "openbook_twap"), when it states one. */
  readonly name: string | null;
  readonly instructions: readonly IdlInstruction[];
}

/** Programs' IDLs by program id, as the capability found them on chain. */
export type IdlDirectory = ReadonlyMap<string, ProgramIdl>;

/** createWithSeed(findProgramAddress([], program), "anchor:idl", program). */
export async function idlAddress(programId: string): Promise<string> {
  const programAddress = address(programId);
  const [base] = await getProgramDerivedAddress({ programAddress, seeds: [] });
  return createAddressWithSeed({ baseAddress: base, programAddress, seed: IDL_SEED });
}

export const PROGRAM_METADATA_PROGRAM = 'ProgM6JCCvbYkfKqJYHePx4xxSUSqJp7rh8Lyv7nk7S';
const METADATA_HEADER_BYTES = 96;
const METADATA_DISCRIMINATOR = 2;
const SEED_BYTES = 16;

/** The Program Metadata program's canonical (upgrade-authority) "idl" account: PDA of [program, "idl" padded to 16 bytes]. */
export async function metadataIdlAddress(programId: string): Promise<string> {
  const seed = new Uint8Array(SEED_BYTES);
  seed.set(new TextEncoder().encode('idl'));
  const [found] = await getProgramDerivedAddress({
    programAddress: address(PROGRAM_METADATA_PROGRAM),
    seeds: [getAddressEncoder().encode(address(programId)), seed],
  });
  return found;
}

/**
 * The IDL in a Program Metadata account: discriminator 2 (metadata), the program, canonical, data stored in
 * the account itself (data source 0), JSON (format 1), UTF-8 (encoding 1), uncompressed, gzip or zlib.
 */
export function parseMetadataIdlAccount(data: Uint8Array, programId: string): ProgramIdl | null {
  if (data.length < METADATA_HEADER_BYTES || data.length > MAX_IDL_ACCOUNT_BYTES || data[0] !== METADATA_DISCRIMINATOR) return null;
  const program = getAddressEncoder().encode(address(programId));
  if (!program.every((b, i) => data[1 + i] === b) || data[66] !== 1) return null;
  const [encoding, compression, format, source] = [data[83], data[84], data[85], data[86]];
  const length = new DataView(data.buffer, data.byteOffset + 87, 4).getUint32(0, true);
  if (encoding !== 1 || format !== 1 || source !== 0 || length === 0 || METADATA_HEADER_BYTES + length > data.length) return null;
  const body = data.subarray(METADATA_HEADER_BYTES, METADATA_HEADER_BYTES + length);
  try {
    const options = { maxOutputLength: MAX_IDL_JSON_BYTES };
    const text = compression === 0 ? body : compression === 1 ? gunzipSync(body, options) : compression === 2 ? inflateSync(body, options) : null;
    if (text === null || text.length > MAX_IDL_JSON_BYTES) return null;
    return programIdlFromJson(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(text)));
  } catch {
    return null;
  }
}

/** "getBestBidAndAsk" -> "get_best_bid_and_ask"; "initializeAMMPool" -> "initialize_amm_pool" (Anchor's own conversion). */
export function snakeCase(name: string): string {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

function anchorDiscriminator(snakeName: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`global:${snakeName}`).digest().subarray(0, 8));
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An IDL JSON's instruction list: Anchor >= 0.30 states each discriminator; older IDLs imply it from the name. */
export function programIdlFromJson(json: unknown): ProgramIdl | null {
  if (!isObj(json) || !Array.isArray(json.instructions)) return null;
  const instructions: IdlInstruction[] = [];
  for (const ix of json.instructions.slice(0, MAX_INSTRUCTIONS)) {
    if (!isObj(ix) || typeof ix.name !== 'string' || !IDENTIFIER.test(ix.name)) continue;
    const name = snakeCase(ix.name);
    const stated = ix.discriminator;
    if (stated === undefined) {
      instructions.push({ name, discriminator: anchorDiscriminator(name) });
    } else if (Array.isArray(stated) && stated.length > 0 && stated.length <= 32 && stated.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
      instructions.push({ name, discriminator: Uint8Array.from(stated as number[]) });
    }
  }
  if (instructions.length === 0) return null;
  const metadata = isObj(json.metadata) ? json.metadata : null;
  const name = typeof metadata?.name === 'string' ? metadata.name : typeof json.name === 'string' ? json.name : null;
  return { name: name && PROGRAM_NAME.test(name) ? name : null, instructions };
}

/** The IDL in an IDL account's data, or null when the account holds none this decoder will read. */
export function parseIdlAccount(data: Uint8Array): ProgramIdl | null {
  if (data.length < HEADER_BYTES || data.length > MAX_IDL_ACCOUNT_BYTES) return null;
  if (!IDL_ACCOUNT_DISCRIMINATOR.every((b, i) => data[i] === b)) return null;
  const length = new DataView(data.buffer, data.byteOffset + 40, 4).getUint32(0, true);
  if (length === 0 || HEADER_BYTES + length > data.length) return null;
  try {
    const text = inflateSync(data.subarray(HEADER_BYTES, HEADER_BYTES + length), { maxOutputLength: MAX_IDL_JSON_BYTES });
    return programIdlFromJson(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(text)));
  } catch {
    return null;
  }
}

/** The instruction an IDL names for this data (the longest matching discriminator), or null. */
export function idlInstructionName(idl: ProgramIdl, data: Uint8Array | null): string | null {
  if (!data) return null;
  let best: IdlInstruction | null = null;
  for (const ix of idl.instructions) {
    const d = ix.discriminator;
    if (d.length > data.length || (best && best.discriminator.length >= d.length)) continue;
    if (d.every((b, i) => data[i] === b)) best = ix;
  }
  return best?.name ?? null;
}
