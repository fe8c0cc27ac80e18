// x402 payments a hostile client would send, each refused with a clear reason while nothing moves:
// replays (in turn and 50 at once), wrong amounts, mint, destination, network, the fee payer as
// authority or source, an extra instruction, a compute-unit price over the bound, an unknown
// blockhash, broken encodings, and a payment attached to a call that then fails.
import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNoopSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { craftPayment, mintUsdc, payer, solOf, usdcAccount, usdcOf, x402World, USDC, USDC_MINT, type Craft, type X402World } from '../support/x402.ts';

const PRICE = 10_000;
const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-hostile-'));
let world: X402World;
let gw: TestGateway;
let accepted: PaymentRequirements;
let client: KeyPairSigner;

const findAta = (wallet: string) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC_MINT}`;
const paid = (header: string, path = findAta(client.address), name = 'payment-signature') => gw.get(path, { [name]: header });

/** Everyone's money whose movement would show a payment went through. */
async function balances() {
  const chain = sandbox.chain;
  return { client: await usdcOf(chain, client.address), gateway: await usdcOf(chain, world.payTo), feePayer: await solOf(chain, world.feePayer.address) };
}

/** The payment is refused with 402, a reason containing `reason`, the offer again, and no balance moves. */
async function refused(header: string, reason: string | RegExp, name?: string) {
  const before = await balances();
  const res = await paid(header, undefined, name);
  expect(res.status).toBe(402);
  expect(res.body).toMatchObject({ error: 'Payment required', code: 'x402_refused', x402Version: 1 });
  expect(res.body.reason).toMatch(reason);
  expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toMatch(reason);
  expect(res.headers.get('payment-response')).toBeNull();
  expect(await balances()).toEqual(before);
}

const craft = (c: Partial<Craft> = {}) => craftPayment(sandbox.chain, { accepted, from: client, ...c });

beforeAll(async () => {
  world = await x402World(sandbox.chain, dir, PRICE);
  gw = await sandbox.gateway(world.settings);
  const offer = await gw.get(findAta(world.payTo));
  accepted = decodePaymentRequiredHeader(offer.headers.get('payment-required')!).accepts[0]!;
  client = await payer(sandbox.chain, 1_000_000n);
});

describe('x402 refusals', () => {
  test('a well-formed payment built by hand is accepted (the shape the refusals below change one part of)', async () => {
    const before = await balances();
    const res = await paid(await craft());
    expect(res.status).toBe(200);
    expect((await balances()).client).toBe(before.client - BigInt(PRICE));
  });

  test('the same payment replayed in turn buys nothing more', async () => {
    const header = await craft();
    expect((await paid(header)).status).toBe(200);
    await refused(header, /payment_already_used/);
  });

  test('the same payment sent 50 times at once buys exactly one call', async () => {
    const header = await craft();
    const before = await balances();
    const answers = await Promise.all(Array.from({ length: 50 }, () => paid(header)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(49);
    const after = await balances();
    expect(after.client).toBe(before.client - BigInt(PRICE));
    expect(after.gateway).toBe(before.gateway + BigInt(PRICE));
  });

  test('one unit short, one unit over', async () => {
    await refused(await craft({ amount: BigInt(PRICE) - 1n }), /amount/);
    await refused(await craft({ amount: BigInt(PRICE) + 1n }), /amount/);
  });

  test('another mint', async () => {
    const other = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
    await sandbox.chain.mintTo(other, sandbox.chain.payer, client.address, 1_000_000n);
    await sandbox.chain.createAta(world.payTo, other);
    await refused(await craft({ mint: other }), /mint/);
  });

  test('another destination', async () => {
    const thief = (await sandbox.chain.newWallet(1_000_000n)).address;
    await sandbox.chain.createAta(thief, USDC);
    await refused(await craft({ to: thief }), /recipient/);
  });

  test('the fee payer as the transfer authority, or its token account as the source', async () => {
    const feePayer = world.feePayer.address;
    await mintUsdc(sandbox.chain, feePayer, 1_000_000n);
    await refused(await craft({ authority: feePayer }), /fee_payer/);
    await refused(await craft({ source: await usdcAccount(feePayer) }), /fee_payer_token_account/);
  });

  test('an extra instruction (a SOL transfer out of the fee payer)', async () => {
    const drain = getTransferSolInstruction({ source: createNoopSigner(world.feePayer.address), destination: client.address, amount: 1_000_000n });
    await refused(await craft({ extra: [drain] }), /fee_payer|instruction/);
    const harmless = getTransferSolInstruction({ source: client, destination: world.payTo, amount: 1n });
    await refused(await craft({ extra: [harmless] }), /instruction/);
  });

  test('a compute-unit price over the bound', async () => {
    await refused(await craft({ computeUnitPrice: BigInt(gw.config.x402MaxComputeUnitPrice) + 1n }), /price|priority/i);
  });

  test('a blockhash the cluster does not know (expired)', async () => {
    await refused(await craft({ blockhash: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' }), /simulation/i);
  });

  test('a devnet payment on a mainnet-beta gateway, in version 2 and version 1', async () => {
    await refused(await craft({ network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }), /network/);
    await refused(await craft({ version: 1, network: 'solana-devnet' }), /network/, 'x-payment');
  });

  test('broken base64, broken JSON, JSON that is no payment, a version 1 payload in the version 2 header', async () => {
    await refused('%%% not base64 %%%', /invalid_payment_header/);
    await refused(Buffer.from('{"x402Version": 2, "accepted": ').toString('base64'), /invalid_payment_header/);
    await refused(Buffer.from(JSON.stringify({ x402Version: 2, hello: 'world' })).toString('base64'), /invalid_payment_payload/);
    await refused(await craft({ version: 1 }), /invalid_payment_version/);
  });

  test('a payment on a call that fails costs nothing, is never submitted, and can pay for a later call', async () => {
    const header = await craft();
    const before = await balances();
    // Bad argument: refused before the payment is even looked at.
    const bad = await paid(header, '/api/chain/find-ata?wallet=nope&mint=x');
    expect(bad.status).toBe(400);
    // Runs and fails: a transaction the chain never saw.
    const missing = await paid(header, `/api/chain/decode-tx?signature=${'1'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('payment-response')).toBeNull();
    expect(await balances()).toEqual(before);
    // Never submitted, so still good for one call.
    expect((await paid(header)).status).toBe(200);
    expect((await balances()).client).toBe(before.client - BigInt(PRICE));
  });
});

