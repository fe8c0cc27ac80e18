// Helpers for tests that talk to a sandbox (or any JSON-RPC endpoint) below the @solana/kit layer.

import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson, toJson } from '../../../src/json.ts';

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed body (u64 beyond 2^53 kept as bigint), or undefined when it is not JSON */
  body: { result?: unknown; error?: { code: number; message: string; data?: unknown }; id?: unknown } | undefined;
}

/** POST a JSON-RPC request (or a batch, when `method` is an array of [method, params]) and return the raw reply. */
export async function rawRpc(url: string, method: string | [string, unknown[]][], params: unknown[] = [], signal?: AbortSignal): Promise<RawReply> {
  const payload = Array.isArray(method)
    ? method.map(([m, p], i) => ({ jsonrpc: '2.0', id: i + 1, method: m, params: p }))
    : { jsonrpc: '2.0', id: 1, method, params };
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: toJson(payload), signal });
  const text = await res.text();
  let body: RawReply['body'];
  try {
    body = parseJson(text) as RawReply['body'];
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** The `result` of a raw call; throws with the JSON-RPC error otherwise. */
export async function rawResult<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await rawRpc(url, method, params);
  if (!r.body || r.body.error) throw new Error(`${method}: ${r.text}`);
  return r.body.result as T;
}

/**
 * A signed v0 transaction built by hand, as a client would: the node's latest blockhash (read over
 * RPC) unless `blockhash` names another one, to test stale or unknown blockhashes.
 */
export async function signedTransaction(url: string, feePayer: KeyPairSigner, ixs: Instruction[], blockhash?: string) {
  const latest = (await createSolanaRpc(url).getLatestBlockhash().send()).value;
  const lifetime = blockhash ? { blockhash: blockhash as Blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } : latest;
  return signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(ixs, m),
    ),
  );
}

/**
 * SOL transfers as a client outside the sandbox's process makes them: signed, sent over JSON-RPC
 * with preflight, and returned once the node reports them landed.
 */
export function transfersOverRpc(url: string) {
  const rpc = createSolanaRpc(url);
  return {
    async transferSol(from: KeyPairSigner, to: Address, lamports: bigint): Promise<string> {
      const tx = await signedTransaction(url, from, [getTransferSolInstruction({ source: from, destination: to, amount: lamports })]);
      const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send();
      for (let i = 0; i < 100; i++) {
        const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
        if (status?.err) throw new Error(`transfer ${signature} failed: ${toJson(status.err)}`);
        if (status) return signature;
        await Bun.sleep(50);
      }
      throw new Error(`transfer ${signature} did not land within 5 s`);
    },
  };
}

const FIXTURES = join(import.meta.dir, '..', '..', 'fixtures', 'mainnet');

/** A recorded mainnet `result` (tests/fixtures/mainnet/<dir>/<file>). */
export function fixture<T = unknown>(dir: string, file?: string): T {
  const name = file ?? readdirSync(join(FIXTURES, dir)).filter((f) => f.endsWith('.json')).sort()[0]!;
  return parseJson(readFileSync(join(FIXTURES, dir, name), 'utf8')) as T;
}

/** Sorted keys of an object, for comparing shapes with fixtures. */
export function keys(value: unknown, omit: string[] = []): string[] {
  return Object.keys(value as object)
    .filter((k) => !omit.includes(k))
    .sort();
}

/** JSON type names ('number' covers bigint) for comparing shapes with fixtures. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'number';
  return typeof value;
}

/** Deep copy with bigints that fit in a double turned into numbers (kit returns every integer as bigint). */
export function plain<T = unknown>(value: unknown): T {
  if (typeof value === 'bigint') return (value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value) as T;
  if (Array.isArray(value)) return value.map((v) => plain(v)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)])) as T;
  return value as T;
}
