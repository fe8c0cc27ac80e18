// Upstream access through the real server: failover, time limits, retries, malformed answers,
// and secrets in RPC URLs kept out of bodies and logs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Upstream } from '../../src/chain/upstream.ts';
import { silentLogger } from '../../src/log.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { freePort } from '../support/process.ts';

const sandbox = sandboxGateways();

/** A loopback URL nothing listens on: connections are refused at once. */
function deadUrl(): string {
  return `http://127.0.0.1:${freePort()}/?api-key=DEAD-SECRET-123`;
}


describe('failover', () => {
  test('a dead primary URL fails over to the live second one', async () => {
    const gw = await startGateway({ mainnetRpcUrls: [deadUrl(), sandbox.chain.url] });
    try {
      const wallet = await sandbox.chain.newWallet(777_000_000n);
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
    gw = await sandbox.gateway({ rpcTimeoutMs: 400, rpcRetries: 2 });
  });
  afterAll(() => sandbox.chain.fault(null));

  test('a hanging node: 500 within the time limit, and the server keeps serving', async () => {
    const wallet = await sandbox.chain.newWallet(5_000_000n);
    sandbox.chain.fault({ mode: 'hang' }, { methods: ['getBalance'] });
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
    sandbox.chain.fault(null);
    expect((await gw.get(`/api/chain/balance?wallet=${wallet.address}`)).body.balance_lamports).toBe(5_000_000);
  });

  test('HTTP 429 once is retried after a backoff and succeeds', async () => {
    const wallet = await sandbox.chain.newWallet(6_000_000n);
    sandbox.chain.resetCalls();
    sandbox.chain.fault({ mode: 'http429' }, { methods: ['getBalance'], times: 1 });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    expect(res.status).toBe(200);
    expect(res.body.balance_lamports).toBe(6_000_000);
    expect(sandbox.chain.calls('getBalance')).toBe(2);
  });

  test('HTTP 500 on every attempt: retried up to the limit, then a 500', async () => {
    const wallet = await sandbox.chain.newWallet(6_000_000n);
    sandbox.chain.resetCalls();
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    sandbox.chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.error).toContain('HTTP 500');
    expect(sandbox.chain.calls('getBalance')).toBe(3);
  });

  test('a garbage (non-JSON) answer is a 500, not a crash', async () => {
    const wallet = await sandbox.chain.newWallet(6_000_000n);
    sandbox.chain.fault({ mode: 'garbage' }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    sandbox.chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.error).toContain('malformed');
  });

  test("a node's JSON-RPC error is reported as such and not retried", async () => {
    const wallet = await sandbox.chain.newWallet(6_000_000n);
    sandbox.chain.resetCalls();
    sandbox.chain.fault({ mode: 'rpcError', code: -32602, message: 'Invalid param: WrongSize' }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    sandbox.chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body.error).toContain('-32602');
    expect(sandbox.chain.calls('getBalance')).toBe(1);
  });

  test('a slow but timely node is waited for', async () => {
    const wallet = await sandbox.chain.newWallet(8_000_000n);
    sandbox.chain.fault({ mode: 'slow', delayMs: 150 }, { methods: ['getBalance'] });
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    sandbox.chain.fault(null);
    expect(res.status).toBe(200);
    expect(res.body.balance_lamports).toBe(8_000_000);
  });
});