describe('x402 settlement that fails', () => {
  let strict: TestGateway;
  beforeAll(async () => {
    strict = await sandbox.gateway({ ...world.settings, x402SettleSeconds: 1 });
  });
  const payOn = (header: string) => strict.get(findAta(client.address), { 'payment-signature': header });

  test('the node refuses the transaction: the answer is withheld (402 with the reason), no USDC moves, the payment is recorded as failed', async () => {
    const header = await craft();
    const before = await balances();
    sandbox.chain.fault({ mode: 'rpcError', code: -32005, message: 'Node is unhealthy' }, { methods: ['sendTransaction'], times: 1 });
    const res = await payOn(header);
    expect(res.status).toBe(402);
    expect(res.body.reason).toContain('settlement_failed');
    expect(res.body.ataAddress).toBeUndefined();
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await balances()).toEqual(before);
    // Recorded as failed, so it is not offered a second chance that could pay twice.
    expect((await payOn(header)).body.reason).toContain('payment_already_used');
  });

  test('confirmation never comes within X402_SETTLE_SECONDS: the answer is withheld with the reason', async () => {
    const header = await craft();
    sandbox.chain.fault({ mode: 'rpcError', code: -32005, message: 'Node is unhealthy' }, { methods: ['getSignatureStatuses'] });
    try {
      const started = Date.now();
      const res = await payOn(header);
      expect(res.status).toBe(402);
      expect(res.body.reason).toContain('settlement_failed');
      expect(res.body.ataAddress).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      sandbox.chain.fault(null);
    }
  });
});
