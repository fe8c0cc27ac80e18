// Webhook delivery under faults, through the real server: a receiver answering 503 then recovering
// (retried with backoff, in order, nothing lost, billed once), 410 ending the watch, a receiver that
// never recovers marking the watch failing (last error, next attempt, pending shown), and SSRF:
// names resolving to private addresses refused at creation, and at delivery after a DNS change.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { activity, keyWithCredit, newWallet, receiver } from '../support/watch.ts';
import { dnsServer } from '../support/dns.ts';
import { within } from '../support/poll.ts';
import { WATCH_EVENT_DEFAULT_LAMPORTS as PRICE } from '../../src/watch/watches.ts';
import { registry } from '../../src/metrics.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';

const fast = { webhookAllowPrivate: true, webhookRetryBaseSeconds: 0.05, webhookRetryMaxSeconds: 0.2, webhookFailingAfterSeconds: 0.5, freeCalls: 0 };

describe('retries', () => {
  let gw: TestGateway;
  let key: string;
  let payer: string;
  beforeAll(async () => {
    gw = await startGateway(fast);
    ({ key, wallet: payer } = await keyWithCredit(gw, BigInt(PRICE) * 100n));
  });
  afterAll(() => gw.stop());
  const h = () => ({ 'x-api-key': key });

  test('503 for a while, then 200: every event arrives, in order, each charged once', async () => {
    let down = true;
    const rx = receiver(() => (down ? 503 : 200));
    const target = await newWallet();
    const w = (await gw.post('/api/watches', { wallets: [target], webhookUrl: rx.url }, h())).body;
    const before = (await gw.services.store.account(payer))!.creditLamports;
    const acts = Array.from({ length: 5 }, () => activity());
    for (const a of acts) await gw.services.watches.recordActivity('mainnet-beta', target, a);
    expect(await within(5000, () => rx.got.length >= 3)).not.toBeNull();
    const view = (await gw.get(`/api/watches/${w.id}`, h())).body;
    expect(view.delivery.lastError).toContain('HTTP 503');
    expect(view.delivery.pending).toBe(5);
    expect(view.delivery.attempts).toBeGreaterThanOrEqual(1);
    // Every attempt so far was the first event: order is kept.
    expect(new Set(rx.got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    down = false;
    expect(await within(8000, async () => (await gw.get(`/api/watches/${w.id}`, h())).body.delivery.pending === 0)).not.toBeNull();
    // Retries repeat the first event only; then each arrives once, in order.
    expect([...new Set(rx.got.map((r) => JSON.parse(r.body).signature))]).toEqual(acts.map((a) => a.signature));
    expect(before - (await gw.services.store.account(payer))!.creditLamports).toBe(BigInt(5 * PRICE));
    const after = (await gw.get(`/api/watches/${w.id}`, h())).body;
    expect(after.status).toBe('active');
    expect(after.delivery.lastError).toBeNull();
    rx.stop();
  });

  test('a receiver that keeps failing marks the watch failing; 410 ends it', async () => {
    const rx = receiver(() => 500);
    const target = await newWallet();
    const w = (await gw.post('/api/watches', { wallets: [target], webhookUrl: rx.url }, h())).body;
    await gw.services.watches.recordActivity('mainnet-beta', target, activity());
    expect(await within(5000, async () => (await gw.get(`/api/watches/${w.id}`, h())).body.status === 'failing')).not.toBeNull();
    const failing = (await gw.get(`/api/watches/${w.id}`, h())).body;
    expect(failing.delivery).toMatchObject({ pending: 1, lastError: 'HTTP 500' });
    expect(failing.delivery.nextAttemptAt).toBeGreaterThan(0);
    expect(failing.delivery.failingSince).toBeGreaterThan(0);
    rx.stop();

    const gone = receiver(() => 410);
    const t2 = await newWallet();
    const w2 = (await gw.post('/api/watches', { wallets: [t2], webhookUrl: gone.url }, h())).body;
    await gw.services.watches.recordActivity('mainnet-beta', t2, activity());
    expect(await within(5000, async () => (await gw.get(`/api/watches/${w2.id}`, h())).body.status === 'ended')).not.toBeNull();
    expect((await gw.get(`/api/watches/${w2.id}`, h())).body.endedReason).toContain('410');
    await gw.services.watches.reload();
    expect(gw.services.watches.wallets('mainnet-beta')).not.toContain(t2);
    gone.stop();
  });
});

for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('watch-delivery'))(`promptness on ${backend}`, () => {
    let gw: TestGateway;
    let key: string;
    beforeAll(async () => {
      gw = await startGateway({ ...fast, ...(backend === 'postgres' && { databaseUrl: await freshDatabase() }) });
      ({ key } = await keyWithCredit(gw, BigInt(PRICE) * 1000n));
    }, POSTGRES_HOOK_TIMEOUT_MS);
    afterAll(() => gw?.stop());

    // The deliverer also scans for due watches once a second: an event whose wake-up came while the
    // watch's previous run was ending must not wait for that scan.
    test('each event of a steady trickle reaches the receiver well before the next scan', async () => {
      const rx = receiver();
      const target = await newWallet();
      await gw.post('/api/watches', { wallets: [target], webhookUrl: rx.url }, { 'x-api-key': key });
      const recorded = new Map<string, number>();
      for (let i = 0; i < 150; i++) {
        const a = activity();
        recorded.set(a.signature, Date.now());
        await gw.services.watches.recordActivity('mainnet-beta', target, a);
        await Bun.sleep(i % 7);
      }
      expect(await within(5000, () => rx.got.length >= recorded.size)).not.toBeNull();
      const late = rx.got.map((r) => ({ signature: JSON.parse(r.body).signature as string, ms: r.at - recorded.get(JSON.parse(r.body).signature)! })).filter((r) => r.ms > 500);
      expect(late).toEqual([]);
      rx.stop();
    });
  });
}

