// The billing side of "safe on the open internet": each test attacks one finding through the real
// server, a real SQLite file and real transactions on the sandbox sandbox.chain.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import type { TestGateway } from '../support/gateway.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { Config } from '../../src/config.ts';
import { claim, claimWhenSeen, deposit, heliusPayload, signChallenge } from '../support/agent.ts';
import { requestFrom } from '../support/peer.ts';
import { base58 } from '@scure/base';
import { parseJson, toJson } from '../../src/json.ts';
import { loadConfig } from '../../src/config.ts';
import { DepositWatcher } from '../../src/billing/watcher.ts';
import { Upstream } from '../../src/chain/upstream.ts';

const PRICE = 2_200_000;
// Several real transactions and claims per test: generous on a loaded machine.
setDefaultTimeout(30_000);

const sandbox = sandboxGateways({ mint: true });

async function gatewayWith(overrides: Partial<Config> = {}) {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  // The watcher is built (poll interval > 0) but polled by the tests themselves.
  const gw = await sandbox.gateway({ gatewayAddress, depositPollSeconds: 3600, ...overrides });
  return { gw, gatewayAddress };
}

/** A sandbox wallet holding `lamports`, more than the sandbox faucet could ever fund. */
async function whale(lamports: bigint) {
  const w = await generateKeyPairSigner();
  sandbox.chain.svm.setAccount({ address: w.address, lamports, data: new Uint8Array(0), executable: false, programAddress: '11111111111111111111111111111111' as Address, space: 0n } as never);
  return w;
}

describe('exact amounts', () => {
  test('a deposit of 2^60 lamports is credited exactly and shown exactly in /api/keys/me and x-credits-remaining', async () => {
    const { gw, gatewayAddress } = await gatewayWith({ freeCalls: 0 });
    const amount = 2n ** 60n;
    const agent = await whale(amount + 1_000_000_000n);
    await deposit(sandbox.chain, agent, gatewayAddress, amount);
    await gw.services.watcher!.poll();
    const key = await claimWhenSeen(gw, agent, 0);
    const me = await fetch(`${gw.url}/api/keys/me`, { headers: { 'x-api-key': key } });
    const body = parseJson(await me.text()) as Record<string, unknown>;
    expect(body.creditLamports).toBe(amount);
    expect(BigInt(body.paidCallsAvailable as number)).toBe(amount / BigInt(PRICE));
    const paid = await gw.get(`/api/chain/find-ata?wallet=${agent.address}&mint=${sandbox.mint}`, { 'x-api-key': key });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('x-credits-remaining')).toBe((amount - BigInt(PRICE)).toString());
  });
});

const rows = (gw: TestGateway, sql: string) => gw.sqlite().query(sql).get() as Record<string, number>;

describe('exact amounts through the webhook', () => {
  test('a reported amount past 2^53 (a rounded JSON number) is credited at the exact amount the chain shows', async () => {
    const { gw, gatewayAddress } = await gatewayWith({ webhookSecret: 'whsec_exact', freeCalls: 0 });
    const amount = 2n ** 60n + 12_345n;
    const agent = await whale(amount + 1_000_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, amount);
    const hook = await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, amount), { authorization: 'whsec_exact' });
    expect(hook.status).toBe(200);
    expect(hook.body.deposits).toEqual([{ signature: sig, wallet: agent.address, lamports: amount.toString(), outcome: 'credited' }]);
    const key = await claimWhenSeen(gw, agent, 0);
    const me = parseJson(await (await fetch(`${gw.url}/api/keys/me`, { headers: { 'x-api-key': key } })).text()) as Record<string, unknown>;
    expect(me.creditLamports).toBe(amount);
  });
});