describe('the answer cache', () => {
  test('is bounded by bytes, least recently used out first, and serves hits without the node', async () => {
    const wallet = await sandbox.chain.newWallet(1_000_000_000n);
    const sigs = [];
    for (let i = 0; i < 5; i++) sigs.push(await sandbox.chain.transferSol(wallet, sandbox.chain.payer.address, BigInt(1000 + i)));
    const get = (up: Upstream, sig: string) => up.call('getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }], { cacheMs: Infinity });
    const probe = new Upstream({ label: 'probe', urls: [sandbox.chain.url], timeoutMs: 2000, retries: 0, log: silentLogger });
    const one = JSON.stringify(await get(probe, sigs[0]!)).length;
    // Room for four answers (an answer over a quarter of the budget would not be kept at all).
    const up = new Upstream({ label: 't', urls: [sandbox.chain.url], timeoutMs: 2000, retries: 0, log: silentLogger, cacheBytes: Math.floor(one * 4.5) });
    sandbox.chain.resetCalls();
    for (const i of [0, 1, 2, 3]) await get(up, sigs[i]!);
    await get(up, sigs[0]!); // a hit: sigs[0] becomes the most recent
    expect(sandbox.chain.calls('getTransaction')).toBe(4);
    await get(up, sigs[4]!); // over budget: evicts sigs[1], now the least recently used
    expect(sandbox.chain.calls('getTransaction')).toBe(5);
    for (const i of [0, 2, 3, 4]) await get(up, sigs[i]!);
    expect(sandbox.chain.calls('getTransaction')).toBe(5);
    await get(up, sigs[1]!);
    expect(sandbox.chain.calls('getTransaction')).toBe(6);
  });
});

describe('stale-while-revalidate', () => {
  test('an aged answer within staleMs is served at once while one refresh goes to the node; past it callers wait', async () => {
    const up = new Upstream({ label: 'swr', urls: [sandbox.chain.url], timeoutMs: 2000, retries: 0, log: silentLogger });
    const opts = { cacheMs: 100, staleMs: 400 };
    const ask = () => up.call<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment: 'finalized' }], opts);
    sandbox.chain.resetCalls();
    const first = await ask();
    expect(sandbox.chain.calls('getLatestBlockhash')).toBe(1);
    await Bun.sleep(150);
    // Aged: a slow node must not hold the callers up; ten callers cause one refresh.
    sandbox.chain.fault({ mode: 'slow', delayMs: 250 }, { methods: ['getLatestBlockhash'] });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 10 }, ask));
    expect(performance.now() - started).toBeLessThan(100);
    expect(answers.every((a) => a.value.blockhash === first.value.blockhash)).toBe(true);
    await Bun.sleep(350);
    expect(sandbox.chain.calls('getLatestBlockhash')).toBe(2);
    sandbox.chain.fault(null);
    // Past cacheMs + staleMs with the node down: the caller waits for the node and gets its failure.
    await Bun.sleep(600);
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getLatestBlockhash'] });
    await expect(ask()).rejects.toThrow('HTTP 500');
    sandbox.chain.fault(null);
  });
});

describe('why an upstream did not answer (what /readyz shows)', () => {
  const upstream = (urls: string[], fetch?: typeof globalThis.fetch) => new Upstream({ label: 'why', urls, timeoutMs: 200, retries: 0, log: silentLogger, fetch });
  const failureOf = async (u: Upstream) => {
    await Promise.resolve(u.call('getSlot')).catch(() => {});
    return u.failureReason();
  };

  test.each([
    [{ mode: 'http500' } as const, 'HTTP 500'],
    [{ mode: 'http429' } as const, 'HTTP 429'],
    [{ mode: 'garbage' } as const, 'malformed JSON'],
    [{ mode: 'hang' } as const, 'no answer within 0.2 s'],
  ])('a live node at fault (%p): %p', async (fault, reason) => {
    sandbox.chain.fault(fault);
    try {
      expect(await failureOf(upstream([sandbox.chain.url]))).toBe(reason);
    } finally {
      sandbox.chain.fault(null);
    }
  });

  test('a refused connection, each URL by position, and cleared once that URL answers', async () => {
    const u = upstream([deadUrl(), sandbox.chain.url]);
    sandbox.chain.fault({ mode: 'http500' });
    try {
      expect(await failureOf(u)).toBe('#1 unreachable: connection refused; #2 HTTP 500');
    } finally {
      sandbox.chain.fault(null);
    }
    expect(await failureOf(u)).toBe('#1 unreachable: connection refused');
    expect(await failureOf(upstream([sandbox.chain.url]))).toBeUndefined();
  });

  // Failures a loopback node cannot produce on demand; Bun's own messages quote the URL, key and all.
  test.each([
    ['ENOTFOUND', 'unreachable: host name not found'],
    ['ECONNRESET', 'unreachable: connection reset'],
    ['CERT_HAS_EXPIRED', 'unreachable: TLS certificate rejected'],
    ['ConnectionClosed', 'unreachable: ConnectionClosed'],
    ['http://rpc.example/?api-key=DEAD-SECRET-123', 'unreachable: cannot connect'],
    [undefined, 'unreachable: cannot connect'],
  ])('a socket error coded %p reads %p, with nothing of the URL', async (code, reason) => {
    const url = 'https://rpc.example/?api-key=DEAD-SECRET-123';
    const failing = (async () => {
      throw Object.assign(new TypeError(`${code}: Unable to connect to ${url}`), { code, path: url });
    }) as unknown as typeof globalThis.fetch;
    expect(await failureOf(upstream([url], failing))).toBe(reason);
  });
});