describe('SSRF', () => {
  const dns = dnsServer();
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    await dns.ready;
    gw = await startGateway({ ...fast, webhookAllowPrivate: false, webhookDnsServers: [dns.server] });
    ({ key } = await keyWithCredit(gw, BigInt(PRICE) * 100n));
  });
  afterAll(async () => {
    await gw.stop();
    dns.stop();
  });
  const h = () => ({ 'x-api-key': key });

  test('refused at creation: literal private addresses in every spelling, and names resolving to them', async () => {
    dns.set('loop.test', ['127.0.0.1']);
    dns.set('meta.test', ['169.254.169.254']);
    dns.set('mixed.test', ['93.184.216.34', '10.0.0.7']);
    dns.set('ula.test', ['fd00::1']);
    for (const url of ['http://example.com/h', 'https://127.0.0.1/h', 'https://2130706433/h', 'https://0x7f.1/h', 'https://[::ffff:127.0.0.1]/h', 'https://169.254.169.254/', 'https://loop.test/h', 'https://meta.test/h', 'https://mixed.test/h', 'https://ula.test/h', 'https://nowhere.test/h']) {
      const r = await gw.post('/api/watches', { wallets: [await newWallet()], webhookUrl: url }, h());
      expect(r.status, url).toBe(400);
      expect(r.body.error).toBe('Invalid webhookUrl');
    }
    expect((await gw.get('/api/watches', h())).body.watches).toEqual([]);
  });

  test('a name that turns private after creation is refused at delivery, never connected', async () => {
    const rx = receiver();
    dns.set('rebind.test', ['93.184.216.34']);
    const target = await newWallet();
    const created = await gw.post('/api/watches', { wallets: [target], webhookUrl: 'https://rebind.test/hook' }, h());
    expect(created.status).toBe(201);
    dns.set('rebind.test', ['127.0.0.1']);
    await gw.services.watches.recordActivity('mainnet-beta', target, activity());
    expect(await within(5000, async () => ((await gw.get(`/api/watches/${created.body.id}`, h())).body.delivery.lastError ?? '').includes('non-public'))).not.toBeNull();
    expect(rx.got).toEqual([]);
    expect(await registry.getSingleMetricAsString('gateway_webhook_deliveries_total')).toContain('outcome="refused_address"');
    rx.stop();
  });
});