describe('the deposit watcher', () => {
  test('a listed transaction the node never shows stops the walk for a while, not for ever', async () => {
    const { gw, gatewayAddress } = await gatewayWith();
    const [a, b, c] = [await sandbox.chain.newWallet(1_000_000_000n), await sandbox.chain.newWallet(1_000_000_000n), await sandbox.chain.newWallet(1_000_000_000n)];
    await deposit(sandbox.chain, a, gatewayAddress, BigInt(PRICE));
    const dropped = await deposit(sandbox.chain, b, gatewayAddress, BigInt(PRICE));
    await deposit(sandbox.chain, c, gatewayAddress, BigInt(PRICE));
    // A node that lists `dropped` but answers null for it (a hand-written fault: a confirmed block
    // that never finalizes cannot be made on the sandbox).
    const forgetful = (async (url: string, init: RequestInit) => {
      const req = JSON.parse(String(init.body));
      if (req.method === 'getTransaction' && req.params[0] === dropped) return new Response(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: null }));
      return fetch(url, init);
    }) as unknown as typeof fetch;
    let clock = 0;
    const watcher = new DepositWatcher({
      store: gw.services.store,
      rpc: new Upstream({ label: 'test', urls: [sandbox.chain.url], timeoutMs: 2000, retries: 0, log: gw.services.log, fetch: forgetful }),
      network: 'mainnet-beta',
      gateway: gatewayAddress,
      minDepositLamports: PRICE,
      log: gw.services.log,
      now: () => clock,
    });
    await watcher.poll();
    expect((await claim(gw, c)).status).toBe(200);
    expect((await claim(gw, a)).status).toBe(404);
    clock = 11 * 60_000;
    await watcher.poll();
    expect((await claim(gw, a)).status).toBe(200);
    expect((await claim(gw, b)).status).toBe(404);
  });

  test('small transfers from one wallet add up: once their sum reaches the minimum it is claimable', async () => {
    const { gw, gatewayAddress } = await gatewayWith();
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    await deposit(sandbox.chain, agent, gatewayAddress, 1_000_000n);
    await deposit(sandbox.chain, agent, gatewayAddress, 1_000_000n);
    await gw.services.watcher!.poll();
    expect((await claim(gw, agent)).status).toBe(404);
    expect(rows(gw, 'SELECT count(*) AS n FROM deposits').n).toBe(0);
    await deposit(sandbox.chain, agent, gatewayAddress, 300_000n);
    await gw.services.watcher!.poll();
    const key = await claimWhenSeen(gw, agent, 0);
    expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports).toBe(2_300_000);
    expect(rows(gw, 'SELECT count(*) AS n FROM dust_totals').n).toBe(0);
  });
});

