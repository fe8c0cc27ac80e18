// Keys and money through the real server, a real SQLite file and real deposits on the sandbox chain.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { DepositWatcher } from '../../src/billing/watcher.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { claim, claimWhenSeen, deposit, fundedKey, heliusPayload, signChallenge } from '../support/agent.ts';

const PRICE = 2_200_000;
const sandbox = sandboxGateways({ mint: true });
/** Every key any test was given: at the end none may be found in the database files. */
const issuedKeys: string[] = [];
const databases: string[] = [];

afterAll(() => {
  for (const db of databases) rmSync(dirname(db), { recursive: true, force: true });
});

// Its database outlives stop(): the last test searches every database file for the keys issued.
async function gatewayWith(overrides: Parameters<typeof startGateway>[0] = {}) {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const gw = await startGateway({ ...sandbox.rpcUrls, gatewayAddress, ...overrides }, { keepFiles: true });
  databases.push(gw.config.databasePath);
  return { gw, gatewayAddress };
}

const paidCall = (gw: TestGateway, key: string | undefined, wallet: string) =>
  gw.get(`/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, key ? { 'x-api-key': key } : {});

describe('the agent journey, deposit seen by the watcher', () => {
  let gw: TestGateway;
  let gatewayAddress: Address;
  let agent: KeyPairSigner;
  let firstKey: string;

  beforeAll(async () => {
    ({ gw, gatewayAddress } = await gatewayWith({ freeCalls: 2, depositPollSeconds: 0.1 }));
    gw.services.watcher!.start(0.1);
    agent = await sandbox.chain.newWallet(1_000_000_000n);
  });
  afterAll(() => gw.stop());

  test('a paid call without a key is 402 with the price and where to pay', async () => {
    const res = await paidCall(gw, undefined, agent.address);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ error: 'Payment required', priceLamports: PRICE, payTo: gatewayAddress });
    expect(res.body.instructions).toContain('/api/keys/challenge');
  });

  test('before any deposit, a correct claim is 404', async () => {
    const res = await claim(gw, agent);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('No pending key found for this wallet. Please send SOL to top up.');
  });

  test('deposit -> watcher -> challenge -> signature -> key', async () => {
    await deposit(sandbox.chain, agent, gatewayAddress, BigInt(3 * PRICE + 1000));
    firstKey = await claimWhenSeen(gw, agent);
    issuedKeys.push(firstKey);
    expect(firstKey).toMatch(/^cig_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    const me = await gw.get('/api/keys/me', { 'x-api-key': firstKey });
    expect(me.body).toMatchObject({ wallet: agent.address, freeCallsRemaining: 2, creditLamports: 3 * PRICE + 1000, priceLamports: PRICE, callsMade: 0 });
  });

  test('the key is returned once: claiming again finds nothing pending', async () => {
    expect((await claim(gw, agent)).status).toBe(404);
  });

  test('free calls are spent first, then the flat price from credit, then 402', async () => {
    const seen: [number, string | null, string | null][] = [];
    for (let i = 0; i < 6; i++) {
      const res = await paidCall(gw, firstKey, agent.address);
      seen.push([res.status, res.headers.get('x-free-calls-remaining'), res.headers.get('x-credits-remaining')]);
    }
    expect(seen).toEqual([
      [200, '1', String(3 * PRICE + 1000)],
      [200, '0', String(3 * PRICE + 1000)],
      [200, '0', String(2 * PRICE + 1000)],
      [200, '0', String(PRICE + 1000)],
      [200, '0', '1000'],
      [402, '0', '1000'],
    ]);
    const me = await gw.get('/api/keys/me', { 'x-api-key': firstKey });
    expect(me.body).toMatchObject({ freeCallsRemaining: 0, creditLamports: 1000, callsMade: 5 });
  });

  test('a top-up and a new claim rotate the key: the old one is refused, the new one carries the credit', async () => {
    await deposit(sandbox.chain, agent, gatewayAddress, 5_000_000n);
    const secondKey = await claimWhenSeen(gw, agent);
    issuedKeys.push(secondKey);
    expect(secondKey).not.toBe(firstKey);
    expect((await paidCall(gw, firstKey, agent.address)).status).toBe(402);
    expect((await gw.get('/api/keys/me', { 'x-api-key': firstKey })).status).toBe(401);
    const me = await gw.get('/api/keys/me', { 'x-api-key': secondKey });
    // Free calls are granted once per wallet, not per claim.
    expect(me.body).toMatchObject({ freeCallsRemaining: 0, creditLamports: 5_001_000 });
    const res = await paidCall(gw, secondKey, agent.address);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-remaining')).toBe(String(5_001_000 - PRICE));
    // Authorization: Bearer works as well as x-api-key.
    const bearer = await gw.get(`/api/chain/find-ata?wallet=${agent.address}&mint=${sandbox.mint}`, { authorization: `Bearer ${secondKey}` });
    expect(bearer.status).toBe(200);
  });

  test('a deposit below the minimum is recorded but not credited', async () => {
    const small = await sandbox.chain.newWallet(100_000_000n);
    await deposit(sandbox.chain, small, gatewayAddress, 1_000_000n);
    await gw.services.watcher!.poll();
    await gw.services.watcher!.poll();
    expect((await claim(gw, small)).status).toBe(404);
  });
});

describe('the agent journey, deposit pushed by the webhook', () => {
  const SECRET = 'whsec_test_5d1f0c';
  let gw: TestGateway;
  let gatewayAddress: Address;

  beforeAll(async () => {
    ({ gw, gatewayAddress } = await gatewayWith({ freeCalls: 1, webhookSecret: SECRET }));
  });
  afterAll(() => gw.stop());

  test('deposit -> webhook -> claim -> calls -> 402 -> top-up -> rotated key', async () => {
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
    const hook = await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, PRICE), { authorization: SECRET });
    expect(hook.status).toBe(200);
    expect(hook.body.deposits).toEqual([{ signature: sig, wallet: agent.address, lamports: String(PRICE), outcome: 'credited' }]);
    const key = await claimWhenSeen(gw, agent, 0);
    issuedKeys.push(key);
    expect((await paidCall(gw, key, agent.address)).status).toBe(200); // free
    expect((await paidCall(gw, key, agent.address)).status).toBe(200); // credit
    expect((await paidCall(gw, key, agent.address)).status).toBe(402);

    const sig2 = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(2 * PRICE));
    expect((await gw.post('/api/payments/webhook', heliusPayload(sig2, agent.address, gatewayAddress, 2 * PRICE), { authorization: SECRET })).status).toBe(200);
    const key2 = await claimWhenSeen(gw, agent, 0);
    issuedKeys.push(key2);
    expect((await paidCall(gw, key, agent.address)).status).toBe(402);
    expect((await gw.get('/api/keys/me', { 'x-api-key': key2 })).body).toMatchObject({ creditLamports: 2 * PRICE, freeCallsRemaining: 0 });
  });
});

describe('claim failures', () => {
  let gw: TestGateway;
  let gatewayAddress: Address;
  let agent: KeyPairSigner;
  const SECRET = 'whsec_claims_1';

  beforeAll(async () => {
    ({ gw, gatewayAddress } = await gatewayWith({ webhookSecret: SECRET, challengeTtlSeconds: 1 }));
    agent = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
    await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, PRICE), { authorization: SECRET });
  });
  afterAll(() => gw.stop());

  const challengeFor = async (wallet: string) => (await gw.get(`/api/keys/challenge?wallet=${wallet}`)).body.challenge as string;

  test('a challenge is 32 random bytes as hex, different every time', async () => {
    const a = await challengeFor(agent.address);
    const b = (await gw.get('/api/keys/challenge')).body.challenge;
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });

  const unauthorized: [string, () => Promise<{ wallet: string; signature: string; challenge: string }>][] = [
    ['a signature over other bytes', async () => {
      const challenge = await challengeFor(agent.address);
      return { wallet: agent.address, signature: await signChallenge(agent, challenge + 'x'), challenge };
    }],
    ['a signature by another wallet', async () => {
      const other = await generateKeyPairSigner();
      const challenge = await challengeFor(agent.address);
      return { wallet: agent.address, signature: await signChallenge(other, challenge), challenge };
    }],
    ['a signature that is not base58', async () => ({ wallet: agent.address, signature: '0OIl' + 'x'.repeat(84), challenge: await challengeFor(agent.address) })],
    ['an unknown challenge', async () => {
      const challenge = 'ab'.repeat(32);
      return { wallet: agent.address, signature: await signChallenge(agent, challenge), challenge };
    }],
    ['an expired challenge', async () => {
      const challenge = await challengeFor(agent.address);
      await Bun.sleep(1100);
      return { wallet: agent.address, signature: await signChallenge(agent, challenge), challenge };
    }],
    ['a challenge already used', async () => {
      const challenge = await challengeFor(agent.address);
      const bad = await gw.post('/api/keys/claim', { wallet: agent.address, signature: await signChallenge(agent, 'nope'), challenge });
      expect(bad.status).toBe(401);
      return { wallet: agent.address, signature: await signChallenge(agent, challenge), challenge };
    }],
    ['a challenge superseded by a newer one for the same wallet', async () => {
      const older = await challengeFor(agent.address);
      await challengeFor(agent.address);
      return { wallet: agent.address, signature: await signChallenge(agent, older), challenge: older };
    }],
    ['a challenge bound to another wallet', async () => {
      const other = await generateKeyPairSigner();
      const challenge = await challengeFor(other.address);
      return { wallet: agent.address, signature: await signChallenge(agent, challenge), challenge };
    }],
  ];

  for (const [name, make] of unauthorized) {
    test(`401 for ${name}, and the pending claim survives`, async () => {
      const res = await gw.post('/api/keys/claim', await make());
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Invalid signature');
    });
  }

  test('400 for each missing field, before anything else is checked', async () => {
    const full = { wallet: agent.address, signature: 'x', challenge: 'y' };
    for (const field of ['wallet', 'signature', 'challenge'] as const) {
      const body: Record<string, string> = { ...full };
      delete body[field];
      const res = await gw.post('/api/keys/claim', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Missing parameters');
      expect(res.body.missing).toEqual([field]);
      expect(res.body.live_status).toBe('FAILED');
    }
    expect((await gw.post('/api/keys/claim', {})).body.missing).toEqual(['wallet', 'signature', 'challenge']);
  });

  test('404 for a valid signature with no pending claim', async () => {
    const stranger = await generateKeyPairSigner();
    const res = await claim(gw, stranger);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('No pending key found for this wallet. Please send SOL to top up.');
  });

  test('after all those failures the rightful claim still succeeds, once', async () => {
    const ok = await claim(gw, agent);
    expect(ok.status).toBe(200);
    issuedKeys.push(ok.body.apiKey);
    expect((await claim(gw, agent)).status).toBe(404);
  });
});

describe('webhook', () => {
  const SECRET = 'whsec_webhook_9';
  let gw: TestGateway;
  let gatewayAddress: Address;

  beforeAll(async () => {
    ({ gw, gatewayAddress } = await gatewayWith({ webhookSecret: SECRET }));
  });
  afterAll(() => gw.stop());

  const depositsRecorded = () => gw.sqlite().query('SELECT count(*) AS n FROM deposits').get() as { n: number };
  const pendingOf = (wallet: string) =>
    (gw.sqlite().query('SELECT credit_lamports AS c FROM pending_claims WHERE wallet = ?').get(wallet) as { c: number } | null)?.c ?? 0;

  test('a wrong or missing Authorization header is 401 and records nothing', async () => {
    const agent = await sandbox.chain.newWallet(100_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
    const payload = heliusPayload(sig, agent.address, gatewayAddress, PRICE);
    const before = depositsRecorded().n;
    const attempts: Record<string, string>[] = [{}, { authorization: 'wrong' }, { authorization: SECRET + 'x' }, { authorization: `Bearer ${SECRET}` }];
    for (const headers of attempts) {
      const res = await gw.post('/api/payments/webhook', payload, headers);
      expect(res.status).toBe(401);
    }
    expect(depositsRecorded().n).toBe(before);
    expect(pendingOf(agent.address)).toBe(0);
  });

  test('reported deposits the chain does not confirm are not credited', async () => {
    const agent = await sandbox.chain.newWallet(100_000_000n);
    const other = await sandbox.chain.newWallet(100_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
    const elsewhere = await sandbox.chain.transferSol(agent, other.address, BigInt(PRICE));
    const unknownSig = '5'.repeat(87);
    const lies = [
      heliusPayload(unknownSig, agent.address, gatewayAddress, PRICE), // not on chain
      heliusPayload(sig, agent.address, gatewayAddress, PRICE * 100), // inflated amount
      heliusPayload(sig, other.address, gatewayAddress, PRICE), // someone else's credit
      heliusPayload(elsewhere, agent.address, gatewayAddress, PRICE), // paid to another address
    ];
    for (const payload of lies) {
      const res = await gw.post('/api/payments/webhook', payload, { authorization: SECRET });
      expect(res.status).toBe(200);
      expect(res.body.deposits.every((d: { outcome: string }) => d.outcome === 'unconfirmed')).toBe(true);
    }
    expect(pendingOf(agent.address)).toBe(0);
    expect(pendingOf(other.address)).toBe(0);
  });

  test('a non-array payload is a 400', async () => {
    const res = await gw.post('/api/payments/webhook', { signature: 'x' }, { authorization: SECRET });
    expect(res.status).toBe(400);
  });

  test('the same deposit posted 50 times at once, and seen by the watcher too, is credited exactly once', async () => {
    const agent = await sandbox.chain.newWallet(100_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, 7_000_000n);
    const payload = heliusPayload(sig, agent.address, gatewayAddress, 7_000_000);
    const watcher = new DepositWatcher({
      store: gw.services.store,
      rpc: gw.services.upstreams['mainnet-beta'],
      network: 'mainnet-beta',
      gateway: gatewayAddress,
      minDepositLamports: gw.config.minDepositLamports,
      log: gw.services.log,
    });
    const results = await Promise.all([
      ...Array.from({ length: 50 }, () => gw.post('/api/payments/webhook', payload, { authorization: SECRET })),
      watcher.poll(),
    ]);
    await watcher.poll();
    const outcomes = results.slice(0, 50).map((r: any) => r.body.deposits[0].outcome);
    // Whichever path came first, the rest saw a duplicate: one row, one credit.
    expect(outcomes.filter((o: string) => o === 'credited').length).toBeLessThanOrEqual(1);
    expect(outcomes.every((o: string) => o === 'credited' || o === 'duplicate')).toBe(true);
    const rows = gw.sqlite().query('SELECT source, lamports FROM deposits WHERE signature = ?').all(sig);
    expect(rows).toHaveLength(1);
    expect(pendingOf(agent.address)).toBe(7_000_000);
  });
});

describe('money under concurrency', () => {
  const SECRET = 'whsec_conc';
  let gw: TestGateway;

  beforeAll(async () => {
    ({ gw } = await gatewayWith({ freeCalls: 0, webhookSecret: SECRET }));
  });
  afterAll(() => gw.stop());

  async function keyWith(lamports: number) {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, lamports);
    issuedKeys.push(key);
    return { agent: { address: wallet }, key };
  }

  test('200 concurrent paid calls on an account that can pay for exactly 37: 37 succeed, the rest 402, balance exactly 0', async () => {
    const { agent, key } = await keyWith(37 * PRICE);
    const results = await Promise.all(Array.from({ length: 200 }, () => paidCall(gw, key, agent.address)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(37);
    expect(results.filter((r) => r.status === 402)).toHaveLength(163);
    const credits = results.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-credits-remaining')));
    expect(Math.min(...credits)).toBe(0);
    expect(credits.every((c) => c >= 0)).toBe(true);
    expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body).toMatchObject({ creditLamports: 0, callsMade: 37 });
  });

  test('a paid call whose upstream fails is refunded', async () => {
    const { agent, key } = await keyWith(2 * PRICE);
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getMultipleAccounts'] });
    const res = await paidCall(gw, key, agent.address);
    sandbox.chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.live_status).toBe('FAILED');
    expect(res.headers.get('x-credits-remaining')).toBe(String(2 * PRICE));
    expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body).toMatchObject({ creditLamports: 2 * PRICE, callsMade: 0 });
  });

  test('a 400 costs nothing', async () => {
    const { agent, key } = await keyWith(PRICE);
    for (const path of [`/api/chain/find-ata?wallet=${agent.address}`, `/api/chain/find-ata?mint=${sandbox.mint}`, `/api/chain/find-ata?wallet=bad&mint=${sandbox.mint}`, `/api/chain/find-ata?wallet=${agent.address}&mint=${sandbox.mint}&network=x`]) {
      const res = await gw.get(path, { 'x-api-key': key });
      expect(res.status).toBe(400);
    }
    expect((await gw.get(`/api/chain/find-ata?mint=${sandbox.mint}`, { 'x-api-key': key })).body.error).toBe('Missing parameters');
    expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports).toBe(PRICE);
  });
});

describe('rate limits', () => {
  test('429 with Retry-After and RateLimit headers, per key', async () => {
    const { gw } = await gatewayWith({ rateLimitRps: 1, rateLimitBurst: 3 });
    try {
      const statuses: number[] = [];
      let last: Headers | undefined;
      for (let i = 0; i < 5; i++) {
        const res = await gw.get('/api/chain/blockhash');
        statuses.push(res.status);
        last = res.headers;
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(Number(last!.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(last!.get('ratelimit-limit')).toBe('3');
      expect(last!.get('ratelimit-remaining')).toBe('0');
    } finally {
      await gw.stop();
    }
  });
});

describe('secrets at rest', () => {
  test('no issued key appears in plain text in any SQLite file or its WAL', () => {
    expect(issuedKeys.length).toBeGreaterThanOrEqual(6);
    for (const db of databases) {
      for (const file of [db, `${db}-wal`]) {
        if (!existsSync(file)) continue;
        const bytes = readFileSync(file).toString('latin1');
        for (const key of issuedKeys) {
          expect(bytes.includes(key)).toBe(false);
          expect(bytes.includes(key.slice(4))).toBe(false);
        }
      }
    }
  });
});

describe('a gateway without a deposit address', () => {
  test('serves free calls and says plainly in the 402 body that deposits are not configured', async () => {
    const gw = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], devnetRpcUrls: [sandbox.chain.url] });
    try {
      expect((await gw.get('/api/chain/blockhash')).status).toBe(200);
      const res = await gw.get(`/api/chain/find-ata?wallet=${sandbox.chain.payer.address}&mint=${sandbox.mint}`);
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ error: 'Payment required', priceLamports: PRICE, payTo: null });
      expect(res.body.instructions).toContain('not configured');
      expect((await gw.post('/api/payments/webhook', [], { authorization: 'x' })).status).toBe(404);
    } finally {
      await gw.stop();
    }
  });
});
