// What an operator relies on, against the real server process: JSON logs with one access entry per
// request, Prometheus metrics that move with the calls made, no secret in either, /readyz that
// follows the upstreams, and a SIGTERM that lets requests in flight finish.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { generateKeyPairSigner } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { fundedKey } from '../support/agent.ts';
import type { TestGateway } from '../support/gateway.ts';
import { connectMcp } from '../support/mcp.ts';
import { deposit, heliusPayload } from '../support/agent.ts';
import { MAIN, spawnGateway, type GatewayProcess } from '../support/process.ts';

const PRICE = 2_200_000;
const RPC_SECRET = 'rpcK3y0000SECRET';
const WEBHOOK_SECRET = 'whsec-0peRATIONS-hook';
const METRICS_TOKEN = 'metrics-t0ken-abcdef';

const sandbox = sandboxGateways();
let dir: string;
let gw: GatewayProcess;
let gatewayAddress: string;
let keyWallet: string;
/** Every request this test made and what it answered, to hold the access log against. */
const made: { method: string; route: string; status: number }[] = [];

async function req(path: string, init: RequestInit = {}) {
  const res = await fetch(gw.url + path, init);
  const text = await res.text();
  made.push({ method: init.method ?? 'GET', route: path.split('?')[0]!, status: res.status });
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers, text };
}

const client = {
  get: (path: string, headers: Record<string, string> = {}) => req(path, { headers }),
  post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
    req(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
};

const records = () => gw.lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);

async function metrics() {
  const res = await fetch(gw.url + '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, families: parsePrometheusTextFormat(text) };
}

function value(families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cig-ops-'));
  gatewayAddress = (await generateKeyPairSigner()).address;
  // The RPC URL carries a key in its query, as hosted RPC URLs do.
  const rpc = `${sandbox.chain.url}/?api-key=${RPC_SECRET}`;
  gw = await spawnGateway({
    DATABASE_PATH: join(dir, 'gw.sqlite'),
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'debug', // the most a log says: no secret even there
    MAINNET_RPC_URLS: rpc,
    DEVNET_RPC_URLS: rpc,
    GATEWAY_ADDRESS: gatewayAddress,
    WEBHOOK_SECRET,
    METRICS_TOKEN,
    DEPOSIT_POLL_SECONDS: '0',
    FREE_CALLS: '1',
    RATE_LIMIT_RPS: '0',
    READY_WINDOW_SECONDS: '3',
    DRAIN_SECONDS: '10',
  });
}, 30_000);

