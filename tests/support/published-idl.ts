// IDLs as programs publish them on chain: an Anchor IDL account as `anchor idl init` writes it
// (discriminator, authority, u32 length, zlib JSON), and a Program Metadata "idl" entry as its CLI's
// `write idl` does (96-byte header, then the JSON, UTF-8, compressed).
import { deflateSync, gzipSync } from 'node:zlib';
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

/**
 * A canonical Program Metadata account holding `json` for `program` (layout: program-metadata
 * program/src/state/header.rs); `compression` 0 none, 1 gzip, 2 zlib (the CLI's default).
 */
export function programMetadataIdlData(program: Address, json: unknown, opts: { compression?: 0 | 1 | 2; format?: number } = {}): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const compression = opts.compression ?? 2;
  const body = compression === 0 ? text : compression === 1 ? gzipSync(text) : deflateSync(text);
  const data = new Uint8Array(96 + body.length);
  data[0] = 2; // metadata account
  data.set(getAddressEncoder().encode(program), 1);
  data[65] = 1; // mutable
  data[66] = 1; // canonical
  data.set(new TextEncoder().encode('idl'), 67);
  data.set([1, compression, opts.format ?? 1, 0], 83); // UTF-8, compression, JSON, data in the account
  new DataView(data.buffer).setUint32(87, body.length, true);
  data.set(body, 96);
  return data;
}
