// Refusals a client can act on: why a 402 happened, rate-limit fields that agree with each other,
// and upstream failures with a machine-readable code, Retry-After where a retry helps, never charged.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { claim, deposit, fundedKey, heliusPayload } from '../support/agent.ts';

const PRICE = 2_200_000;
const sandbox = sandboxGateways();
let gw: TestGateway;
let agent: KeyPairSigner;

beforeAll(async () => {
  gw = await sandbox.gateway({
    gatewayAddress: (await generateKeyPairSigner()).address,
    webhookSecret: 'whsec-refusals',
    freeCalls: 0,
    rpcTimeoutMs: 300,
    rpcRetries: 0,
  });
  agent = await sandbox.chain.newWallet(1_000_000_000n);
});
afterAll(async () => {
  sandbox.chain.fault(null);
});

const paid = (key?: string) => gw.get(`/api/chain/token-accounts?wallet=${agent.address}`, key ? { 'x-api-key': key } : {});

describe('402 says why', () => {
  test('no key, unknown key, revoked key, no credit: each its own code, SPEC fields kept', async () => {
    const { key: first } = await fundedKey(gw, sandbox.chain, PRICE);
    const cases: [string | undefined, string][] = [
      [undefined, 'no_key'],
      ['cig_1111111111111111111111111111111111111111', 'unknown_key'],
      ['not-even-a-key', 'unknown_key'],
    ];
    for (const [key, code] of cases) {
      const res = await paid(key);
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ error: 'Payment required', code, priceLamports: PRICE, payTo: gw.config.gatewayAddress });
      expect(typeof res.body.instructions).toBe('string');
      expect(typeof res.body.reason).toBe('string');
    }
    expect((await paid(first)).status).toBe(200); // spends the only call's worth of credit
    const empty = await paid(first);
    expect(empty.status).toBe(402);
    expect(empty.body.code).toBe('no_credit');
    expect(empty.headers.get('x-credits-remaining')).toBe('0');
  });

  test('a key replaced by a newer claim is refused as revoked', async () => {
    const wallet = await sandbox.chain.newWallet(1_000_000_000n);
    const gateway = gw.config.gatewayAddress!;
    const keys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sig = await deposit(sandbox.chain, wallet, gateway as never, BigInt(PRICE));
      expect((await gw.post('/api/payments/webhook', heliusPayload(sig, wallet.address, gateway, PRICE), { authorization: 'whsec-refusals' })).status).toBe(200);
      keys.push((await claim(gw, wallet)).body.apiKey);
    }
    const res = await paid(keys[0]);
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('revoked_key');
    expect(res.body.reason).toContain('a newer claim for the same wallet');
    const me = await gw.get('/api/keys/me', { 'x-api-key': keys[0]! });
    expect(me).toMatchObject({ status: 401, body: { error: 'API key revoked', code: 'revoked_key', reason: res.body.reason, revokedAt: res.body.revokedAt } });
    expect((await paid(keys[1])).status).toBe(200);
  });
});

describe('rate-limit fields agree', () => {
  test('RateLimit t equals Retry-After on a 429; the policy names quota and window', async () => {
    const limited = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], rateLimitRps: 0.5, rateLimitBurst: 2 });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await limited.get('/api/chain/blockhash'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      for (const a of answers) expect(a.headers.get('ratelimit-policy')).toBe('"default";q=2;w=4');
      const refused = answers[2]!.headers;
      const state = refused.get('ratelimit')!.match(/^"default";r=(\d+);t=(\d+)$/)!;
      expect(state[1]).toBe('0');
      expect(state[2]).toBe(refused.get('retry-after')!);
      expect(refused.get('ratelimit-reset')).toBe(refused.get('retry-after'));
      expect(Number(refused.get('retry-after'))).toBe(2); // one token at 0.5/s
      // Waiting exactly that long is enough.
      await Bun.sleep(Number(refused.get('retry-after')) * 1000);
      expect((await limited.get('/api/chain/blockhash')).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('upstream failures', () => {
  test.each([
    ['http500', { mode: 'http500' } as const, 'upstream_unavailable', '5'],
    ['hang', { mode: 'hang' } as const, 'upstream_timeout', '2'],
    ['garbage', { mode: 'garbage' } as const, 'upstream_bad_answer', null],
    ['rpc error', { mode: 'rpcError', code: -32602, message: 'Invalid params' } as const, 'upstream_rpc_error', null],
  ])('%s: 500, live_status FAILED, code, Retry-After only where a retry helps, nothing charged', async (_name, fault, code, retryAfter) => {
    const { key } = await fundedKey(gw, sandbox.chain, PRICE);
    sandbox.chain.fault(fault, { methods: ['getTokenAccountsByOwner'] });
    try {
      const res = await paid(key);
      expect(res.status).toBe(500);
      expect(res.body.live_status).toBe('FAILED');
      expect(res.body.code).toBe(code);
      expect(res.headers.get('retry-after')).toBe(retryAfter);
      expect(res.headers.get('x-credits-remaining')).toBe(String(PRICE));
    } finally {
      sandbox.chain.fault(null);
    }
    const me = await gw.get('/api/keys/me', { 'x-api-key': key });
    expect(me.body.creditLamports).toBe(PRICE);
  });
});

describe('metrics under attack', () => {
  test('random paths and made-up methods add no series: they count as unmatched / OTHER', async () => {
    const series = async () => (await fetch(gw.url + '/metrics').then((r) => r.text())).split('\n').filter((l) => l.startsWith('gateway_http_requests_total{')).length;
    await fetch(gw.url + '/no/such/thing');
    await fetch(gw.url + '/api/chain/balance', { method: 'BREW' });
    await series(); // the scrape itself is a route too
    const before = await series();
    for (let i = 0; i < 50; i++) {
      await fetch(`${gw.url}/probe-${crypto.randomUUID()}?x=${i}`);
      await fetch(`${gw.url}/api/chain/balance`, { method: `BREW${i}` });
    }
    expect(await series()).toBe(before);
    const text = await fetch(gw.url + '/metrics').then((r) => r.text());
    expect(text).not.toContain('probe-');
    expect(text).not.toContain('BREW');
  });
});