afterAll(async () => {
  await gw?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

let issuedKey = '';
const key = () => issuedKey;

describe('logs and metrics of a running gateway', () => {
  let key: string;
  let sessionId: string | undefined;
  let before: Awaited<ReturnType<typeof metrics>>;
  let openDuring = 0;

  beforeAll(async () => {
    before = await metrics();
    const wallet = (await sandbox.chain.newWallet(3_000_000_000n)).address;
    await client.get(`/api/chain/balance?wallet=${wallet}`);
    await client.get(`/api/chain/balance?wallet=${wallet}`);
    await client.get(`/api/chain/token-accounts?wallet=${wallet}`);
    await client.get(`/api/chain/token-accounts?wallet=${wallet}`, { 'x-api-key': 'cig_1111111111111111111111111111111111111111' });
    const gwLike = { config: { gatewayAddress, webhookSecret: WEBHOOK_SECRET }, ...client } as unknown as TestGateway;
    ({ key, wallet: keyWallet } = await fundedKey(gwLike, sandbox.chain, PRICE * 3));
    issuedKey = key;
    await client.get(`/api/chain/token-accounts?wallet=${wallet}`, { 'x-api-key': key }); // the free call
    await client.get(`/api/chain/token-accounts?wallet=${wallet}`, { 'x-api-key': key }); // paid from credit
    await client.get('/no/such/route');
    const mcp = await connectMcp(gw.url, 'streamable-http', { headers: { 'x-api-key': key } });
    sessionId = (mcp.transport as { sessionId?: string }).sessionId;
    await mcp.call('get_chain_blockhash');
    openDuring = value((await metrics()).families, 'gateway_mcp_sessions', { transport: 'streamable-http' });
    await (mcp.transport as { terminateSession(): Promise<void> }).terminateSession();
    await mcp.close();
    await Bun.sleep(200);
  }, 30_000);

  test('every log line is one JSON object with level, time and message', () => {
    expect(gw.lines.length).toBeGreaterThan(10);
    for (const r of records()) {
      expect(['debug', 'info', 'warn', 'error']).toContain(r.level);
      expect(Number.isNaN(Date.parse(r.time))).toBe(false);
      expect(typeof r.message).toBe('string');
    }
  });

  test('one access entry per request made, with its route template, status, face and client', () => {
    const access = records().filter((r) => r.kind === 'access');
    const mine = access.filter((r) => r.face !== 'mcp' && r.route !== '/healthz' && r.route !== '/metrics');
    const expected = made.filter((m) => m.route !== '/metrics').map((m) => `${m.method} ${m.route === '/no/such/route' ? 'unmatched' : m.route} ${m.status}`);
    expect(mine.map((r) => `${r.method} ${r.route} ${r.status}`).sort()).toEqual(expected.sort());
    for (const r of access) {
      expect(r.client).toBe('127.0.0.1');
      expect(typeof r.durationMs).toBe('number');
    }
    // The paid calls name the key by the first digits of its stored hash, and count their upstream calls.
    const keyId = createHash('sha256').update(key).digest('hex').slice(0, 12);
    const paid = mine.filter((r) => r.keyId === keyId && r.route === '/api/chain/token-accounts');
    expect(paid.map((r) => r.status)).toEqual([200, 200]);
    expect(paid.every((r) => r.upstreamCalls >= 1)).toBe(true);
    expect(access.filter((r) => r.face === 'mcp' && r.route === '/mcp').length).toBeGreaterThanOrEqual(2);
    // The MCP tools/call of a blockhash nobody asked for yet went upstream, and its line says so.
    expect(access.some((r) => r.face === 'mcp' && r.upstreamCalls >= 1)).toBe(true);
  });

  test('events: the 402s with their reasons, the credited deposit and the claim', () => {
    const events = records().filter((r) => r.event);
    expect(events.filter((r) => r.event === 'payment_required').map((r) => r.code)).toEqual(['no_key', 'unknown_key']);
    expect(events.some((r) => r.event === 'deposit_credited' && r.lamports === PRICE * 3)).toBe(true);
    expect(events.some((r) => r.event === 'claim')).toBe(true);
  });

  test('/metrics asks for the token, parses as Prometheus text, and its counters moved with the calls', async () => {
    expect((await fetch(gw.url + '/metrics')).status).toBe(401);
    expect((await fetch(gw.url + '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const now = await metrics();
    const after = now.families;
    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before.families, name, labels);
    // The parser folds a labelled histogram into one sample: read its _count line from the text.
    const countLine = (text: string, series: string) => Number(text.match(new RegExp(`^${series.replace(/[{}"/.]/g, '\\$&')} (\\d+)$`, 'm'))?.[1] ?? 0);
    const series = 'gateway_http_request_duration_seconds_count{route="/api/chain/balance",face="rest"}';
    expect(moved('gateway_http_requests_total', { route: '/api/chain/balance', status: '200', face: 'rest' })).toBe(2);
    expect(moved('gateway_http_requests_total', { route: '/api/chain/token-accounts', status: '402' })).toBe(2);
    expect(moved('gateway_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(countLine(now.text, series) - countLine(before.text, series)).toBe(2);
    expect(moved('gateway_payment_required_total', { reason: 'no_key' })).toBe(1);
    expect(moved('gateway_payment_required_total', { reason: 'unknown_key' })).toBe(1);
    expect(moved('gateway_paid_calls_total', { capability: 'token-accounts', outcome: 'success' })).toBe(2);
    expect(moved('gateway_debited_lamports_total')).toBe(PRICE);
    expect(moved('gateway_refunded_lamports_total')).toBe(0);
    expect(moved('gateway_deposits_total', { status: 'credited', source: 'webhook' })).toBe(1);
    expect(moved('gateway_upstream_requests_total', { network: 'mainnet-beta', method: 'getBalance', upstream: '1', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(moved('gateway_upstream_cache_total')).toBeGreaterThanOrEqual(1);
    expect(moved('gateway_ledger_batch_size')).toBeGreaterThanOrEqual(2);
    expect(openDuring).toBe(1);
    expect(value(after, 'gateway_mcp_sessions', { transport: 'streamable-http' })).toBe(0);
  });

  test('no secret in any log line or metric: RPC URL key, webhook secret, API key, MCP session id', async () => {
    const everything = gw.lines.join('\n') + (await metrics()).text;
    expect(sessionId).toBeTruthy();
    for (const secret of [RPC_SECRET, WEBHOOK_SECRET, METRICS_TOKEN, key, key.slice(4), sessionId!]) expect(everything).not.toContain(secret);
  });
});

describe('operator commands beside the running server', () => {
  const run = async (...args: string[]) => {
    const p = Bun.spawn(['bun', MAIN, ...args], { env: { PATH: process.env.PATH!, DATABASE_PATH: join(dir, 'gw.sqlite') }, stdout: 'pipe', stderr: 'pipe' });
    const [out, err, code] = [await new Response(p.stdout).text(), await new Response(p.stderr).text(), await p.exited];
    return { out, err, code };
  };

  test('gateway stats --json matches the deposits, claims and calls made', async () => {
    // Beside the claimed deposit: one below the minimum (the webhook leaves it to the watcher, which is
    // off here, so it counts nowhere), and one nobody has claimed yet.
    for (const lamports of [1_000, PRICE * 2]) {
      const w = await sandbox.chain.newWallet(1_000_000_000n);
      const sig = await deposit(sandbox.chain, w, gatewayAddress as never, BigInt(lamports));
      expect((await client.post('/api/payments/webhook', heliusPayload(sig, w.address, gatewayAddress, lamports), { authorization: WEBHOOK_SECRET })).status).toBe(200);
    }
    const { out, code } = await run('stats', '--json');
    expect(code).toBe(0);
    const stats = JSON.parse(out);
    expect(stats).toMatchObject({
      keys: { active: 1, revoked: 0, wallets: 1 },
      deposits: { credited: { count: 2, lamports: String(PRICE * 5) } },
      dust: { wallets: 0, transfers: 0, lamports: '0' },
      pendingClaims: { wallets: 1, lamports: String(PRICE * 2) },
      creditOutstanding: { lamports: String(PRICE * 2), freeCalls: 0 },
      revenueLamports: String(PRICE),
      paidCallsMade: 2,
    });
    expect(stats.topWallets).toEqual([{ wallet: keyWallet, callsMade: 2, creditLamports: String(PRICE * 2), freeCalls: 0, depositedLamports: String(PRICE * 3) }]);
    // Where the database keeps a per-call record, the calls are counted by capability and day.
    if (stats.callsByCapability !== null) expect(stats.callsByCapability).toEqual([{ capability: 'token-accounts', calls: 2, x402Calls: 0 }]);
    const text = await run('stats');
    expect(text.code).toBe(0);
    expect(text.out).toContain(keyWallet);
  }, 30_000);

  test('gateway keys list shows the key by id, and keys revoke stops it at once', async () => {
    const list = await run('keys', 'list', '--json');
    expect(list.code).toBe(0);
    const keyId = createHash('sha256').update(key()).digest('hex').slice(0, 12);
    expect(JSON.parse(list.out)).toMatchObject([{ keyId, wallet: keyWallet, revokedAt: null }]);
    expect(list.out).not.toContain(key());
    const revoke = await run('keys', 'revoke', keyWallet);
    expect(revoke.code).toBe(0);
    expect(revoke.out).toContain('revoked 1 key');
    const res = await client.get(`/api/chain/token-accounts?wallet=${keyWallet}`, { 'x-api-key': key() });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('revoked_by_operator');
    const bad = await run('keys', 'revoke', 'not-a-wallet');
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
  }, 30_000);
});

describe('readiness', () => {
  test('/readyz turns 503 within 30 s of every upstream failing while /healthz stays 200, and recovers', async () => {
    const until = Date.now() + 30_000;
    while ((await fetch(gw.url + '/readyz')).status !== 200) {
      if (Date.now() > until) throw new Error('never ready');
      await Bun.sleep(200);
    }
    sandbox.chain.fault({ mode: 'http500' });
    const failedAt = Date.now();
    try {
      let ready = 200;
      while (ready === 200 && Date.now() - failedAt < 30_000) {
        await Bun.sleep(250);
        ready = (await fetch(gw.url + '/readyz')).status;
        expect((await fetch(gw.url + '/healthz')).status).toBe(200);
      }
      expect(ready).toBe(503);
      expect(Date.now() - failedAt).toBeLessThan(30_000);
    } finally {
      sandbox.chain.fault(null);
    }
    const back = Date.now() + 30_000;
    while ((await fetch(gw.url + '/readyz')).status !== 200) {
      if (Date.now() > back) throw new Error('did not recover');
      await Bun.sleep(200);
    }
  }, 70_000);
});

describe('graceful stop', () => {
  test('SIGTERM: requests in flight finish with 200, new ones are refused, an event stream ends, exit 0 within the drain time', async () => {
    const stream = await fetch(gw.url + '/mcp/sse');
    const reader = stream.body!.getReader();
    await reader.read(); // the endpoint event
    sandbox.chain.fault({ mode: 'slow', delayMs: 1500 }, { methods: ['getBalance'] });
    const wallets = await Promise.all([1, 2, 3].map(() => sandbox.chain.newWallet(1_000_000n)));
    const inFlight = wallets.map((w) => fetch(`${gw.url}/api/chain/balance?wallet=${w.address}`).then((r) => r.status));
    await Bun.sleep(300);
    const signalledAt = Date.now();
    gw.proc.kill('SIGTERM');
    await Bun.sleep(200);
    await expect(fetch(gw.url + '/healthz')).rejects.toThrow();
    expect(await Promise.all(inFlight)).toEqual([200, 200, 200]);
    let ended = false;
    for (;;) {
      const { done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
    }
    expect(ended).toBe(true);
    expect(await gw.proc.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    const last = records().at(-1)!;
    expect(last.message).toBe('stopped');
    expect(last.drain).toBe('drained');
  }, 30_000);
});

describe('graceful stop with a request that outlives the drain', () => {
  test('the process still exits 0 soon after DRAIN_SECONDS, saying the drain timed out', async () => {
    const slowDir = mkdtempSync(join(tmpdir(), 'cig-drain-'));
    const g = await spawnGateway({
      DATABASE_PATH: join(slowDir, 'gw.sqlite'),
      LOG_FORMAT: 'json',
      MAINNET_RPC_URLS: sandbox.chain.url,
      DEVNET_RPC_URLS: sandbox.chain.url,
      RPC_TIMEOUT_MS: '20000',
      DRAIN_SECONDS: '1',
    });
    try {
      sandbox.chain.fault({ mode: 'hang' }, { methods: ['getBalance'] });
      const wallet = await sandbox.chain.newWallet(1_000_000n);
      const stuck = fetch(`${g.url}/api/chain/balance?wallet=${wallet.address}`).then((r) => r.status, () => 'closed');
      await Bun.sleep(300);
      const at = Date.now();
      g.proc.kill('SIGTERM');
      expect(await g.proc.exited).toBe(0);
      expect(Date.now() - at).toBeLessThan(5_000);
      expect(await stuck).toBe('closed');
      const last = g.lines.filter((l) => l.trim()).map((l) => JSON.parse(l)).at(-1);
      expect(last).toMatchObject({ message: 'stopped', drain: 'timed out' });
    } finally {
      sandbox.chain.fault(null);
      await g.stop('SIGKILL');
      rmSync(slowDir, { recursive: true, force: true });
    }
  }, 30_000);
});
