// Instruction encoding for the AMM programs the sandbox runs from their real binaries: Anchor discriminators,
// little-endian Borsh fields, program-derived addresses and account metas, written from each program's IDL.

import { createHash } from 'node:crypto';
import { AccountRole, getAddressEncoder, getProgramDerivedAddress, isAddress, type AccountMeta, type Address, type KeyPairSigner } from '@solana/kit';

/** Anchor's instruction prefix: sha256("global:<name>")[0..8]. */
export function anchorIx(name: string): Uint8Array {
  return createHash('sha256').update(`global:${name}`).digest().subarray(0, 8);
}

/** Anchor's account prefix: sha256("account:<Name>")[0..8]. */
export function anchorAccount(name: string): Uint8Array {
  return createHash('sha256').update(`account:${name}`).digest().subarray(0, 8);
}

/** A Borsh writer for the few field types these instructions use. */
export class Borsh {
  private readonly parts: Uint8Array[] = [];
  bytes(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
  private int(value: bigint, size: number): this {
    const out = new Uint8Array(size);
    let v = BigInt.asUintN(size * 8, value);
    for (let i = 0; i < size; i++, v >>= 8n) out[i] = Number(v & 0xffn);
    return this.bytes(out);
  }
  u8 = (v: number | bigint) => this.int(BigInt(v), 1);
  u16 = (v: number | bigint) => this.int(BigInt(v), 2);
  u32 = (v: number | bigint) => this.int(BigInt(v), 4);
  u64 = (v: number | bigint) => this.int(BigInt(v), 8);
  bool = (v: boolean) => this.u8(v ? 1 : 0);
  pubkey = (a: Address) => this.bytes(new Uint8Array(getAddressEncoder().encode(a)));
  done(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

const enc = getAddressEncoder();
/** The program-derived address for string and address seeds. */
export async function pda(program: Address, seeds: (string | Address | Uint8Array)[]): Promise<Address> {
  const bytes = seeds.map((s) => (s instanceof Uint8Array ? s : isAddress(s) ? enc.encode(s) : new TextEncoder().encode(s)));
  const [found] = await getProgramDerivedAddress({ programAddress: program, seeds: bytes });
  return found;
}

/** The larger / smaller of two addresses by their bytes (pool seeds order mints this way). */
export function byteOrder(a: Address, b: Address): [Address, Address] {
  return Buffer.compare(Buffer.from(enc.encode(a)), Buffer.from(enc.encode(b))) > 0 ? [a, b] : [b, a];
}

export const w = (address: Address): AccountMeta => ({ address, role: AccountRole.WRITABLE });
export const r = (address: Address): AccountMeta => ({ address, role: AccountRole.READONLY });
export const ws = (signer: KeyPairSigner) => ({ address: signer.address, role: AccountRole.WRITABLE_SIGNER, signer });
export const rs = (signer: KeyPairSigner) => ({ address: signer.address, role: AccountRole.READONLY_SIGNER, signer });
