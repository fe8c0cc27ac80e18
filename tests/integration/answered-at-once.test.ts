// What needs no waiting is answered without it: a cached upstream answer is the value itself, and a
// free call whose answer is cached (key and rate-limit bucket in memory) comes out of the pipeline,
// the REST route and the metrics wrapper as a Response, not a promise of one. Each await of a
// value already there costs a request a turn of the microtask queue; these hold the hot path to
// that, and hold that answers and refusals given at once are the ones given later.
import { beforeAll, describe, expect, test } from 'bun:test';
import { blockhash } from '../../src/capabilities/blockhash.ts';
import { call } from '../../src/calls/pipeline.ts';
import type { Caller } from '../../src/calls/caller.ts';
import { Upstream } from '../../src/chain/upstream.ts';
import { silentLogger } from '../../src/log.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

const sandbox = sandboxGateways();

test('a cached upstream answer is the value itself, not a promise; a miss is a promise and reaches the node once', async () => {
  const up = new Upstream({ label: 'mem', urls: [sandbox.chain.url], timeoutMs: 2000, retries: 0, log: silentLogger });
  const ask = () => up.call<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment: 'finalized' }], { cacheMs: 60_000 });
  sandbox.chain.resetCalls();
  const miss = ask();
  expect(miss).toBeInstanceOf(Promise);
  const first = await miss;
  const hit = ask();
  expect(hit).not.toBeInstanceOf(Promise);
  expect(hit).toBe(first);
  expect(sandbox.chain.calls('getLatestBlockhash')).toBe(1);
});

// Rate limits on (the default) and off: with both, a bucket in this process is decided at once.
for (const rateLimitRps of [0, 20]) {
  describe(`rate limits ${rateLimitRps ? 'on' : 'off'}`, () => {
    let gw: TestGateway;
    const caller: Caller = { address: '198.51.100.7', face: 'rest' };
    beforeAll(async () => {
      gw = await sandbox.gateway({ rateLimitRps, rateLimitBurst: 3 });
    });

    test('a free call is a promise while its answer is fetched, then an outcome at once, the same answer', async () => {
      const cold = call(blockhash, {}, { ...caller, address: '198.51.100.1' }, gw.services);
      expect(cold).toBeInstanceOf(Promise);
      const fetched = await cold;
      expect(fetched.status).toBe(200);
      const cached = call(blockhash, {}, { ...caller, address: '198.51.100.2' }, gw.services);
      expect(cached).not.toBeInstanceOf(Promise);
      expect(cached).toMatchObject({ status: 200, body: { ...fetched.body } });
      expect((cached as { body: Record<string, unknown> }).body).toMatchObject({ network: 'mainnet-beta', live_status: 'SUCCESS' });
    });

    test('bad input is refused at once with the same 400 as ever', () => {
      const refused = call(blockhash, { network: 'testnet' }, caller, gw.services);
      expect(refused).not.toBeInstanceOf(Promise);
      expect(refused).toMatchObject({ status: 400, body: { live_status: 'FAILED' } });
    });

    test('the direct REST route answers a cached call with a Response, not a promise, and the same body on the wire', async () => {
      const route = gw.app.direct.find((r) => r.path === '/api/chain/blockhash')!;
      const server = (gw.app as unknown as { server: unknown }).server;
      const direct = route.handle(new Request(gw.url + '/api/chain/blockhash'), server);
      expect(direct).toBeInstanceOf(Response);
      const wire = await gw.get('/api/chain/blockhash');
      expect(wire.status).toBe(200);
      expect(await (direct as Response).json()).toEqual(wire.body);
    });

    if (rateLimitRps) {
      test('an empty bucket is a 429 at once, with its Retry-After', () => {
        const hasty: Caller = { address: '198.51.100.99', face: 'rest' };
        const outcomes = Array.from({ length: 5 }, () => call(blockhash, {}, hasty, gw.services));
        expect(outcomes.some((o) => o instanceof Promise)).toBe(false);
        const statuses = outcomes.map((o) => (o as { status: number }).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
        expect((outcomes[3] as { headers: Record<string, string> }).headers['retry-after']).toBeDefined();
      });
    }
  });
}

test('/api/keys/me refuses an unknown key at once with its 401', async () => {
  const gw = await startGateway({ mainnetRpcUrls: [sandbox.chain.url] });
  try {
    const route = gw.app.direct.find((r) => r.path === '/api/keys/me')!;
    const server = (gw.app as unknown as { server: unknown }).server;
    const answer = route.handle(new Request(gw.url + '/api/keys/me', { headers: { 'x-api-key': 'not-a-key' } }), server);
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(401);
    expect(await gw.get('/api/keys/me', { 'x-api-key': 'not-a-key' })).toMatchObject({ status: 401, body: await (answer as Response).json() });
  } finally {
    await gw.stop();
  }
});
