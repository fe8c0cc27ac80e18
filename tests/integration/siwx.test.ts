// Sign in with the wallet (x402's sign-in-with-x, CAIP-122 over Ed25519): a wallet that holds
// credit spends it per call with a signed proof instead of an API key, over REST with the official
// client (@x402/fetch + createSIWxClientHook + a @solana/kit signer) and over MCP in `_meta`; and
// every proof that should buy nothing (replayed, expired, for another site, another wallet's) is
// refused with a clear 402 and costs nothing.
import { beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { createSIWxClientHook } from '@x402/extensions/sign-in-with-x';
import type { PaymentRequired } from '@x402/core/types';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { CLIENTS, connectMcp } from '../support/mcp.ts';
import { Database } from 'bun:sqlite';
import { ask, expectStorageUnavailable } from '../support/outage.ts';
import { isoIn, kitSigner, proofHeader, signingFetch, signInOffer } from '../support/siwx.ts';

const SECRET = 'siwx-hook-secret';
const sandbox = sandboxGateways({ mint: true });
let gw: TestGateway;
let price: number;
let wallet: { key: string; wallet: Address; signer: KeyPairSigner };

beforeAll(async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  gw = await sandbox.gateway({ gatewayAddress, webhookSecret: SECRET, freeCalls: 0 });
  price = gw.config.priceLamports;
  wallet = await fundedKey(gw, sandbox.chain, 20 * price);
});

const findAta = (w: string) => `/api/chain/find-ata?wallet=${w}&mint=${sandbox.mint}`;
const me = async () => (await gw.get('/api/keys/me', { 'x-api-key': wallet.key })).body as { creditLamports: number; callsMade: number };

