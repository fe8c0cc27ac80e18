// Prices per capability (PRICES, X402_PRICES) on both stores, the SQLite file and PostgreSQL: a
// capability priced apart is debited, refunded, offered and paid at its own price, in lamports and
// in the x402 asset, while the others keep the flat price; and every description says so.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { connectMcp } from '../support/mcp.ts';
import { craftPayment, payer, payingFetch, usdcOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { within } from '../support/poll.ts';

setDefaultTimeout(30_000);

const FLAT = 2_200_000;
const FIND_ATA = 4_400_000;
const DECODE = 3_300_000;
const X402_FLAT = 10_000;
const X402_FIND_ATA = 20_000;
const WALLET = 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg';
const UNKNOWN_SIGNATURE = '5'.repeat(88);

const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-prices-'));

const findAta = (wallet = WALLET) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC_MINT}`;
const tokenAccounts = (wallet = WALLET) => `/api/chain/token-accounts?wallet=${wallet}`;
const offerOf = (res: { headers: Headers }) => decodePaymentRequiredHeader(res.headers.get('payment-required')!);

for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('prices'))(`prices per capability on ${backend}`, () => {
    let gw: TestGateway;
    let world: X402World;

    beforeAll(async () => {
      world = await x402World(sandbox.chain, dir, X402_FLAT);
      gw = await sandbox.gateway({
        ...world.settings,
        databaseUrl: backend === 'postgres' ? await freshDatabase() : undefined,
        webhookSecret: 'whsec_prices',
        freeCalls: 0,
        prices: { 'find-ata': FIND_ATA, 'decode-tx': DECODE },
        x402Prices: { 'find-ata': X402_FIND_ATA },
      });
      expect(gw.services.store.backend).toBe(backend);
    }, POSTGRES_HOOK_TIMEOUT_MS);
    afterAll(() => gw?.stop());

    test('the 402 of each capability names its own price, in lamports and in the offer of both x402 versions', async () => {
      const apart = await gw.get(findAta());
      expect(apart.status).toBe(402);
      expect(apart.body.priceLamports).toBe(FIND_ATA);
      expect(apart.body.instructions).toContain(`${FIND_ATA} lamports`);
      expect(apart.body.accepts[0].maxAmountRequired).toBe(String(X402_FIND_ATA));
      expect(offerOf(apart).accepts[0]!.amount).toBe(String(X402_FIND_ATA));

      const flat = await gw.get(tokenAccounts());
      expect(flat.status).toBe(402);
      expect(flat.body.priceLamports).toBe(FLAT);
      expect(flat.body.accepts[0].maxAmountRequired).toBe(String(X402_FLAT));
      expect(offerOf(flat).accepts[0]!.amount).toBe(String(X402_FLAT));

      // Priced apart in lamports only: x402 keeps the flat X402_PRICE.
      const decode = await gw.get(`/api/chain/decode-tx?signature=${UNKNOWN_SIGNATURE}`);
      expect(decode.body.priceLamports).toBe(DECODE);
      expect(offerOf(decode).accepts[0]!.amount).toBe(String(X402_FLAT));
    });

    test('a key is debited each capability\'s price, refunded exactly that when the call fails, and refused below it', async () => {
      const { key } = await fundedKey(gw, sandbox.chain, FIND_ATA + DECODE + 1_000);
      const me = async () => (await gw.get('/api/keys/me', { 'x-api-key': key })).body;
      expect(await me()).toMatchObject({ creditLamports: FIND_ATA + DECODE + 1_000, priceLamports: FLAT, pricesLamports: { 'find-ata': FIND_ATA, 'decode-tx': DECODE } });

      const first = await gw.get(findAta(), { 'x-api-key': key });
      expect(first.status).toBe(200);
      expect(first.headers.get('x-credits-remaining')).toBe(String(DECODE + 1_000));
      // Not found: charged DECODE, then given back exactly.
      const missing = await gw.get(`/api/chain/decode-tx?signature=${UNKNOWN_SIGNATURE}`, { 'x-api-key': key });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('x-credits-remaining')).toBe(String(DECODE + 1_000));
      // What is left buys a flat-priced call but not one priced higher.
      const refused = await gw.get(findAta(), { 'x-api-key': key });
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ code: 'no_credit', priceLamports: FIND_ATA });
      expect((await gw.get(tokenAccounts(), { 'x-api-key': key })).status).toBe(200);
      expect(await me()).toMatchObject({ creditLamports: DECODE + 1_000 - FLAT, callsMade: 2 });

      // The usage history records what each call took (PostgreSQL writes its rows just after answering).
      let calls: { capability: string; lamports: number; refunded: boolean }[] = [];
      await within(5_000, async () => (calls = (await gw.get('/api/keys/me/usage', { 'x-api-key': key })).body.calls).length >= 3, 20);
      expect(calls.map(({ capability, lamports, refunded }) => ({ capability, lamports, refunded }))).toEqual([
        { capability: 'token-accounts', lamports: FLAT, refunded: false },
        { capability: 'decode-tx', lamports: DECODE, refunded: true },
        { capability: 'find-ata', lamports: FIND_ATA, refunded: false },
      ]);
    });

    test('x402 takes exactly the capability\'s amount; a payment of the flat amount is refused for it', async () => {
      const client = await payer(sandbox.chain, 1_000_000n);
      const before = { client: await usdcOf(sandbox.chain, client.address), payTo: await usdcOf(sandbox.chain, world.payTo) };
      const paid = await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address));
      expect(paid.status).toBe(200);
      expect(await usdcOf(sandbox.chain, client.address)).toBe(before.client - BigInt(X402_FIND_ATA));
      expect(await usdcOf(sandbox.chain, world.payTo)).toBe(before.payTo + BigInt(X402_FIND_ATA));
      const flatPaid = await payingFetch(client, sandbox.chain)(gw.url + tokenAccounts(client.address));
      expect(flatPaid.status).toBe(200);
      expect(await usdcOf(sandbox.chain, client.address)).toBe(before.client - BigInt(X402_FIND_ATA + X402_FLAT));

      const accepted = offerOf(await gw.get(findAta())).accepts[0] as PaymentRequirements;
      const short = await craftPayment(sandbox.chain, { accepted, from: client, amount: BigInt(X402_FLAT) });
      const refused = await gw.get(findAta(client.address), { 'payment-signature': short });
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ code: 'x402_refused', priceLamports: FIND_ATA });
      expect(refused.body.x402Error).toContain('amount_mismatch');
      expect(await usdcOf(sandbox.chain, client.address)).toBe(before.client - BigInt(X402_FIND_ATA + X402_FLAT));


      // gateway stats reads what was recorded: each payment at its amount, counted by capability and day.
      const env = { PATH: process.env.PATH!, ...(gw.config.databaseUrl ? { DATABASE_URL: gw.config.databaseUrl } : { DATABASE_PATH: gw.config.databasePath }) };
      const p = Bun.spawn(['bun', join(import.meta.dir, '../../src/main.ts'), 'stats', '--json'], { env, stdout: 'pipe' });
      const stats = JSON.parse(await new Response(p.stdout).text());
      expect(await p.exited).toBe(0);
      expect(stats.x402.recent.map((c: { capability: string; amount: number }) => [c.capability, c.amount]).sort()).toEqual([['find-ata', X402_FIND_ATA], ['token-accounts', X402_FLAT]]);
      expect(stats.callsByCapability).toEqual(
        expect.arrayContaining([
          { capability: 'find-ata', calls: 1, x402Calls: 1 },
          { capability: 'token-accounts', calls: 1, x402Calls: 1 },
        ]),
      );
      const today = new Date().toISOString().slice(0, 10);
      expect(stats.revenueByDay).toEqual([{ day: today, lamports: String(FIND_ATA + FLAT), calls: 2, x402: [{ asset: USDC_MINT, calls: 2, amount: String(X402_FIND_ATA + X402_FLAT) }] }]);
    });

    test.skipIf(backend === 'postgres')('OpenAPI, llms.txt, the MCP manifest, tools/list and the claim page state each capability\'s price', async () => {
      const doc = (await gw.get('/openapi.json')).body;
      expect(doc.paths['/api/chain/find-ata'].get.description).toContain(`${FIND_ATA} lamports`);
      expect(doc.paths['/api/chain/find-ata'].get.description).toContain(`${X402_FIND_ATA} atomic units`);
      expect(doc.paths['/api/chain/token-accounts'].get.description).toContain(`${FLAT} lamports`);
      expect(doc.paths['/api/chain/token-accounts'].get.description).toContain(`${X402_FLAT} atomic units`);
      const llms = (await gw.get('/llms.txt')).body as string;
      expect(llms).toContain(`find-ata: ${FIND_ATA} lamports`);
      expect(llms).toMatch(new RegExp(`find-ata\\?[^\\n]*Paid \\(${FIND_ATA} lamports, or ${X402_FIND_ATA} atomic units by x402\\)`));
      const manifest = (await gw.get('/.well-known/mcp.json')).body;
      const tool = (name: string) => manifest.tools.find((t: { name: string }) => t.name === name).description as string;
      expect(tool('find_ata')).toContain(`Paid: ${FIND_ATA} lamports`);
      expect(tool('find_ata')).toContain(`${X402_FIND_ATA} atomic units`);
      expect(tool('get_token_accounts')).toContain(`Paid: ${FLAT} lamports`);
      expect(manifest.capabilities.tools.description).toContain(`find_ata: ${FIND_ATA}`);
      // MCP's own listing, and the claim page's facts (its script shows them beside the flat price).
      const mcp = await connectMcp(gw.url, 'streamable-http');
      const { tools } = await mcp.client.listTools();
      const pricing = (await mcp.client.readResource({ uri: 'gateway://pricing' })).contents[0] as { text: string };
      const toolDoc = (await mcp.client.readResource({ uri: 'gateway://tools/find_ata' })).contents[0] as { text: string };
      await mcp.close();
      expect(pricing.text).toContain(`Priced apart: find_ata costs ${FIND_ATA} lamports; decode_tx costs ${DECODE} lamports.`);
      expect(toolDoc.text).toContain(`Paid: ${FIND_ATA} lamports`);
      const described = (name: string) => tools.find((t) => t.name === name)!.description;
      expect(described('find_ata')).toContain(`Paid: ${FIND_ATA} lamports`);
      expect(described('find_ata')).toContain(`${X402_FIND_ATA} atomic units`);
      expect(described('decode_tx')).toContain(`Paid: ${DECODE} lamports`);
      expect((await gw.get('/claim')).body).toContain(`"pricesLamports":{"find-ata":${FIND_ATA},"decode-tx":${DECODE}}`);
    });
  });
}
