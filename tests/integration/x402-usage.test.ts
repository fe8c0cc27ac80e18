// A key holder whose wallet also pays per call with x402 sees both kinds in GET /api/keys/me/usage,
// on SQLite and on PostgreSQL: the x402 calls with payer, asset, exact amount and the landed
// settlement transaction (REST and MCP), beside the calls its key paid for. Payments of another
// wallet, a payment whose call failed (released, never submitted) and one whose settlement failed
// are not listed as paid.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSolanaRpc, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import Ajv2020 from 'ajv/dist/2020.js';
import { fundedKey } from '../support/agent.ts';
import { closeSchema } from '../support/closed-schema.ts';
import { connectMcp } from '../support/mcp.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { craftPayment, mintUsdc, payer, usdcOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

const PRICE = 10_000;
const LAMPORTS = 2_200_000;
const sandbox = sandboxGateways();

for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('x402-usage'))(`x402 calls in the usage history on ${backend}`, () => {
    let gw: TestGateway;
    let world: X402World;
    let accepted: PaymentRequirements;
    let me: { key: string; wallet: Address; signer: KeyPairSigner };
    const made: Record<string, unknown>[] = [];

    beforeAll(async () => {
      world = await x402World(sandbox.chain, mkdtempSync(join(tmpdir(), 'cig-x402-usage-')), PRICE);
      gw = await sandbox.gateway({ ...world.settings, webhookSecret: 'x402-usage-secret', freeCalls: 1, databaseUrl: backend === 'postgres' ? await freshDatabase() : undefined });
      expect(gw.services.store.backend).toBe(backend);
      me = await fundedKey(gw, sandbox.chain, 5 * LAMPORTS);
      await mintUsdc(sandbox.chain, me.wallet, 100_000n);
      const offer = await gw.get(`/api/chain/find-ata?wallet=${me.wallet}&mint=${USDC_MINT}`);
      accepted = decodePaymentRequiredHeader(offer.headers.get('payment-required')!).accepts[0]!;
    }, POSTGRES_HOOK_TIMEOUT_MS);
    afterAll(() => gw?.stop());

    const key = () => ({ 'x-api-key': me.key });
    const pay = (from = me.signer) => craftPayment(sandbox.chain, { accepted, from }).then((header) => ({ 'payment-signature': header }));
    const history = async (query = '') => {
      await gw.services.usage.settled();
      const res = await gw.get(`/api/keys/me/usage${query}`, key());
      expect(res.status).toBe(200);
      return res.body as { wallet: string; retentionDays: number; calls: Record<string, unknown>[]; nextCursor: string | null };
    };
    const landed = async (signature: string) => {
      const tx = await createSolanaRpc(sandbox.chain.url).getTransaction(signature as Signature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      return tx?.meta?.err === null;
    };

    test('key-paid and x402-paid calls of one wallet, newest first, with exact amounts and the landed transactions', async () => {
      const usdcBefore = await usdcOf(sandbox.chain, me.wallet);
      expect((await gw.get(`/api/chain/token-accounts?wallet=${me.wallet}`, key())).status).toBe(200);
      made.unshift({ paidWith: 'free_call', capability: 'token-accounts', face: 'rest', lamports: 0, refunded: false, status: 200 });

      const rest = await gw.get(`/api/chain/find-ata?wallet=${me.wallet}&mint=${USDC_MINT}`, await pay());
      expect(rest.status).toBe(200);
      const restTx = decodePaymentResponseHeader(rest.headers.get('payment-response')!).transaction;
      made.unshift({ paidWith: 'x402', capability: 'find-ata', face: 'rest', refunded: false, status: 200, network: 'mainnet-beta', payer: me.wallet, asset: USDC_MINT, amount: String(PRICE), transaction: restTx });

      expect((await gw.get(`/api/chain/transactions?wallet=${me.wallet}&limit=2`, key())).status).toBe(200);
      made.unshift({ paidWith: 'credit', capability: 'transactions', face: 'rest', lamports: LAMPORTS, refunded: false, status: 200 });

      const mcp = await connectMcp(gw.url, 'streamable-http');
      let mcpTx: string;
      try {
        await mcp.client.listTools();
        const payment = JSON.parse(Buffer.from((await pay())['payment-signature'], 'base64').toString());
        const result = (await mcp.client.callTool({ name: 'token_profile', arguments: { mint: USDC_MINT }, _meta: { 'x402/payment': payment } })) as any;
        expect(result.isError).toBe(false);
        mcpTx = result._meta['x402/payment-response'].transaction;
      } finally {
        await mcp.close();
      }
      made.unshift({ paidWith: 'x402', capability: 'token-profile', face: 'mcp', refunded: false, status: 200, network: 'mainnet-beta', payer: me.wallet, asset: USDC_MINT, amount: String(PRICE), transaction: mcpTx });

      const page = await history();
      const { calls, nextCursor } = page;
      expect(nextCursor).toBeNull();
      // Both kinds are what the OpenAPI document says, with no field it does not list.
      const usageSchema = (await gw.get('/openapi.json')).body.components.schemas.Usage;
      const validate = new Ajv2020({ strict: false, allErrors: true }).compile(closeSchema(usageSchema));
      expect(validate(page) || validate.errors).toBe(true);
      expect(calls.map(({ time, id, ...rest }) => rest)).toEqual(made);
      const now = Date.now() / 1000;
      for (const c of calls) expect(Math.abs((c.time as number) - now)).toBeLessThan(60);
      // Only key-paid rows carry an id; x402 rows are told apart by paidWith.
      expect(calls.map((c) => 'id' in c)).toEqual([false, true, false, true]);
      for (const tx of [restTx, mcpTx]) expect(await landed(tx)).toBe(true);
      // What the history says the wallet paid with x402 is what its USDC account lost.
      const paidX402 = calls.filter((c) => c.paidWith === 'x402').reduce((sum, c) => sum + BigInt(c.amount as string), 0n);
      expect(await usdcOf(sandbox.chain, me.wallet)).toBe(usdcBefore - paidX402);
    });

    test('another wallet\'s payments, a released payment and a failed settlement are not listed as paid', async () => {
      const before = (await history()).calls;
      const usdcBefore = await usdcOf(sandbox.chain, me.wallet);

      const other = await payer(sandbox.chain, 100_000n);
      expect((await gw.get(`/api/chain/find-ata?wallet=${me.wallet}&mint=${USDC_MINT}`, await pay(other))).status).toBe(200);

      // The call fails (a transaction the chain never saw): the payment is released, never submitted.
      expect((await gw.get(`/api/chain/decode-tx?signature=${'1'.repeat(64)}`, await pay())).status).toBe(404);

      // The node refuses the settlement: the answer is withheld and nothing is paid.
      sandbox.chain.fault({ mode: 'rpcError', code: -32005, message: 'Node is unhealthy' }, { methods: ['sendTransaction'], times: 1 });
      const unsettled = await gw.get(`/api/chain/find-ata?wallet=${me.wallet}&mint=${USDC_MINT}`, await pay());
      expect(unsettled.status).toBe(402);
      expect(unsettled.body.reason).toContain('settlement_failed');

      expect(await usdcOf(sandbox.chain, me.wallet)).toBe(usdcBefore);
      expect((await history()).calls).toEqual(before);
    });

    const walk = async (limit: number) => {
      const seen: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      do {
        const page = await history(`?limit=${limit}${cursor ? `&before=${cursor}` : ''}`);
        expect(page.calls.length).toBeLessThanOrEqual(limit);
        seen.push(...page.calls);
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };

    test('pages of one row join up to the whole list; a forged cursor is 400', async () => {
      const all = (await history('?limit=100')).calls;
      expect(await walk(1)).toEqual(all);
      for (const bad of ['1.2.', '1.x', '1.2.a+b', '0.5']) {
        const res = await gw.get(`/api/keys/me/usage?before=${encodeURIComponent(bad)}`, key());
        expect([bad, res.status]).toEqual([bad, 400]);
        expect(res.body.hint).toContain('nextCursor');
      }
    });

    test('payments recorded in the same millisecond page exactly, whatever the page size', async () => {
      const store = gw.services.store;
      const at = Date.now();
      for (let i = 0; i < 5; i++) {
        const txKey = `same-ms-${backend}-${i}+/=`;
        expect(await store.holdPayment({ txKey, network: 'mainnet-beta', payer: me.wallet, asset: USDC_MINT, amount: PRICE, payTo: world.payTo, capability: 'find-ata', face: 'rest', callId: newCallId() }, at)).toBe(true);
        await store.finishPayment(txKey, { status: 'settled', signature: `sig-${i}` }, at);
      }
      const all = (await history('?limit=100')).calls;
      expect(all.slice(0, 5).map((c) => c.transaction).sort()).toEqual(['sig-0', 'sig-1', 'sig-2', 'sig-3', 'sig-4']);
      for (const limit of [1, 2, 3]) expect(await walk(limit)).toEqual(all);
    });
  });
}