describe('claim challenges', () => {
  const SECRET = 'whsec_challenges_3';

  test("a third party's challenges for your wallet do not break your claim; your own newer one still supersedes", async () => {
    const { gw, gatewayAddress } = await gatewayWith({ webhookSecret: SECRET });
    const owner = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await deposit(sandbox.chain, owner, gatewayAddress, BigInt(PRICE));
    expect((await gw.post('/api/payments/webhook', heliusPayload(sig, owner.address, gatewayAddress, PRICE), { authorization: SECRET })).status).toBe(200);
    const askAs = async (peer: string) => (await requestFrom(peer, `${gw.url}/api/keys/challenge?wallet=${owner.address}`)).body.challenge as string;

    // The owner's own rule holds: an older challenge of theirs is superseded by their newer one.
    const superseded = await askAs('127.0.0.2');
    const mine = await askAs('127.0.0.2');
    // Meanwhile an attacker at another address asks for challenges in the owner's name, again and again.
    for (let i = 0; i < 5; i++) await askAs('127.0.0.3');

    const claimWith = async (challenge: string) =>
      requestFrom('127.0.0.2', `${gw.url}/api/keys/claim`, { body: { wallet: owner.address, signature: await signChallenge(owner, challenge), challenge } });
    expect((await claimWith(superseded)).status).toBe(401);
    const ok = await claimWith(mine);
    expect(ok.status).toBe(200);
    expect(ok.body.apiKey).toMatch(/^cig_/);
  });

  test('issuance is rate limited per client address: one address at its limit does not stop another', async () => {
    const { gw } = await gatewayWith({ challengesPerMinute: 3 });
    const ask = (peer: string) => requestFrom(peer, `${gw.url}/api/keys/challenge`);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await ask('127.0.0.4')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await ask('127.0.0.4');
    expect(refused.body.error).toBe('Too many requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await ask('127.0.0.5')).status).toBe(200);
    expect(rows(gw, 'SELECT count(*) AS n FROM challenges').n).toBe(4);
  });
});

describe('the deposit webhook', () => {
  const SECRET = 'whsec_batch_6';

  test('a batch with malformed entries credits the valid ones, names the bad ones, and is never a 5xx', async () => {
    const { gw, gatewayAddress } = await gatewayWith({ webhookSecret: SECRET });
    const [a, b] = [await sandbox.chain.newWallet(1_000_000_000n), await sandbox.chain.newWallet(1_000_000_000n)];
    const sigA = await deposit(sandbox.chain, a, gatewayAddress, BigInt(PRICE));
    const sigB = await deposit(sandbox.chain, b, gatewayAddress, BigInt(2 * PRICE));
    const [entryA] = heliusPayload(sigA, a.address, gatewayAddress, PRICE);
    const [entryB] = heliusPayload(sigB, b.address, gatewayAddress, 2 * PRICE);
    const transfer = (over: Record<string, unknown>) => ({ ...entryA, nativeTransfers: [{ ...entryA!.nativeTransfers[0], ...over }] });
    const bad = [
      { ...entryA, signature: '0OIl-not-base58' },
      null,
      { ...entryA, signature: 'abc' },
      transfer({ amount: 'lots' }),
      transfer({ amount: -5 }),
      transfer({ fromUserAccount: { $gt: '' } }),
      { ...entryA, nativeTransfers: 'none' },
      { ...entryA, nativeTransfers: [{ ...entryA!.nativeTransfers[0], amount: 2 ** 62 }, { ...entryA!.nativeTransfers[0], amount: 2 ** 62 }] },
    ];
    const res = await gw.post('/api/payments/webhook', [entryA, ...bad, entryB], { authorization: SECRET });
    expect(res.status).toBe(200);
    expect(res.body.deposits).toEqual([
      { signature: sigA, wallet: a.address, lamports: String(PRICE), outcome: 'credited' },
      { signature: sigB, wallet: b.address, lamports: String(2 * PRICE), outcome: 'credited' },
    ]);
    expect(res.body.skipped.map((s: { index: number }) => s.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(res.body.skipped.every((s: { error: string }) => typeof s.error === 'string' && s.error.length > 0)).toBe(true);
    expect((await gw.get('/api/keys/me', { 'x-api-key': await claimWhenSeen(gw, b, 0) })).body.creditLamports).toBe(2 * PRICE);
    expect((await gw.get('/api/keys/me', { 'x-api-key': await claimWhenSeen(gw, a, 0) })).body.creditLamports).toBe(PRICE);
  });

  test('a node failing while confirming: the other entries are credited, the answer is a 5xx so the provider delivers again, and the redelivery counts once', async () => {
    const { gw, gatewayAddress } = await gatewayWith({ webhookSecret: SECRET, rpcRetries: 0 });
    const [a, b] = [await sandbox.chain.newWallet(1_000_000_000n), await sandbox.chain.newWallet(1_000_000_000n)];
    const sigA = await deposit(sandbox.chain, a, gatewayAddress, BigInt(PRICE));
    const sigB = await deposit(sandbox.chain, b, gatewayAddress, BigInt(PRICE));
    const batch = [...heliusPayload(sigA, a.address, gatewayAddress, PRICE), ...heliusPayload(sigB, b.address, gatewayAddress, PRICE)];
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getTransaction'], times: 1 });
    const first = await gw.post('/api/payments/webhook', batch, { authorization: SECRET });
    expect(first.status).toBe(500);
    expect(first.body.live_status).toBe('FAILED');
    const again = await gw.post('/api/payments/webhook', batch, { authorization: SECRET });
    expect(again.status).toBe(200);
    expect(again.body.deposits.map((d: { outcome: string }) => d.outcome)).toEqual(['credited', 'duplicate']);
    expect((await gw.get('/api/keys/me', { 'x-api-key': await claimWhenSeen(gw, b, 0) })).body.creditLamports).toBe(PRICE);
    expect((await gw.get('/api/keys/me', { 'x-api-key': await claimWhenSeen(gw, a, 0) })).body.creditLamports).toBe(PRICE);
  });
});

describe('TRUSTED_PROXIES', () => {
  // /api/keys/me without a key is a 401 that still draws from the client's rate-limit bucket.
  const me = (gw: TestGateway, peer: string, headers: Record<string, string>) => requestFrom(peer, `${gw.url}/api/keys/me`, { headers }).then((r) => r.status);
  const limited = { rateLimitRps: 0.001, rateLimitBurst: 2 };

  test('X-Forwarded-For from an untrusted peer changes nothing: the bucket stays the socket address', async () => {
    const { gw } = await gatewayWith({ ...limited, trustedProxies: ['127.0.0.1'] });
    const statuses = [];
    for (const forged of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) statuses.push(await me(gw, '127.0.0.2', { 'x-forwarded-for': forged }));
    statuses.push(await me(gw, '127.0.0.2', { forwarded: 'for=10.0.0.4' }));
    expect(statuses).toEqual([401, 401, 429, 429]);
  });

  test('with the default (no trusted proxies) the headers change nothing either', async () => {
    const { gw } = await gatewayWith(limited);
    const statuses = [];
    for (const forged of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) statuses.push(await me(gw, '127.0.0.6', { 'x-forwarded-for': forged }));
    expect(statuses).toEqual([401, 401, 429]);
  });

  test('from a trusted proxy the client address is the first untrusted hop, from X-Forwarded-For or Forwarded', async () => {
    const { gw } = await gatewayWith({ ...limited, trustedProxies: ['127.0.0.1', '10.1.0.0/16'] });
    const proxy = (headers: Record<string, string>) => me(gw, '127.0.0.1', headers);
    // Two clients behind the proxy have a bucket each.
    expect([await proxy({ 'x-forwarded-for': '203.0.113.7' }), await proxy({ 'x-forwarded-for': '203.0.113.7' }), await proxy({ 'x-forwarded-for': '203.0.113.7' })]).toEqual([401, 401, 429]);
    expect(await proxy({ 'x-forwarded-for': '203.0.113.8' })).toBe(401);
    // A client forging a hop in front of the proxy's own entry gets its own (spent) bucket.
    expect(await proxy({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7' })).toBe(429);
    // A chain of trusted proxies is walked past; Forwarded works too, IPv6 with a port included.
    expect(await proxy({ 'x-forwarded-for': '203.0.113.9, 10.1.2.3' })).toBe(401);
    expect(await proxy({ forwarded: 'for="[2001:db8::7]:4711";proto=https' })).toBe(401);
    expect(await proxy({ forwarded: 'for="[2001:db8::7]:4711"' })).toBe(401);
    expect(await proxy({ forwarded: 'for="[2001:db8::7]:4711"' })).toBe(429);
  });
});

describe('deposit quorum', () => {
  /**
   * A lying RPC node (a hand-written fake: no real node lies on demand): it forwards everything to
   * the sandbox but shows every transfer from `victim`... to the gateway as 100 times larger.
   */
  function lyingNode(liar: () => string | undefined) {
    return Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const body = await req.text();
        const upstream = await fetch(sandbox.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const reply = parseJson(await upstream.text()) as { result?: any };
        const tx = reply.result;
        if ((parseJson(body) as { method: string }).method === 'getTransaction' && tx?.transaction) {
          const keys: string[] = tx.transaction.message.accountKeys;
          for (const ix of tx.transaction.message.instructions) {
            if (keys[ix.accounts[0]] !== liar()) continue;
            const data = base58.decode(ix.data);
            const view = new DataView(data.buffer, data.byteOffset);
            if (view.getUint32(0, true) === 2) view.setBigUint64(4, view.getBigUint64(4, true) * 100n, true);
            ix.data = base58.encode(data);
          }
        }
        return new Response(toJson(reply), { headers: { 'content-type': 'application/json' } });
      },
    });
  }

  test('with DEPOSIT_QUORUM=2 one lying node cannot mint credit; deposits both nodes show are credited', async () => {
    let cheat: string | undefined;
    const liar = lyingNode(() => cheat);
    try {
      const cheater = await sandbox.chain.newWallet(1_000_000_000n);
      const honest = await sandbox.chain.newWallet(1_000_000_000n);
      cheat = cheater.address;
      // The liar is the primary: without a quorum, its word alone is credited.
      const alone = await gatewayWith({ mainnetRpcUrls: [`http://127.0.0.1:${liar.port}`, sandbox.chain.url] });
      await deposit(sandbox.chain, cheater, alone.gatewayAddress, BigInt(PRICE));
      await alone.gw.services.watcher!.poll();
      expect((await alone.gw.get('/api/keys/me', { 'x-api-key': await claimWhenSeen(alone.gw, cheater, 0) })).body.creditLamports).toBe(100 * PRICE);

      const { gw, gatewayAddress } = await gatewayWith({ mainnetRpcUrls: [`http://127.0.0.1:${liar.port}`, sandbox.chain.url], depositQuorum: 2 });
      await deposit(sandbox.chain, cheater, gatewayAddress, BigInt(PRICE));
      await deposit(sandbox.chain, honest, gatewayAddress, BigInt(2 * PRICE));
      await gw.services.watcher!.poll();
      expect((await gw.get('/api/keys/me', { 'x-api-key': await claimWhenSeen(gw, honest, 0) })).body.creditLamports).toBe(2 * PRICE);
      expect((await claim(gw, cheater)).status).toBe(404);
      expect(rows(gw, 'SELECT count(*) AS n FROM deposits').n).toBe(1);
    } finally {
      liar.stop(true);
    }
  });

  test('a quorum larger than the payment network URL list is refused at startup', () => {
    expect(() => loadConfig([], { MAINNET_RPC_URLS: 'http://127.0.0.1:1', DEPOSIT_QUORUM: '2' })).toThrow(/DEPOSIT_QUORUM/);
    expect(loadConfig([], { MAINNET_RPC_URLS: 'http://127.0.0.1:1,http://127.0.0.1:2', DEPOSIT_QUORUM: '2' }).depositQuorum).toBe(2);
  });
});
