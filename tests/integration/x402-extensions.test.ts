// x402's payment-identifier and offer-receipt on the sandbox chain, with the official packages: a
// payment sent again under its id after a dropped answer gets the first answer and is never
// settled twice; another payment under a used id is refused; offers and receipts carry signatures
// that @x402/extensions' own verifiers accept with the key the gateway publishes.
import { describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
} from '@x402/extensions/offer-receipt';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { keypairFile, payer, usdcOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';
import { paymentWithId, receiptKey } from '../support/x402-extensions.ts';
import { connectMcp } from '../support/mcp.ts';
import type { TestGateway } from '../support/gateway.ts';

const PRICE = 10_000;
const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-ext-'));
let world: X402World;
let gw: TestGateway;
let receiptSigner: Awaited<ReturnType<typeof keypairFile>>;

const findAta = (wallet: string) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC_MINT}`;
const offerOf = async (path: string) => decodePaymentRequiredHeader((await gw.get(path)).headers.get('payment-required')!) as PaymentRequired;

/** Sends a request and hangs up at once, never reading the answer: a client whose connection dropped after it paid. */
function sendAndDrop(url: string, path: string, headers: Record<string, string>): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''];
      socket.end(lines.join('\r\n'), () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}

describe('payment-identifier and offer-receipt', () => {
  test('setup', async () => {
    world = await x402World(sandbox.chain, dir, PRICE);
    receiptSigner = await keypairFile(dir, 'receipts.json');
    gw = await sandbox.gateway({ ...world.settings, x402ReceiptKeypair: receiptSigner.path });
  });

  test('the offer declares payment-identifier (optional) and carries a signed offer the extension verifies with the published key', async () => {
    const offer = await offerOf(findAta(world.payTo));
    expect(offer.extensions!['payment-identifier']).toMatchObject({ info: { required: false }, schema: { type: 'object' } });
    // Beside x402's offer, the sign-in challenge and the bazaar entry.
    expect(Object.keys(offer.extensions!).sort()).toEqual(['bazaar', 'offer-receipt', 'payment-identifier', 'sign-in-with-x']);
    const key = await receiptKey(gw.url);
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(key.kid).toStartWith('did:jwk:');
    const [signed] = extractOffersFromPaymentRequired(offer) as JWSSignedOffer[];
    const payload = await verifyOfferSignatureJWS(signed!, key);
    expect(payload).toMatchObject({ version: 1, resourceUrl: `${gw.url}/api/chain/find-ata`, scheme: 'exact', network: offer.accepts[0]!.network, asset: USDC_MINT, payTo: world.payTo, amount: String(PRICE) });
    expect(payload.validUntil).toBeGreaterThan(Date.now() / 1000);
    // The did:jwk in the header resolves to the same key, without being handed it.
    expect(await verifyOfferSignatureJWS(signed!)).toEqual(payload);
    // Another key does not verify it.
    const other = await keypairFile(dir, 'other.json');
    const otherJwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(other.bytes.slice(32)).toString('base64url'), alg: 'EdDSA' };
    await expect(verifyOfferSignatureJWS(signed!, otherJwk)).rejects.toThrow();
  });

  test('a settled payment carries a signed receipt for its payer, network, resource and transaction, matching the offer', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const offer = await offerOf(findAta(wallet.address));
    const { header } = await paymentWithId(wallet, sandbox.chain, offer, generatePaymentId());
    const res = await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': header } });
    expect(res.status).toBe(200);
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const receipt = extractReceiptFromResponse(res) as JWSSignedReceipt;
    const payload = await verifyReceiptSignatureJWS(receipt, await receiptKey(gw.url));
    expect(payload).toMatchObject({ version: 1, network: offer.accepts[0]!.network, resourceUrl: `${gw.url}/api/chain/find-ata`, payer: wallet.address, transaction: settled.transaction });
    const [decoded] = decodeSignedOffers(extractOffersFromPaymentRequired(offer));
    expect(verifyReceiptMatchesOffer(receipt, decoded!, [wallet.address])).toBe(true);
  });

  test('a payment sent again with its identifier after the answer was dropped: the first answer, settled once', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const before = { client: await usdcOf(sandbox.chain, wallet.address), gateway: await usdcOf(sandbox.chain, world.payTo) };
    const id = generatePaymentId();
    const { header } = await paymentWithId(wallet, sandbox.chain, await offerOf(findAta(wallet.address)), id);
    await sendAndDrop(gw.url, findAta(wallet.address), { 'payment-signature': header });
    // Sent again until the first run has answered: meanwhile "still being processed", then its answer.
    let again = await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': header } });
    for (let i = 0; again.status === 409 && i < 100; i++) {
      expect(((await again.json()) as { code: string }).code).toBe('payment_id_in_progress');
      expect(again.headers.get('retry-after')).toBe('2');
      await Bun.sleep(100);
      again = await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': header } });
    }
    expect(again.status).toBe(200);
    const settled = decodePaymentResponseHeader(again.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, payer: wallet.address });
    const body = await again.json();
    // Once more, and on MCP with the same payload: the same answer, the same transaction.
    const third = await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': header } });
    expect(third.status).toBe(200);
    expect(await third.json()).toEqual(body);
    expect(decodePaymentResponseHeader(third.headers.get('payment-response')!).transaction).toBe(settled.transaction);
    expect(await usdcOf(sandbox.chain, wallet.address)).toBe(before.client - BigInt(PRICE));
    expect(await usdcOf(sandbox.chain, world.payTo)).toBe(before.gateway + BigInt(PRICE));
  });

  test('the same named payment 20 times at once: settled once; each answer is that settlement or "still being processed"', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const before = await usdcOf(sandbox.chain, wallet.address);
    const { header } = await paymentWithId(wallet, sandbox.chain, await offerOf(findAta(wallet.address)), generatePaymentId());
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': header } })));
    const settled = answers.filter((a) => a.status === 200).map((a) => decodePaymentResponseHeader(a.headers.get('payment-response')!).transaction);
    expect(settled.length).toBeGreaterThanOrEqual(1);
    expect(new Set(settled).size).toBe(1);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(await usdcOf(sandbox.chain, wallet.address)).toBe(before - BigInt(PRICE));
  });

  test('the same identifier with another payment: 409, and that payment is not settled', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const id = generatePaymentId();
    const offer = await offerOf(findAta(wallet.address));
    const first = await paymentWithId(wallet, sandbox.chain, offer, id);
    expect((await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': first.header } })).status).toBe(200);
    const after = await usdcOf(sandbox.chain, wallet.address);
    const second = await paymentWithId(wallet, sandbox.chain, offer, id);
    const res = await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': second.header } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'Payment identifier already used', code: 'payment_id_conflict' });
    expect(await usdcOf(sandbox.chain, wallet.address)).toBe(after);
    // The first payment, its id and all, for another request (other arguments): refused too, not answered with the first call's answer.
    const elsewhere = await fetch(gw.url + findAta(world.payTo), { headers: { 'payment-signature': first.header } });
    expect(elsewhere.status).toBe(409);
    // Under a new id, that payment is a new payment and buys a call.
    const plain = await paymentWithId(wallet, sandbox.chain, offer, generatePaymentId());
    expect((await fetch(gw.url + findAta(wallet.address), { headers: { 'payment-signature': plain.header } })).status).toBe(200);
  });

  test('a call that failed (released, never submitted) is the answer its identifier keeps: sent again, the same 404, still not settled', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const before = await usdcOf(sandbox.chain, wallet.address);
    const missing = `/api/chain/find-ata?wallet=${wallet.address}&mint=${(await payer(sandbox.chain, 0n)).address}`;
    const { header } = await paymentWithId(wallet, sandbox.chain, await offerOf(missing), generatePaymentId());
    const first = await gw.get(missing, { 'payment-signature': header });
    expect(first.status).toBe(404);
    const again = await gw.get(missing, { 'payment-signature': header });
    expect(again).toMatchObject({ status: 404, body: first.body });
    expect(await usdcOf(sandbox.chain, wallet.address)).toBe(before);
  });

  test('a malformed identifier is refused before the payment is looked at', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const offer = await offerOf(findAta(wallet.address));
    const { payload } = await paymentWithId(wallet, sandbox.chain, offer, generatePaymentId());
    (payload.extensions!['payment-identifier'] as { info: { id: string } }).info.id = 'short';
    const res = await gw.get(findAta(wallet.address), { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_payment_identifier', live_status: 'FAILED' });
  });

  test('over MCP: the same payload twice in _meta["x402/payment"] gets the same settlement', async () => {
    const wallet = await payer(sandbox.chain, 100_000n);
    const before = await usdcOf(sandbox.chain, wallet.address);
    const mcp = await connectMcp(gw.url, 'streamable-http');
    try {
      const args = { wallet: wallet.address, mint: USDC_MINT };
      const refusal = (await mcp.client.callTool({ name: 'find_ata', arguments: args })) as any;
      const offer = JSON.parse(refusal.content[0].text) as PaymentRequired;
      const { payload } = await paymentWithId(wallet, sandbox.chain, offer, generatePaymentId());
      const first = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payload } })) as any;
      const second = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/payment': payload } })) as any;
      expect(first.isError).toBe(false);
      expect(second.isError).toBe(false);
      expect(second._meta['x402/payment-response'].transaction).toBe(first._meta['x402/payment-response'].transaction);
      expect(await usdcOf(sandbox.chain, wallet.address)).toBe(before - BigInt(PRICE));
    } finally {
      await mcp.close();
    }
  });
});
