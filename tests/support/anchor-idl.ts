// An Anchor IDL account as `anchor idl init` writes it: discriminator, authority, u32 length, zlib JSON.
import { deflateSync } from 'node:zlib';
import { getAddressEncoder, type Address } from '@solana/kit';
import { IDL_ACCOUNT_DISCRIMINATOR } from '../../src/chain/tx/idl.ts';

/** The account data for `json` (an IDL, or any bytes to publish as one); `length` overrides the stated length. */
export function idlAccountData(json: unknown, authority: Address, opts: { compressed?: Uint8Array; length?: number } = {}): Uint8Array {
  const body = opts.compressed ?? deflateSync(typeof json === 'string' ? json : JSON.stringify(json));
  const data = new Uint8Array(44 + body.length);
  data.set(IDL_ACCOUNT_DISCRIMINATOR, 0);
  data.set(getAddressEncoder().encode(authority), 8);
  new DataView(data.buffer).setUint32(40, opts.length ?? body.length, true);
  data.set(body, 44);
  return data;
}
