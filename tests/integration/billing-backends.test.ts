// The billing guarantees on both stores: the embedded SQLite file and PostgreSQL (DATABASE_URL).
// Same real server, same sandbox chain, same assertions; only the database differs.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { DepositWatcher } from '../../src/billing/watcher.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { claim, claimWhenSeen, deposit, heliusPayload } from '../support/agent.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

// Real processes and a real database on a busy 2-core machine: seconds, not milliseconds.
setDefaultTimeout(30_000);

const PRICE = 2_200_000;
const SECRET = 'whsec_backends';

const sandbox = sandboxGateways({ mint: true });


for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('billing-backends'))(`billing on ${backend}`, () => {
    let gw: TestGateway;
    let gatewayAddress: Address;

    beforeAll(async () => {
      gatewayAddress = (await generateKeyPairSigner()).address;
      const databaseUrl = backend === 'postgres' ? await freshDatabase() : undefined;
      gw = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], devnetRpcUrls: [sandbox.chain.url], gatewayAddress, webhookSecret: SECRET, freeCalls: 2, databaseUrl });
      expect(gw.services.store.backend).toBe(backend);
    }, POSTGRES_HOOK_TIMEOUT_MS);
    afterAll(() => gw?.stop());

    const watcher = () =>
      new DepositWatcher({ store: gw.services.store, rpc: gw.services.upstreams['mainnet-beta'], network: 'mainnet-beta', gateway: gatewayAddress, minDepositLamports: gw.config.minDepositLamports, log: gw.services.log });
    const paidCall = (key: string, wallet: string) => gw.get(`/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, { 'x-api-key': key });

    test('deposit -> watcher -> claim -> free calls, then credit, then 402; a later claim revokes the old key', async () => {
      const agent = await sandbox.chain.newWallet(1_000_000_000n);
      await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE + 1000));
      expect(await watcher().poll()).toBeGreaterThanOrEqual(1);
      const key = await claimWhenSeen(gw, agent, 0);
      expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body).toMatchObject({ freeCallsRemaining: 2, creditLamports: PRICE + 1000, callsMade: 0 });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await paidCall(key, agent.address)).status);
      expect(statuses).toEqual([200, 200, 200, 402]);
      expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body).toMatchObject({ freeCallsRemaining: 0, creditLamports: 1000, callsMade: 3 });
      // The usage history shows the three charged calls (Postgres writes its rows just after answering).
      let calls: { paidWith: string }[] = [];
      for (let i = 0; i < 250 && calls.length < 3; i++, await Bun.sleep(20)) calls = (await gw.get('/api/keys/me/usage', { 'x-api-key': key })).body.calls;
      expect(calls.map((c) => c.paidWith)).toEqual(['credit', 'free_call', 'free_call']);

      await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
      await watcher().poll();
      const second = await claimWhenSeen(gw, agent, 0);
      expect((await gw.get('/api/keys/me', { 'x-api-key': key })).status).toBe(401);
      expect((await gw.get('/api/keys/me', { 'x-api-key': second })).body).toMatchObject({ creditLamports: PRICE + 1000 });
    });

    test('every deposit the watcher records is counted in gateway_deposits_total, whichever database recorded it', async () => {
      const counted = async () => {
        const text = await (await fetch(`${gw.url}/metrics`)).text();
        return [...text.matchAll(/^gateway_deposits_total\{([^}]*)\} (\d+)$/gm)].filter((m) => m[1]!.includes('source="watcher"')).reduce((n, m) => n + Number(m[2]), 0);
      };
      const before = await counted();
      const agent = await sandbox.chain.newWallet(1_000_000_000n);
      await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
      const recorded = await watcher().poll();
      expect(recorded).toBeGreaterThanOrEqual(1);
      expect((await counted()) - before).toBe(recorded);
    });

    test('600 concurrent debits on credit for exactly 111 calls: exactly 111 succeed, the balance ends at 0; refunds give back exactly', async () => {
      const { store } = gw.services;
      const wallet = (await generateKeyPairSigner()).address;
      await store.recordDeposit({ signature: `ledger-${backend}`, network: 'mainnet-beta', wallet, lamports: BigInt(111 * PRICE), source: 'webhook' }, 0n);
      expect(await store.claim(wallet, 0, Date.now())).toMatchObject({ freeCalls: 0, creditLamports: BigInt(111 * PRICE) });
      const debits = await Promise.all(Array.from({ length: 600 }, () => store.debit(wallet, PRICE, newCallId())));
      const taken = debits.filter((d) => d !== null);
      expect(taken).toHaveLength(111);
      expect(taken.every((d) => d.balance.creditLamports >= 0n)).toBe(true);
      expect(await store.account(wallet)).toMatchObject({ creditLamports: 0n, callsMade: 111 });
      // Each refund asked twice at once: given back once.
      const refunds = await Promise.all(taken.flatMap((d) => [store.refund(d), store.refund(d)]));
      expect(refunds.filter((r) => r.given !== null)).toHaveLength(111);
      expect(await store.account(wallet)).toMatchObject({ creditLamports: BigInt(111 * PRICE), callsMade: 0 });
      await expect(store.refund({ callId: newCallId(), wallet: 'nobody', kind: 'credit', price: PRICE, balance: { freeCalls: 0, creditLamports: 0n } })).rejects.toThrow('vanished');
    });

    test('one call id is debited once: asked again later, or twice at once', async () => {
      const { store } = gw.services;
      const wallet = (await generateKeyPairSigner()).address;
      await store.recordDeposit({ signature: `replay-${backend}`, network: 'mainnet-beta', wallet, lamports: BigInt(10 * PRICE), source: 'webhook' }, 0n);
      await store.claim(wallet, 0, Date.now());
      const id = newCallId();
      expect(await store.debit(wallet, PRICE, id)).toMatchObject({ callId: id, kind: 'credit' });
      await store.debit(wallet, PRICE, id);
      const twin = newCallId();
      await Promise.all([store.debit(wallet, PRICE, twin), store.debit(wallet, PRICE, twin)]);
      expect(await store.account(wallet)).toMatchObject({ creditLamports: BigInt(8 * PRICE), callsMade: 2 });
    });

    test('the same deposit posted 20 times at once and seen by two watchers is credited once', async () => {
      const agent = await sandbox.chain.newWallet(100_000_000n);
      const sig = await deposit(sandbox.chain, agent, gatewayAddress, 7_000_000n);
      const payload = heliusPayload(sig, agent.address, gatewayAddress, 7_000_000);
      const results = await Promise.all([
        ...Array.from({ length: 20 }, () => gw.post('/api/payments/webhook', payload, { authorization: SECRET })),
        watcher().poll(),
        watcher().poll(),
      ]);
      const outcomes = results.slice(0, 20).map((r: any) => r.body.deposits[0].outcome);
      expect(outcomes.filter((o: string) => o === 'credited').length).toBeLessThanOrEqual(1);
      const key = await claimWhenSeen(gw, agent, 0);
      expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports).toBe(7_000_000);
    });

    test('two claims at once: one key, the other finds nothing pending; a challenge works once', async () => {
      const agent = await sandbox.chain.newWallet(100_000_000n);
      const sig = await deposit(sandbox.chain, agent, gatewayAddress, 5_000_000n);
      await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, 5_000_000), { authorization: SECRET });
      const [a, b] = await Promise.all([claim(gw, agent), claim(gw, agent)]);
      // A newer challenge for the wallet supersedes the older, so the loser sees 401 or 404.
      expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
      expect([a.status, b.status].every((s) => s === 200 || s === 401 || s === 404)).toBe(true);

      const { body } = await gw.get('/api/keys/challenge');
      const { store } = gw.services;
      expect(await store.consumeChallenge(body.challenge, agent.address, Date.now())).toBe(true);
      expect(await store.consumeChallenge(body.challenge, agent.address, Date.now())).toBe(false);
    });

    test('transfers below the minimum add up per sender (watcher only) and become one credit when they reach it', async () => {
      const { store } = gw.services;
      const wallet = (await generateKeyPairSigner()).address;
      const min = 3_000_000n;
      const small = (i: number, source: 'watcher' | 'webhook' = 'watcher') => store.recordDeposit({ signature: `dust-${backend}-${i}-${source}`, network: 'mainnet-beta', wallet, lamports: 1_200_000n, source }, min);
      expect(await small(0, 'webhook')).toBe('below_minimum');
      expect([await small(1), await small(2), await small(3)]).toEqual(['dust', 'dust', 'credited']);
      expect(await store.claim(wallet, 0, Date.now())).toMatchObject({ creditLamports: 3_600_000n });
    });

    test('a restarted watcher resumes from the persisted cursor: old deposits are not recorded again', async () => {
      const agent = await sandbox.chain.newWallet(100_000_000n);
      await deposit(sandbox.chain, agent, gatewayAddress, 3_000_000n);
      await watcher().poll();
      expect(await watcher().poll()).toBe(0);
      expect((await gw.services.store.watcherCursor('mainnet-beta', gatewayAddress)).last?.signature).toBeString();
      await deposit(sandbox.chain, agent, gatewayAddress, 4_000_000n);
      expect(await watcher().poll()).toBe(1);
    });
  });
}
