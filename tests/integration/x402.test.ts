// x402 on REST, with the official client (@x402/fetch + @x402/svm's exact schemes) on the sandbox
// chain: the 402 offer, a paid answer in version 2 and in version 1, and exact balances.
import { describe, expect, test } from 'bun:test';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { createSolanaRpc, lamports, type Signature } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { craftPayment, expectBazaar, keypairFile, payer, payingFetch, paymentRequiredOf, solOf, startFacilitator, usdcOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';
import { connectMcp } from '../support/mcp.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestGateway } from '../support/gateway.ts';
import examples from '../../src/capabilities/recorded-examples.json';
import SwaggerParser from '@apidevtools/swagger-parser';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { restPath } from '../../src/capabilities/capability.ts';

const PRICE = 10_000;
const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-'));
let world: X402World;
let gw: TestGateway;

const WALLET = 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg';
const findAta = (wallet = WALLET) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC_MINT}`;

describe('x402 over REST', () => {
  test('setup', async () => {
    world = await x402World(sandbox.chain, dir, PRICE);
    gw = await sandbox.gateway(world.settings);
  });

  test('a paid call without key or payment: 402 with the SPEC fields, the v1 offer in the body and the v2 offer in PAYMENT-REQUIRED', async () => {
    const res = await gw.get(findAta());
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ error: 'Payment required', code: 'no_key', priceLamports: gw.config.priceLamports, payTo: world.payTo, x402Version: 1 });
    expect(res.body.instructions).toContain('x-api-key');
    expect(res.body.instructions).toContain('PAYMENT-SIGNATURE');
    expect(res.body.accepts).toEqual([
      expect.objectContaining({ scheme: 'exact', network: 'solana', maxAmountRequired: String(PRICE), asset: USDC_MINT, payTo: world.payTo, resource: `${gw.url}/api/chain/find-ata`, extra: { feePayer: world.feePayer.address } }),
    ]);
    const offer = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(offer.x402Version).toBe(2);
    expect(offer.accepts).toEqual([
      { scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', asset: USDC_MINT, amount: String(PRICE), payTo: world.payTo, maxTimeoutSeconds: 60, extra: { feePayer: world.feePayer.address } },
    ]);
  });

  test('every paid route offers x402 at its absolute URL with a bazaar extension that @x402/extensions accepts, over REST, both prefixes; free routes do not', async () => {
    for (const cap of CAPABILITIES) {
      const request = (examples as Record<string, { request: Record<string, string> }>)[cap.name]!.request;
      for (const prefix of ['/api/chain', '/api/solana']) {
        const path = restPath(cap, prefix);
        const res = cap.method === 'POST' ? await gw.post(path, request) : await gw.get(`${path}?${new URLSearchParams(request)}`);
        expect([cap.name, res.status]).toEqual([cap.name, cap.paid ? 402 : 200]);
        expect(res.headers.has('payment-required')).toBe(cap.paid);
        if (!cap.paid) continue;
        const offer = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
        expect(offer.resource.url).toBe(`${gw.url}${restPath(cap)}`);
        expectBazaar(offer, { type: 'http', method: cap.method });
      }
    }
  });

  test('the simulate POST offers the same, and an x402 payment buys it', async () => {
    const request = { transaction: examples.simulate.request.transaction };
    const res = await gw.post('/api/chain/simulate', request);
    expect(res.status).toBe(402);
    const offer = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(offer.resource.url).toBe(`${gw.url}/api/chain/simulate`);
    expect((offer.extensions!.bazaar as { info: { input: unknown } }).info.input).toEqual({ type: 'http', method: 'POST', bodyType: 'json', body: examples.simulate.request });
    const pay = payingFetch(await payer(sandbox.chain, BigInt(PRICE)), sandbox.chain);
    const paid = await pay(gw.url + '/api/chain/simulate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('payment-response')).toBeTruthy();
  });

  for (const version of [2, 1] as const) {
    test(`@x402/fetch buys one answer (version ${version}): USDC moves by exactly the price, the fee payer pays the fee, the response names the landed transaction`, async () => {
      const chain = sandbox.chain;
      const client = await payer(chain, 1_000_000n);
      const before = { client: await usdcOf(chain, client.address), gateway: await usdcOf(chain, world.payTo), fee: await solOf(chain, world.feePayer.address), clientSol: await solOf(chain, client.address) };
      const pay = payingFetch(client, chain, { v1: version === 1 });
      const res = await pay(gw.url + findAta(client.address));
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ wallet: client.address, mint: USDC_MINT, live_status: 'SUCCESS' });
      const header = res.headers.get(version === 2 ? 'payment-response' : 'x-payment-response');
      expect(header).toBeTruthy();
      const settled = decodePaymentResponseHeader(header!);
      expect(settled).toMatchObject({ success: true, payer: client.address, network: version === 2 ? 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' : 'solana' });
      // The transaction landed: the chain knows it, without error, and its fee payer is ours.
      const tx = await createSolanaRpc(chain.url).getTransaction(settled.transaction as Signature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      expect(tx?.meta?.err).toBeNull();
      expect(tx!.transaction.message.accountKeys[0]).toBe(world.feePayer.address);
      expect(await usdcOf(chain, client.address)).toBe(before.client - BigInt(PRICE));
      expect(await usdcOf(chain, world.payTo)).toBe(before.gateway + BigInt(PRICE));
      expect(await solOf(chain, client.address)).toBe(before.clientSol);
      expect(await solOf(chain, world.feePayer.address)).toBe(lamports(before.fee - BigInt(tx!.meta!.fee)));
    });
  }

  test('the operator sees it: /metrics counts payments, /readyz shows the fee payer\'s SOL, gateway stats shows x402 revenue and the calls', async () => {
    const metrics = await (await fetch(gw.url + '/metrics')).text();
    // At least this file's three: the metrics are the process's, which other test files share.
    expect(metrics).toMatch(/gateway_x402_payments_total\{outcome="settled",reason=""\} ([3-9]|[1-9]\d+)\n/);
    expect(metrics).toMatch(/gateway_x402_payments_total\{outcome="verified",reason=""\} ([3-9]|[1-9]\d+)\n/);
    gw.services.readiness.start();
    let ready: any;
    for (let i = 0; i < 50 && typeof ready?.x402FeePayerLamports !== 'number'; i++) {
      await Bun.sleep(50);
      ready = (await gw.get('/readyz')).body;
    }
    expect(ready.x402FeePayerLamports).toBe(Number(await solOf(sandbox.chain, world.feePayer.address)));
    expect(await (await fetch(gw.url + '/metrics')).text()).toContain(`gateway_x402_fee_payer_lamports ${ready.x402FeePayerLamports}`);
    gw.services.readiness.stop();

    const p = Bun.spawn(['bun', join(import.meta.dir, '../../src/main.ts'), 'stats', '--json'], { env: { PATH: process.env.PATH!, DATABASE_PATH: gw.config.databasePath }, stdout: 'pipe' });
    const stats = JSON.parse(await new Response(p.stdout).text());
    expect(await p.exited).toBe(0);
    expect(stats.x402.settled).toEqual([{ asset: USDC_MINT, payments: 3, amount: String(3 * PRICE) }]);
    expect(stats.x402.recent).toHaveLength(3);
    expect(stats.x402.recent[0]).toMatchObject({ asset: USDC_MINT, amount: PRICE, face: 'rest', status: 'settled' });
    expect(stats.x402.recent.map((c: { capability: string }) => c.capability).sort()).toEqual(['find-ata', 'find-ata', 'simulate']);
    // The fee payer's key file never reaches a log line, a metric or an answer.
    const secret = readFileSync(world.settings.x402FeePayerKeypair!, 'utf8').slice(1, 40);
    expect(gw.logs.join('\n') + metrics + JSON.stringify(ready) + JSON.stringify(stats)).not.toContain(secret);
  });

  test('the OpenAPI document, llms.txt and the MCP manifest explain both ways to pay; the document stays valid', async () => {
    const doc = (await gw.get('/openapi.json')).body;
    const op = doc.paths['/api/chain/find-ata'].get;
    expect(op.security).toEqual([{ apiKey: [] }, { bearer: [] }, { x402: [] }, { x402v1: [] }]);
    expect(op.description).toContain('x402');
    expect(op.responses['200'].headers['PAYMENT-RESPONSE']).toBeDefined();
    expect(doc.components.responses.PaymentRequired.headers['PAYMENT-REQUIRED']).toBeDefined();
    expect(doc.components.securitySchemes.x402.name).toBe('PAYMENT-SIGNATURE');
    await SwaggerParser.validate(structuredClone(doc));
    const llms = (await gw.get('/llms.txt')).body as string;
    expect(llms).toContain('## Buying and sending an API key');
    expect(llms).toContain('## Paying per call with x402 (no account)');
    expect(llms).toContain('@x402/fetch');
    const manifest = (await gw.get('/.well-known/mcp.json')).body;
    expect(manifest.capabilities.tools.description).toContain('x402');
    expect(manifest.tools.find((t: { name: string }) => t.name === 'find_ata').description).toContain('params._meta["x402/payment"]');
  });
});

describe('x402 offers name their resources by absolute URLs', () => {
  const mcpOffer = async (url: string, kind: 'sse' | 'streamable-http', headers?: Record<string, string>) => {
    const mcp = await connectMcp(url, kind, { headers });
    try {
      await mcp.client.listTools();
      return paymentRequiredOf(await mcp.client.callTool({ name: 'find_ata', arguments: { wallet: WALLET, mint: USDC_MINT } }))!;
    } finally {
      await mcp.close();
    }
  };

  test('PUBLIC_URL set: every offer is under it, REST (both versions) and MCP (both transports)', async () => {
    const pub = await sandbox.gateway({ ...world.settings, publicUrl: 'https://gateway.example.com/solana' });
    const res = await pub.get(findAta(), { 'x-forwarded-host': 'other.example' });
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).resource.url).toBe('https://gateway.example.com/solana/api/chain/find-ata');
    expect(res.body.accepts[0].resource).toBe('https://gateway.example.com/solana/api/chain/find-ata');
    expect((await mcpOffer(pub.url, 'streamable-http')).resource.url).toBe('https://gateway.example.com/solana/mcp');
    expect((await mcpOffer(pub.url, 'sse')).resource.url).toBe('https://gateway.example.com/solana/mcp/sse');
  });

  test("without it: the request's Host; behind a trusted proxy the host and scheme it forwards, from anyone else nothing", async () => {
    const offered = async (g: TestGateway, headers: Record<string, string>) => decodePaymentRequiredHeader((await g.get(findAta(), headers)).headers.get('payment-required')!).resource.url;
    const forwarded = { 'x-forwarded-host': 'gateway.example.com', 'x-forwarded-proto': 'https' };
    expect(await offered(gw, { host: 'gw.example:8080' })).toBe('http://gw.example:8080/api/chain/find-ata');
    expect(await offered(gw, forwarded)).toBe(`${gw.url}/api/chain/find-ata`);
    const proxied = await sandbox.gateway({ ...world.settings, trustedProxies: ['127.0.0.1'] });
    expect(await offered(proxied, forwarded)).toBe('https://gateway.example.com/api/chain/find-ata');
    expect(await offered(proxied, { forwarded: 'for=198.51.100.7;host=gateway.example.com;proto=https' })).toBe('https://gateway.example.com/api/chain/find-ata');
    expect((await mcpOffer(proxied.url, 'streamable-http', forwarded)).resource.url).toBe('https://gateway.example.com/mcp');
    expect((await mcpOffer(proxied.url, 'sse', forwarded)).resource.url).toBe('https://gateway.example.com/mcp/sse');
  });
});

describe('x402 through an external facilitator (X402_FACILITATOR_URL)', () => {
  test('the offer names its fee payer; a paid call is verified and settled there, recorded here', async () => {
    const chain = sandbox.chain;
    const key = await keypairFile(dir, 'external-fee-payer.json');
    await chain.transferSol(chain.payer, key.signer.address, 1_000_000_000n);
    const facilitator = await startFacilitator(chain, key.signer);
    try {
      const external = await sandbox.gateway({ gatewayAddress: world.payTo, x402Price: PRICE, x402FacilitatorUrl: facilitator.url });
      const offer = decodePaymentRequiredHeader((await external.get(findAta())).headers.get('payment-required')!);
      expect(offer.accepts[0]!.extra).toEqual({ feePayer: key.signer.address });
      const client = await payer(chain, 100_000n);
      const before = await usdcOf(chain, client.address);
      const res = await payingFetch(client, chain)(external.url + findAta(client.address));
      expect(res.status).toBe(200);
      expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true, payer: client.address });
      expect(await usdcOf(chain, client.address)).toBe(before - BigInt(PRICE));
      expect(facilitator.calls).toMatchObject({ '/supported': 1, '/verify': 1, '/settle': 1 });
    } finally {
      await facilitator.stop();
    }
  });

  test('a facilitator that cannot be reached: the 402 still offers the account way; a payment gets 503 and is never submitted', async () => {
    const chain = sandbox.chain;
    const down = await sandbox.gateway({ gatewayAddress: world.payTo, x402Price: PRICE, x402FacilitatorUrl: 'http://127.0.0.1:9' });
    const offer = await down.get(findAta());
    expect(offer.status).toBe(402);
    expect(offer.body).toMatchObject({ error: 'Payment required', code: 'no_key', payTo: world.payTo });
    // No x402 offer: the header, where a sign-in challenge keeps it, accepts no payment.
    const required = offer.headers.get('payment-required');
    expect(required === null ? [] : decodePaymentRequiredHeader(required).accepts).toEqual([]);
    expect(offer.body.accepts).toBeUndefined();
    const accepted = decodePaymentRequiredHeader((await gw.get(findAta())).headers.get('payment-required')!).accepts[0]!;
    const client = await payer(chain, 100_000n);
    const header = await craftPayment(chain, { accepted, from: client });
    const res = await down.get(findAta(client.address), { 'payment-signature': header });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'x402 payments cannot be taken right now', code: 'x402_unavailable' });
    expect(res.headers.get('retry-after')).toBe('5');
    // Never submitted: the same payment still buys a call from a gateway whose facilitator answers.
    expect((await gw.get(findAta(client.address), { 'payment-signature': header })).status).toBe(200);
  });
});