describe('sign in with the wallet over REST', () => {
  test('a paid route without key offers sign-in-with-x: bound to this gateway, on the Solana clusters served, payment network first', async () => {
    const res = await gw.get(findAta(wallet.wallet));
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('no_key');
    const offer = signInOffer(res.headers);
    const host = new URL(gw.url).host;
    expect(offer.info).toMatchObject({ domain: host, uri: `${gw.url}/api/chain/find-ata`, version: '1', resources: [`${gw.url}/api/chain/find-ata`] });
    expect(offer.info.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(offer.info.expirationTime!) - Date.parse(offer.info.issuedAt)).toBe(gw.config.siwxSeconds * 1000);
    expect(offer.supportedChains).toEqual([
      { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' },
      { chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', type: 'ed25519' },
    ]);
    // Each 402 is a new challenge.
    expect(signInOffer((await gw.get(findAta(wallet.wallet))).headers).info.nonce).not.toBe(offer.info.nonce);
  });

  test('the official client hook signs in unmodified: served and debited from the wallet credit like a key call, with usage row and balance headers', async () => {
    const before = await me();
    const { fetch: signed, sent } = signingFetch(wallet.signer);
    const res = await signed(gw.url + findAta(wallet.wallet));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ataAddress: string }).ataAddress).toBeString();
    expect(sent).toHaveLength(1);
    expect(res.headers.get('x-credits-remaining')).toBe(String(before.creditLamports - price));
    const after = await me();
    expect(after.creditLamports).toBe(before.creditLamports - price);
    expect(after.callsMade).toBe(before.callsMade + 1);
    const usage = (await gw.get('/api/keys/me/usage', { 'x-api-key': wallet.key })).body;
    expect(usage.calls[0]).toMatchObject({ capability: 'find-ata', face: 'rest', paidWith: 'credit', lamports: price, refunded: false, status: 200 });

    // The same proof again (a replay, by anyone who saw the header): refused, nothing debited.
    const replay = await gw.get(findAta(wallet.wallet), { 'sign-in-with-x': sent[0]! });
    expect(replay.status).toBe(402);
    expect(replay.body).toMatchObject({ error: 'Payment required', code: 'siwx_refused', siwxError: 'invalid_siwx_nonce' });
    expect(replay.body.reason).toContain('used before');
    // The refusal carries a fresh challenge to sign.
    expect(signInOffer(replay.headers).info.nonce).not.toBe(JSON.parse(atob(sent[0]!)).nonce);
    expect((await me()).creditLamports).toBe(after.creditLamports);
  });

  test('a call that fails after the charge is refunded, as a key call is', async () => {
    const before = await me();
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const missingMint = (await generateKeyPairSigner()).address;
    const res = await gw.get(`/api/chain/find-ata?wallet=${wallet.wallet}&mint=${missingMint}`, { 'sign-in-with-x': await proofHeader(offer, wallet.signer) });
    expect(res.status).toBe(404);
    expect((await me()).creditLamports).toBe(before.creditLamports);
    const usage = (await gw.get('/api/keys/me/usage', { 'x-api-key': wallet.key })).body;
    expect(usage.calls[0]).toMatchObject({ capability: 'find-ata', refunded: true, status: 404 });
  });

  test('bad arguments are refused before the proof is looked at: 400, and the proof still buys a call', async () => {
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const header = await proofHeader(offer, wallet.signer);
    expect((await gw.get('/api/chain/find-ata?wallet=nope', { 'sign-in-with-x': header })).status).toBe(400);
    expect((await gw.get(findAta(wallet.wallet), { 'sign-in-with-x': header })).status).toBe(200);
  });

  test('expired, too old, not yet valid, for another site, signed by another wallet, malformed: each a 402 with its code, nothing debited', async () => {
    const before = await me();
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const stranger = await generateKeyPairSigner();
    const cases: [string, string][] = [
      [await proofHeader(offer, wallet.signer, { expirationTime: isoIn(-1) }), 'invalid_siwx_expired'],
      [await proofHeader(offer, wallet.signer, { issuedAt: isoIn(-gw.config.siwxSeconds - 5) }), 'invalid_siwx_issued_at_too_old'],
      [await proofHeader(offer, wallet.signer, { notBefore: isoIn(60) }), 'invalid_siwx_not_yet_valid'],
      [await proofHeader(offer, wallet.signer, { domain: 'evil.example', uri: 'https://evil.example/api/chain/find-ata' }), 'invalid_siwx_domain_mismatch'],
      [await proofHeader(offer, wallet.signer, { uri: 'https://evil.example/api/chain/find-ata' }), 'invalid_siwx_uri_mismatch'],
      // A stranger signs, naming the funded wallet: the signature is not that wallet's.
      [await proofHeader(offer, stranger, {}, wallet.wallet), 'invalid_siwx_signature'],
      [btoa('{"not":"a proof"}'), 'invalid_siwx_header'],
      ['%%%', 'invalid_siwx_header'],
    ];
    for (const [header, code] of cases) {
      const res = await gw.get(findAta(wallet.wallet), { 'sign-in-with-x': header });
      expect([code, res.status, res.body.code, res.body.siwxError]).toEqual([code, 402, 'siwx_refused', code]);
      expect(signInOffer(res.headers).info.nonce).toMatch(/^[0-9a-f]{32}$/);
    }
    expect((await me()).creditLamports).toBe(before.creditLamports);
  });

  test('a proof sent with an API key: the key decides, the proof is not used up', async () => {
    const other = await fundedKey(gw, sandbox.chain, 5 * price);
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const header = await proofHeader(offer, wallet.signer);
    const before = await me();
    expect((await gw.get(findAta(wallet.wallet), { 'sign-in-with-x': header, 'x-api-key': other.key })).status).toBe(200);
    expect((await me()).creditLamports).toBe(before.creditLamports);
    expect((await gw.get(findAta(wallet.wallet), { 'sign-in-with-x': header })).status).toBe(200);
    expect((await me()).creditLamports).toBe(before.creditLamports - price);
  });

  test("without PUBLIC_URL, a request naming a host that is not this machine's gets no challenge, and a proof for that host is refused", async () => {
    const res = await fetch(gw.url + findAta(wallet.wallet), { headers: { host: 'evil.example' } });
    expect(res.status).toBe(402);
    expect(res.headers.get('payment-required')).toBeNull();
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const foreign = await proofHeader(offer, wallet.signer, { domain: 'evil.example', uri: 'http://evil.example/api/chain/find-ata' });
    const refused = await fetch(gw.url + findAta(wallet.wallet), { headers: { host: 'evil.example', 'sign-in-with-x': foreign } });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ code: 'siwx_refused', siwxError: 'invalid_siwx_domain_mismatch' });
  });

  test('a wallet that signs in without credit is told how to get it', async () => {
    const poor = await generateKeyPairSigner();
    const offer = signInOffer((await gw.get(findAta(poor.address))).headers);
    const res = await gw.get(findAta(poor.address), { 'sign-in-with-x': await proofHeader(offer, poor) });
    expect(res.status).toBe(402);
    const body = res.body as Record<string, string>;
    expect(body.code).toBe('no_credit');
    expect(body.reason).toContain(`The wallet ${poor.address} signed in`);
    expect(body.instructions).toContain(`to ${gw.config.gatewayAddress}`);
    expect(body.instructions).toContain('/api/keys/claim');
  });

  test('fifty concurrent uses of one proof: one is served, one debit', async () => {
    const before = await me();
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const header = await proofHeader(offer, wallet.signer);
    const answers = await Promise.all(Array.from({ length: 50 }, () => gw.get(findAta(wallet.wallet), { 'sign-in-with-x': header })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 402 && a.body.siwxError === 'invalid_siwx_nonce')).toHaveLength(49);
    expect((await me()).creditLamports).toBe(before.creditLamports - price);
  });
});

