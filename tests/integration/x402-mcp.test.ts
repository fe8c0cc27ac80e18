// x402 over MCP (its MCP transport): a paid tool without key or payment is an error result carrying
// the offer in its text and `_meta`; the same call retried with `_meta["x402/payment"]` is served,
// settled, and answered with `_meta["x402/payment-response"]`. Official MCP clients, on every
// transport, after tools/list (so they validate each result against the tool's output schema).
import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentRequired } from '@x402/core/types';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { CLIENTS, connectMcp } from '../support/mcp.ts';
import { payer, usdcOf, x402ClientOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';
import type { TestGateway } from '../support/gateway.ts';

const PRICE = 7_000;
const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-mcp-'));
let world: X402World;
let gw: TestGateway;

describe('x402 over MCP', () => {
  test('setup', async () => {
    world = await x402World(sandbox.chain, dir, PRICE);
    gw = await sandbox.gateway(world.settings);
  });

  for (const kind of CLIENTS) {
    test(`${kind}: offer, then a call paid through _meta["x402/payment"]`, async () => {
      const chain = sandbox.chain;
      const wallet = await payer(chain, 100_000n);
      const mcp = await connectMcp(gw.url, kind);
      try {
        await mcp.client.listTools();
        const args = { wallet: wallet.address, mint: USDC_MINT };
        const refused = await mcp.call('find_ata', args);
        expect(refused.isError).toBe(true);
        expect(refused.result.structuredContent).toBeUndefined();
        expect(refused.body).toMatchObject({ error: 'Payment required', x402Version: 1 });
        expect(refused.body.instructions).toContain('x402/payment');
        const required = refused.result._meta['x402/payment-required'] as PaymentRequired;
        expect(required.accepts[0]).toMatchObject({ scheme: 'exact', amount: String(PRICE), asset: USDC_MINT, payTo: world.payTo });
        expect(typeof refused.result._meta['x402/error']).toBe('string');

        const payment = await x402ClientOf(wallet, chain).createPaymentPayload(required);
        const before = { wallet: await usdcOf(chain, wallet.address), gateway: await usdcOf(chain, world.payTo) };
        const result = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payment } })) as any;
        expect(result.isError).toBe(false);
        expect(result.structuredContent).toMatchObject({ wallet: wallet.address, live_status: 'SUCCESS' });
        expect(result._meta['x402/payment-response']).toMatchObject({ success: true, payer: wallet.address });
        expect(await usdcOf(chain, wallet.address)).toBe(before.wallet - BigInt(PRICE));
        expect(await usdcOf(chain, world.payTo)).toBe(before.gateway + BigInt(PRICE));

        // The same payment again: an error result with the reason, nothing moved.
        const replay = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payment } })) as any;
        expect(replay.isError).toBe(true);
        expect(replay._meta['x402/error']).toContain('payment_already_used');
        expect(await usdcOf(chain, wallet.address)).toBe(before.wallet - BigInt(PRICE));
      } finally {
        await mcp.close();
      }
    });
  }
});
