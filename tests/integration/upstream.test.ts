// Upstream access through the real server: failover, time limits, retries, malformed answers,
// and secrets in RPC URLs kept out of bodies and logs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

let chain: Sandbox;

/** A loopback URL nothing listens on: connections are refused at once. */
function deadUrl(): string {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const url = `http://127.0.0.1:${s.port}/?api-key=DEAD-SECRET-123`;
  s.stop(true);
  return url;
}

beforeAll(async () => {
  chain = await startSandbox();
});
afterAll(async () => {
  await chain.stop();
});

describe('failover', () => {
  test('a dead primary URL fails over to the live second one', async () => {
    const gw = await startGateway({ mainnetRpcUrls: [deadUrl(), chain.url] });
    try {
      const wallet = await chain.newWallet(777_000_000n);
      const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
      expect(res.status).toBe(200);
      expect(res.body.balance_lamports).toBe(777_000_000);
    } finally {
      await gw.stop();
    }
  });

  test('when every URL is dead: 500 with live_status FAILED and no URL or key in the body or logs', async () => {
    const gw = await startGateway({ mainnetRpcUrls: [deadUrl(), deadUrl()], rpcRetries: 1 });
    try {
      const res = await gw.get('/api/chain/blockhash');
      expect(res.status).toBe(500);
      expect(res.body.live_status).toBe('FAILED');
      expect(res.body.error).toContain('upstream #2');
      const everything = JSON.stringify(res.body) + gw.logs.join('\n');
      expect(everything).not.toContain('DEAD-SECRET-123');
      expect(everything).not.toContain('127.0.0.1:');
    } finally {
      await gw.stop();
    }
  });
});

describe('faults of a live node', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ mainnetRpcUrls: [chain.url], rpcTimeoutMs: 400, rpcRetries: 2 });
  });
  afterAll(async () => {
    chain.fault(null);
    await gw.stop();
  });

  test('a hanging node: 500 within the time limit, and the server keeps serving', async () => {
    const wallet = await chain.newWallet(5_000_000n);
    chain.fault({ mode: 'hang' }, { methods: ['getBalance'] });
    const started = performance.now();
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    const elapsed = performance.now() - started;
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ live_status: 'FAILED' });
    expect(res.body.error).toContain('timed out');
    // One attempt's time limit, not one per retry round.
    expect(elapsed).toBeLessThan(400 * 2);
    expect((await gw.get('/healthz')).status).toBe(200);
    expect((await gw.get('/api/chain/blockhash')).status).toBe(200);
    chain.fault(null);
    expect((await gw.get(`/api/chain/balance?wallet=${wallet.address}`)).body.balance_lamports).toBe(5_000_000);
  });

  test('HTTP 429 once is retried after a backoff and succeeds', async () => {
    const wallet = await chain.newWallet(6_000_000n);
    chain.resetCalls();
    chain.fault({ mode: 'http429' }, { methods: ['getBalance'], times: 1 });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    expect(res.status).toBe(200);
    expect(res.body.balance_lamports).toBe(6_000_000);
    expect(chain.calls('getBalance')).toBe(2);
  });

  test('HTTP 500 on every attempt: retried up to the limit, then a 500', async () => {
    const wallet = await chain.newWallet(6_000_000n);
    chain.resetCalls();
    chain.fault({ mode: 'http500' }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.error).toContain('HTTP 500');
    expect(chain.calls('getBalance')).toBe(3);
  });

  test('a garbage (non-JSON) answer is a 500, not a crash', async () => {
    const wallet = await chain.newWallet(6_000_000n);
    chain.fault({ mode: 'garbage' }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.error).toContain('malformed');
  });

  test("a node's JSON-RPC error is reported as such and not retried", async () => {
    const wallet = await chain.newWallet(6_000_000n);
    chain.resetCalls();
    chain.fault({ mode: 'rpcError', code: -32602, message: 'Invalid param: WrongSize' }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.error).toContain('-32602');
    expect(chain.calls('getBalance')).toBe(1);
  });

  test('a slow but timely node is waited for', async () => {
    const wallet = await chain.newWallet(8_000_000n);
    chain.fault({ mode: 'slow', delayMs: 150 }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    chain.fault(null);
    expect(res.status).toBe(200);
    expect(res.body.balance_lamports).toBe(8_000_000);
  });
});
