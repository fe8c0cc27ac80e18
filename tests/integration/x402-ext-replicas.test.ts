// x402's extensions on two gateway processes sharing one PostgreSQL database (behind one public
// address, PUBLIC_URL): a sign-in proof used on one replica is refused on the other, a payment
// sent again with its identifier to the other replica gets the first answer and is settled once.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import type { Address } from '@solana/kit';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { fundedAcross, http, replicaEnv, startReplica, type Replica } from '../support/replicas.ts';
import { payer, usdcOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';
import { paymentWithId } from '../support/x402-extensions.ts';
import { proofHeader, signInOffer } from '../support/siwx.ts';

setDefaultTimeout(60_000);

const PRICE = 5_000;
const SECRET = 'replica-hook-secret';
/** The one address clients reach both replicas by (a balancer's): sign-in proofs are bound to it. */
const PUBLIC_URL = 'https://gateway.example.com';
const skip = shouldSkipPostgres('x402 extensions on replicas');
let chain: Sandbox;
let world: X402World;
let replicas: Replica[] = [];
let gatewayAddress: Address;

beforeAll(async () => {
  if (skip) return;
  chain = await startSandbox();
  world = await x402World(chain, mkdtempSync(join(tmpdir(), 'cig-x402-ext-replicas-')), PRICE);
  gatewayAddress = world.payTo;
  const env = replicaEnv(
    { databaseUrl: await freshDatabase(), chainUrl: chain.url, gatewayAddress, webhookSecret: SECRET },
    { X402_PRICE: String(PRICE), X402_FEE_PAYER_KEYPAIR: world.settings.x402FeePayerKeypair!, RATE_LIMIT_RPS: '0', DEPOSIT_POLL_SECONDS: '0', PUBLIC_URL },
  );
  replicas = await Promise.all([startReplica(env), startReplica(env)]);
}, POSTGRES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await chain?.stop();
});

const findAta = (wallet: string) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC_MINT}`;

describe.skipIf(skip)('x402 extensions on two replicas of one Postgres', () => {
  test('a sign-in proof used on one replica is refused on the other; one debit', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const { key, agent } = await fundedAcross(chain, { via: a, claimOn: b }, gatewayAddress, SECRET, 10 * 2_200_000);
    const credit = async () => (await http(a.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body.creditLamports as number;
    const before = await credit();
    const offer = signInOffer((await http(a.url, findAta(agent.address))).headers);
    expect(offer.info.domain).toBe('gateway.example.com');
    const header = await proofHeader(offer, agent);
    const served = await http(a.url, findAta(agent.address), { headers: { 'sign-in-with-x': header } });
    expect(served.status).toBe(200);
    const replayed = await http(b.url, findAta(agent.address), { headers: { 'sign-in-with-x': header } });
    expect(replayed.status).toBe(402);
    expect(replayed.body).toMatchObject({ code: 'siwx_refused', siwxError: 'invalid_siwx_nonce' });
    // The same proof at both at once, fresh: one is served.
    const fresh = await proofHeader(offer, agent, { nonce: crypto.randomUUID().replaceAll('-', '') });
    const both = await Promise.all([a, b, a, b].map((r) => http(r.url, findAta(agent.address), { headers: { 'sign-in-with-x': fresh } })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 402, 402, 402]);
    expect(await credit()).toBe(before - 2 * 2_200_000);
  });

  test('a payment sent again with its identifier to the other replica: the first answer, settled once', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const wallet = await payer(chain, 100_000n);
    const before = await usdcOf(chain, wallet.address);
    const offer = decodePaymentRequiredHeader((await http(a.url, findAta(wallet.address))).headers.get('payment-required')!) as PaymentRequired;
    const { header } = await paymentWithId(wallet, chain, offer, generatePaymentId());
    const first = await http(a.url, findAta(wallet.address), { headers: { 'payment-signature': header } });
    expect(first.status).toBe(200);
    const again = await http(b.url, findAta(wallet.address), { headers: { 'payment-signature': header } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const settled = decodePaymentResponseHeader(first.headers.get('payment-response')!);
    expect(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction).toBe(settled.transaction);
    expect(await usdcOf(chain, wallet.address)).toBe(before - BigInt(PRICE));
    // Another payment under the id, at the other replica: refused, not settled.
    const other = await paymentWithId(wallet, chain, offer, JSON.parse(Buffer.from(header, 'base64').toString()).extensions['payment-identifier'].info.id);
    const conflict = await http(b.url, findAta(wallet.address), { headers: { 'payment-signature': other.header } });
    expect(conflict.status).toBe(409);
    expect(await usdcOf(chain, wallet.address)).toBe(before - BigInt(PRICE));
  });
});
