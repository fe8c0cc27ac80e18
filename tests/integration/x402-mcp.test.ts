// x402 over MCP, driven as @x402/mcp's client drives it (x402's MCP transport): call the paid
// tool, read the PaymentRequired from structuredContent or JSON.parse(content[0].text), pay with
// a client registered for version 2 only (@x402/core + @x402/svm), retry with
// `_meta["x402/payment"]`, read `_meta["x402/payment-response"]`. The same text is the REST 402
// body for clients that pay with a key. Official MCP clients on every transport and revision,
// after tools/list (so they validate each result against the tool's output schema).
import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { CLIENTS, connectMcp, rawMcpSession } from '../support/mcp.ts';
import type { PaymentRequirements } from '@x402/core/types';
import { craftPayment, expectBazaar, payer, paymentRequiredOf, usdcOf, x402ClientOf, x402World, USDC_MINT, type Craft, type X402World } from '../support/x402.ts';
import type { TestGateway } from '../support/gateway.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { EXAMPLES } from '../../src/capabilities/recorded-examples.ts';

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
    test(`${kind}: the refusal is the REST 402 body and x402's PaymentRequired in one; a call paid through _meta["x402/payment"] is served and settled`, async () => {
      const chain = sandbox.chain;
      const wallet = await payer(chain, 100_000n);
      const mcp = await connectMcp(gw.url, kind);
      try {
        await mcp.client.listTools();
        const args = { wallet: wallet.address, mint: USDC_MINT };
        const first = (await mcp.client.callTool({ name: 'find_ata', arguments: args })) as any;
        expect(first.isError).toBe(true);
        // Left off: the official v1 client validates it against the output schema even on isError (docs/x402.md).
        expect(first.structuredContent).toBeUndefined();
        const required = paymentRequiredOf(first);
        expect(required).not.toBeNull();
        const body = JSON.parse(first.content[0].text);
        expect(body).toMatchObject({ error: 'Payment required', code: 'no_key', priceLamports: gw.config.priceLamports, payTo: world.payTo, x402Version: 2 });
        expect(body.instructions).toContain('x402/payment');
        expect(body.accepts).toEqual([{ scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', asset: USDC_MINT, amount: String(PRICE), payTo: world.payTo, maxTimeoutSeconds: 60, extra: { feePayer: world.feePayer.address } }]);
        const transport = kind === 'sse' ? 'sse' : 'streamable-http';
        expect(body.resource).toMatchObject({ url: `${gw.url}${kind === 'sse' ? '/mcp/sse' : '/mcp'}`, mimeType: 'application/json' });
        expectBazaar(required!, { type: 'mcp', toolName: 'find_ata', transport });

        const payment = await x402ClientOf(wallet, chain, { v2Only: true }).createPaymentPayload(required!);
        expect(payment.x402Version).toBe(2);
        expect(payment.extensions).toEqual(required!.extensions);
        const before = { wallet: await usdcOf(chain, wallet.address), gateway: await usdcOf(chain, world.payTo) };
        const paid = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payment } })) as any;
        expect(paid.isError).toBe(false);
        expect(paid.structuredContent).toMatchObject({ wallet: wallet.address, live_status: 'SUCCESS' });
        const settled = paid._meta['x402/payment-response'];
        expect(settled).toMatchObject({ success: true, payer: wallet.address, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' });
        expect(typeof settled.transaction).toBe('string');
        expect(await usdcOf(chain, wallet.address)).toBe(before.wallet - BigInt(PRICE));
        expect(await usdcOf(chain, world.payTo)).toBe(before.gateway + BigInt(PRICE));

        // The same payment again: the offer again, with the reason; nothing moved.
        const replay = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payment } })) as any;
        expect(replay.isError).toBe(true);
        expect(paymentRequiredOf(replay)).not.toBeNull();
        expect(JSON.parse(replay.content[0].text)).toMatchObject({ code: 'x402_refused', x402Version: 2, x402Error: expect.stringContaining('payment_already_used') });
        expect(replay._meta['x402/error']).toContain('payment_already_used');
        expect(await usdcOf(chain, wallet.address)).toBe(before.wallet - BigInt(PRICE));
      } finally {
        await mcp.close();
      }
    });
  }

  // Revisions the official clients no longer speak, by hand: the call without payment takes the direct path (fast-call.ts), the paid one the SDK's.
  for (const revision of ['2025-03-26', '2025-06-18']) {
    test(`Streamable HTTP at ${revision}: the same offer in the text, and a call paid through _meta["x402/payment"]`, async () => {
      const chain = sandbox.chain;
      const wallet = await payer(chain, 100_000n);
      const session = await rawMcpSession(gw.url, revision);
      try {
        expect(session.protocolVersion).toBe(revision);
        const args = { wallet: wallet.address, mint: USDC_MINT };
        const first = await session.request('tools/call', { name: 'find_ata', arguments: args });
        const required = paymentRequiredOf(first.result);
        expect(required).toMatchObject({ x402Version: 2, resource: { url: `${gw.url}/mcp` } });
        const payment = await x402ClientOf(wallet, chain, { v2Only: true }).createPaymentPayload(required!);
        const paid = await session.request('tools/call', { name: 'find_ata', arguments: args, _meta: { 'x402/payment': payment } });
        expect(paid.result.isError).toBe(false);
        expect(JSON.parse(paid.result.content[0].text)).toMatchObject({ wallet: wallet.address, live_status: 'SUCCESS' });
        expect(paid.result._meta['x402/payment-response']).toMatchObject({ success: true, payer: wallet.address });
      } finally {
        await session.close();
      }
    });
  }

  test('hostile payments over MCP: each refused with the offer and its reason, nothing moves; bad arguments leave the payment unspent', async () => {
    const chain = sandbox.chain;
    const wallet = await payer(chain, 100_000n);
    const mcp = await connectMcp(gw.url, 'streamable-http');
    try {
      await mcp.client.listTools();
      const args = { wallet: wallet.address, mint: USDC_MINT };
      const accepted = paymentRequiredOf(await mcp.client.callTool({ name: 'find_ata', arguments: args }))!.accepts[0] as PaymentRequirements;
      const payload = async (c: Partial<Craft> = {}) => JSON.parse(Buffer.from(await craftPayment(chain, { accepted, from: wallet, ...c }), 'base64').toString());
      const before = await usdcOf(chain, wallet.address);
      const cases: [unknown, string][] = [
        ['not a payment', 'invalid_payment_payload'],
        [{ x402Version: 2 }, 'invalid_payment_payload'],
        [await payload({ amount: BigInt(PRICE) - 1n }), 'invalid_exact_svm_payload_amount_mismatch'],
        [await payload({ network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }), 'network_mismatch'],
      ];
      for (const [payment, reason] of cases) {
        const refused = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payment } })) as any;
        expect(refused.isError).toBe(true);
        expect(paymentRequiredOf(refused)).not.toBeNull();
        expect(JSON.parse(refused.content[0].text)).toMatchObject({ code: 'x402_refused', x402Error: expect.stringContaining(reason) });
      }
      expect(await usdcOf(chain, wallet.address)).toBe(before);

      const good = await payload();
      await expect(mcp.client.callTool({ name: 'find_ata', arguments: { wallet: 'nope', mint: USDC_MINT }, _meta: { 'x402/payment': good } })).rejects.toThrow(/-32602/);
      expect(await usdcOf(chain, wallet.address)).toBe(before);
      const paid = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': good } })) as any;
      expect(paid._meta['x402/payment-response']).toMatchObject({ success: true });
      expect(await usdcOf(chain, wallet.address)).toBe(before - BigInt(PRICE));
    } finally {
      await mcp.close();
    }
  });

  test('every paid tool offers a bazaar extension that @x402/extensions accepts, on both transports', async () => {
    for (const kind of ['sse', 'streamable-http'] as const) {
      const mcp = await connectMcp(gw.url, kind);
      try {
        const { tools } = await mcp.client.listTools();
        for (const cap of CAPABILITIES.filter((c) => c.paid)) {
          const result = (await mcp.client.callTool({ name: cap.tool, arguments: EXAMPLES[cap.name]!.request })) as any;
          const required = paymentRequiredOf(result);
          expect([cap.tool, required?.x402Version]).toEqual([cap.tool, 2]);
          expect(required!.resource.url).toBe(`${gw.url}${kind === 'sse' ? '/mcp/sse' : '/mcp'}`);
          expectBazaar(required!, { type: 'mcp', toolName: cap.tool, transport: kind, inputSchema: tools.find((t) => t.name === cap.tool)!.inputSchema });
        }
      } finally {
        await mcp.close();
      }
    }
  });
});