describe('sign-in while the database is away', () => {
  test('the nonce cannot be recorded: 500 storage_unavailable with Retry-After, nothing debited, and the proof still buys a call after', async () => {
    const before = await me();
    const offer = signInOffer((await gw.get(findAta(wallet.wallet))).headers);
    const header = await proofHeader(offer, wallet.signer);
    // Another writer holds the file's write lock for longer than the gateway waits for it.
    const other = new Database(gw.config.databasePath);
    other.run('BEGIN EXCLUSIVE');
    let answer;
    try {
      answer = await ask(gw.url + findAta(wallet.wallet), { 'sign-in-with-x': header });
    } finally {
      other.run('ROLLBACK');
      other.close();
    }
    expectStorageUnavailable(answer);
    expect((await me()).creditLamports).toBe(before.creditLamports);
    expect((await gw.get(findAta(wallet.wallet), { 'sign-in-with-x': header })).status).toBe(200);
  });
});

describe('sign in with the wallet over MCP', () => {
  for (const kind of CLIENTS) {
    test(`${kind}: the refusal carries the challenge; the official hook's proof in _meta["x402/sign-in-with-x"] is served and debited`, async () => {
      const before = await me();
      const mcp = await connectMcp(gw.url, kind);
      try {
        const args = { wallet: wallet.wallet, mint: sandbox.mint };
        const first = (await mcp.client.callTool({ name: 'find_ata', arguments: args })) as any;
        expect(first.isError).toBe(true);
        // The text is the REST 402 as ever; the challenge is in _meta.
        expect(JSON.parse(first.content[0].text)).toMatchObject({ error: 'Payment required', code: 'no_key' });
        const challenge = first._meta['x402/sign-in-with-x'];
        const endpoint = `${gw.url}/mcp${kind === 'sse' ? '/sse' : ''}`;
        expect(challenge.info).toMatchObject({ domain: new URL(gw.url).host, uri: endpoint });
        const paymentRequired = { x402Version: 2, accepts: [], resource: { url: endpoint }, extensions: { 'sign-in-with-x': challenge } } as unknown as PaymentRequired;
        const hook = await createSIWxClientHook(kitSigner(wallet.signer))({ paymentRequired, requestUrl: endpoint });
        const proof = hook!.headers['sign-in-with-x']!;
        const paid = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/sign-in-with-x': proof } })) as any;
        expect(paid.isError).toBe(false);
        expect(JSON.parse(paid.content[0].text).ataAddress).toBeString();
        expect((await me()).creditLamports).toBe(before.creditLamports - price);
        // The proof object itself is accepted too; once used, refused.
        const again = (await mcp.client.callTool({ name: 'find_ata', arguments: args, _meta: { 'x402/sign-in-with-x': JSON.parse(atob(proof)) } })) as any;
        expect(again.isError).toBe(true);
        expect(JSON.parse(again.content[0].text)).toMatchObject({ code: 'siwx_refused', siwxError: 'invalid_siwx_nonce' });
        expect((await me()).creditLamports).toBe(before.creditLamports - price);
      } finally {
        await mcp.close();
      }
    });
  }
});

describe('sign-in and the rate limit', () => {
  test("a signed-in call draws from its wallet's bucket, the one its key draws from", async () => {
    const limited = await sandbox.gateway({ gatewayAddress: gw.config.gatewayAddress, webhookSecret: SECRET, freeCalls: 0, rateLimitRps: 0.01, rateLimitBurst: 4 });
    const offer = signInOffer((await limited.get(findAta(wallet.wallet))).headers);
    const funded = await fundedKey(limited, sandbox.chain, 5 * price);
    expect((await limited.get(findAta(funded.wallet), { 'sign-in-with-x': await proofHeader(offer, funded.signer) })).status).toBe(200);
    // Four tokens in the wallet's bucket: the sign-in took one, so its key has three left (the client address's bucket went to the claim).
    for (let i = 0; i < 3; i++) expect((await limited.get(findAta(funded.wallet), { 'x-api-key': funded.key })).status).toBe(200);
    const third = await limited.get(findAta(funded.wallet), { 'x-api-key': funded.key });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBeString();
  });
});
