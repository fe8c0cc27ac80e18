// x402 on the sandbox chain: a fee-payer keypair file, the gateway's settings, funded client
// wallets (USDC through the sandbox's documented sandboxMintTo) and the official client
// (@x402/fetch with @x402/svm's exact client schemes, pointed at the sandbox's RPC).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ed from '@noble/ed25519';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  createKeyPairSignerFromBytes,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { expect } from 'bun:test';
import { isPaymentRequired } from '@x402/core/schemas';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { x402Client } from '@x402/core/client';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme as registerFacilitatorScheme } from '@x402/svm/exact/facilitator';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { ExactSvmSchemeV1 } from '@x402/svm/exact/v1/client';
import type { Config } from '../../src/config.ts';
import { LAMPORTS_PER_SOL, type Sandbox } from './sandbox/index.ts';
import { USDC_MINT } from './sandbox/constants.ts';
import type { HeldPayment } from '../../src/billing/store.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

export { USDC_MINT };
export const USDC = address(USDC_MINT);

/** A fresh keypair written as the Solana CLI writes one (a JSON array of the 64 secret-key bytes). */
export async function keypairFile(dir: string, name = 'fee-payer.json'): Promise<{ path: string; signer: KeyPairSigner; bytes: Uint8Array }> {
  const seed = ed.utils.randomSecretKey();
  const bytes = new Uint8Array([...seed, ...(await ed.getPublicKeyAsync(seed))]);
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify([...bytes]));
  return { path, signer: await createKeyPairSignerFromBytes(bytes), bytes };
}

/** JSON-RPC to the sandbox; throws on a JSON-RPC error. */
export async function sandboxRpc<T = unknown>(chain: Pick<Sandbox, 'url'>, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result as T;
}

/** Mints raw USDC units to the owner's associated token account (created if needed). */
export const mintUsdc = (chain: Pick<Sandbox, 'url'>, owner: Address, raw: bigint) => sandboxRpc<string>(chain, 'sandboxMintTo', [owner, USDC_MINT, raw.toString()]);

export async function usdcAccount(owner: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
}

/** The owner's USDC in raw units (0 when it has no account). */
export async function usdcOf(chain: Pick<Sandbox, 'url'>, owner: Address): Promise<bigint> {
  const rpc = createSolanaRpc(chain.url);
  const ata = await usdcAccount(owner);
  const acc = await rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
  if (!acc.value) return 0n;
  try {
    return BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount);
  } catch {
    return 0n;
  }
}

export const solOf = async (chain: Pick<Sandbox, 'url'>, owner: Address) => (await createSolanaRpc(chain.url).getBalance(owner).send()).value;

export interface X402World {
  feePayer: KeyPairSigner;
  /** The owner paid into (GATEWAY_ADDRESS). */
  payTo: Address;
  settings: Partial<Config>;
}

/** A fee payer with SOL, a pay-to owner with a USDC account, and the gateway settings that use them. */
export async function x402World(chain: Sandbox, dir: string, price = 10_000): Promise<X402World> {
  const key = await keypairFile(dir);
  await chain.transferSol(chain.payer, key.signer.address, LAMPORTS_PER_SOL);
  const owner = await chain.newWallet(LAMPORTS_PER_SOL / 10n);
  await chain.createAta(owner.address, USDC);
  return { feePayer: key.signer, payTo: owner.address, settings: { gatewayAddress: owner.address, x402Price: price, x402FeePayerKeypair: key.path, x402SettleSeconds: 5 } };
}

/** A wallet with SOL for nothing in particular (the fee payer pays) and `usdc` raw units. */
export async function payer(chain: Sandbox, usdc: bigint): Promise<KeyPairSigner> {
  const wallet = await chain.newWallet(LAMPORTS_PER_SOL / 100n);
  await mintUsdc(chain, wallet.address, usdc);
  return wallet;
}

/**
 * The official x402 client: both versions' exact schemes, reading the sandbox for blockhash and
 * mint. `v2Only`: version 2's alone, as @x402/mcp's client registers by default.
 */
export function x402ClientOf(wallet: KeyPairSigner, chain: Pick<Sandbox, 'url'>, opts: { v2Only?: boolean } = {}): x402Client {
  const rpcUrl = chain.url;
  const v2 = new x402Client().register('solana:*', new ExactSvmScheme(wallet, { rpcUrl }));
  return opts.v2Only ? v2 : v2.registerV1('solana', new ExactSvmSchemeV1(wallet, { rpcUrl })).registerV1('solana-devnet', new ExactSvmSchemeV1(wallet, { rpcUrl }));
}

/**
 * The PaymentRequired of a tool's error result, read as @x402/mcp's client reads it: from
 * structuredContent when that passes @x402/core's schema, else from JSON.parse(content[0].text);
 * null when neither holds one.
 */
export function paymentRequiredOf(answer: unknown): PaymentRequired | null {
  const result = answer as { isError?: boolean; structuredContent?: unknown; content?: { type: string; text?: string }[] };
  if (!result.isError) return null;
  if (result.structuredContent && isPaymentRequired(result.structuredContent)) return result.structuredContent as PaymentRequired;
  const first = result.content?.[0];
  if (first?.type !== 'text' || first.text === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(first.text);
    return isPaymentRequired(parsed) ? (parsed as PaymentRequired) : null;
  } catch {
    return null;
  }
}

/** An offer's bazaar extension passes @x402/extensions' own checks (schema and spec) and declares `input` (a subset) and an output example. */
export function expectBazaar(offer: PaymentRequired, input: Record<string, unknown>): void {
  const bazaar = offer.extensions?.bazaar as DiscoveryExtension | undefined;
  expect(bazaar).toBeDefined();
  expect(validateDiscoveryExtension(bazaar!)).toEqual({ valid: true });
  expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });
  expect(bazaar!.info.input).toMatchObject(input);
  expect(bazaar!.info.output).toMatchObject({ type: 'json', example: expect.any(Object) });
}

/**
 * fetch that pays with x402. `v1`: the client sees no PAYMENT-REQUIRED header, so it reads the v1
 * offer in the 402 body and pays with X-PAYMENT, as a version 1 client does.
 */
export function payingFetch(wallet: KeyPairSigner, chain: Sandbox, opts: { v1?: boolean } = {}): typeof fetch {
  const base: typeof fetch = opts.v1
    ? (async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await fetch(input, init);
        if (res.status !== 402) return res;
        const headers = new Headers(res.headers);
        headers.delete('payment-required');
        return new Response(await res.text(), { status: 402, headers });
      }) as typeof fetch
    : fetch;
  return wrapFetchWithPayment(base, x402ClientOf(wallet, chain)) as typeof fetch;
}

export interface Craft {
  /** The offer's requirements (version 2's, as PAYMENT-REQUIRED carries them). */
  accepted: PaymentRequirements;
  from: KeyPairSigner;
  amount?: bigint;
  mint?: Address;
  /** Owner of the destination token account (default: the offer's payTo). */
  to?: Address;
  /** Source token account (default: the authority's associated account of the mint). */
  source?: Address;
  /** The transfer's authority (default: `from`; an address: left unsigned). */
  authority?: Address;
  computeUnitPrice?: bigint;
  blockhash?: string;
  extra?: Instruction[];
  /** Network named in the payload (default: the offer's). */
  network?: string;
  version?: 1 | 2;
}

/**
 * A payment transaction built by hand, shaped like @x402/svm's exact client (compute limit, compute
 * price, TransferChecked, memo), with any one part changed: what a hostile client could send.
 * Returns the header value (base64 JSON of the payment payload).
 */
export async function craftPayment(chain: Sandbox, c: Craft): Promise<string> {
  const mint = c.mint ?? address(c.accepted.asset);
  const authority = c.authority ? createNoopSigner(c.authority) : c.from;
  const source = c.source ?? (await findAssociatedTokenPda({ owner: authority.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const destination = (await findAssociatedTokenPda({ owner: c.to ?? address(c.accepted.payTo), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const latest = await sandboxRpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(chain, 'getLatestBlockhash', []);
  const memo: Instruction = { programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), data: new TextEncoder().encode(crypto.randomUUID()) };
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(c.accepted.extra.feePayer as string), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(c.blockhash ?? latest.value.blockhash), lastValidBlockHeight: BigInt(latest.value.lastValidBlockHeight) }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getSetComputeUnitLimitInstruction({ units: 20_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: c.computeUnitPrice ?? 1n }),
          getTransferCheckedInstruction({ source, mint, destination, authority, amount: c.amount ?? BigInt(c.accepted.amount), decimals: 6 }),
          memo,
          ...(c.extra ?? []),
        ],
        m,
      ),
  );
  const transaction = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
  const payload =
    c.version === 1
      ? { x402Version: 1, scheme: 'exact', network: c.network ?? 'solana', payload: { transaction } }
      : { x402Version: 2, accepted: { ...c.accepted, network: c.network ?? c.accepted.network }, payload: { transaction } };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

/**
 * An external facilitator on loopback, as a third party would run one: @x402/core's facilitator
 * with @x402/svm's exact scheme, its own fee payer, reading the sandbox; the standard /verify,
 * /settle and /supported, under any path prefix. `calls` counts the requests by endpoint. `port`: a fixed one (a facilitator
 * brought back where it was); else a free one.
 */
export async function startFacilitator(chain: Sandbox, feePayer: KeyPairSigner, port = 0): Promise<{ url: string; port: number; calls: Record<string, number>; stop(): Promise<void> }> {
  const facilitator = registerFacilitatorScheme(new x402Facilitator(), { signer: toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: chain.url }), networks: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' });
  const calls: Record<string, number> = {};
  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(req) {
      const full = new URL(req.url).pathname;
      const path = full.slice(full.lastIndexOf('/'));
      calls[path] = (calls[path] ?? 0) + 1;
      if (path === '/supported') return Response.json(facilitator.getSupported());
      const { paymentPayload, paymentRequirements } = (await req.json()) as { paymentPayload: never; paymentRequirements: never };
      if (path === '/verify') return Response.json(await facilitator.verify(paymentPayload, paymentRequirements));
      if (path === '/settle') return Response.json(await facilitator.settle(paymentPayload, paymentRequirements));
      return new Response('not found', { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, port: server.port!, calls, stop: () => server.stop(true) };
}

/** An x402 payment as the store records it, for store-level tests: `txKey` names its transaction. */
export const heldPayment = (txKey: string, callId = newCallId()): HeldPayment => ({
  txKey,
  network: 'mainnet-beta',
  payer: 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg',
  asset: USDC_MINT,
  amount: 10_000,
  payTo: '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H',
  capability: 'find-ata',
  face: 'rest',
  callId,
});
