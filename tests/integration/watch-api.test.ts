// Watches through the real server on a real SQLite file: the REST routes (validation, limits, 404s,
// the 402 without a key), events recorded through the sink the ingester calls, pulled with a long
// poll, pushed to a webhook signed per Standard Webhooks (verified by the standardwebhooks package),
// and billed exactly: credit = events x price, once per event whatever is sent again.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { activity, keyWithCredit, newWallet, receiver } from '../support/watch.ts';
import { within } from '../support/poll.ts';
import { WATCH_EVENT_DEFAULT_LAMPORTS } from '../../src/watch/watches.ts';

const PRICE = WATCH_EVENT_DEFAULT_LAMPORTS;
let gw: TestGateway;
let key: string;
let payer: string;
const rx = receiver();

beforeAll(async () => {
  gw = await startGateway({ webhookAllowPrivate: true, watchMaxWallets: 3, watchMaxPerKey: 2, freeCalls: 0 });
  ({ key, wallet: payer } = await keyWithCredit(gw, BigInt(PRICE) * 100n));
});
afterAll(async () => {
  await gw.stop();
  rx.stop();
});

const h = () => ({ 'x-api-key': key });
const credit = async () => (await gw.services.store.account(payer))!.creditLamports;

describe('watch routes', () => {
  test('without a key: 402 that names the event price and says x402 cannot pay for a push', async () => {
    const r = await gw.post('/api/watches', { wallets: [await newWallet()] });
    expect(r.status).toBe(402);
    expect(r.body.error).toBe('Payment required');
    expect(r.body.eventPriceLamports).toBe(PRICE);
    expect(r.body.x402).toContain('x402 cannot pay');
  });

  test('bad input: SPEC 400 with a hint, nothing created', async () => {
    const bad = [
      {},
      { wallets: [] },
      { wallets: ['nope'] },
      { wallets: 'abc' },
      { wallets: [await newWallet()], network: 'testnet' },
      { wallets: [await newWallet()], commitment: 'processed' },
      { wallets: [await newWallet()], extra: 1 },
      { wallets: [await newWallet(), await newWallet(), await newWallet(), await newWallet()] },
      { wallets: [await newWallet()], webhookUrl: 42 },
      { wallets: [await newWallet()], webhookUrl: 'ftp://example.com/x' },
    ];
    for (const body of bad) {
      const r = await gw.post('/api/watches', body, h());
      expect(r.status).toBe(400);
      expect(r.body.live_status).toBe('FAILED');
      expect(typeof r.body.hint).toBe('string');
    }
    const malformed = await gw.post('/api/watches', '{"wallets":', h());
    expect(malformed.status).toBe(400);
    expect((await gw.get('/api/watches', h())).body.watches).toEqual([]);
  });

  test('unknown or foreign id: 404; the watches per key limit: 409', async () => {
    expect((await gw.get('/api/watches/wch_000000000000000000000000', h())).status).toBe(404);
    expect((await gw.get('/api/watches/../../etc', h())).status).toBe(404);
    const other = await keyWithCredit(gw, 10n * BigInt(PRICE));
    const theirs = await gw.post('/api/watches', { wallets: [await newWallet()] }, { 'x-api-key': other.key });
    expect(theirs.status).toBe(201);
    for (const path of [`/api/watches/${theirs.body.id}`, `/api/watches/${theirs.body.id}/events`]) expect((await gw.get(path, h())).status).toBe(404);
    const del = await fetch(`${gw.url}/api/watches/${theirs.body.id}`, { method: 'DELETE', headers: h() });
    expect(del.status).toBe(404);
    const a = await gw.post('/api/watches', { wallets: [await newWallet()] }, h());
    const b = await gw.post('/api/watches', { wallets: [await newWallet()] }, h());
    const c = await gw.post('/api/watches', { wallets: [await newWallet()] }, h());
    expect([a.status, b.status, c.status]).toEqual([201, 201, 409]);
    expect(c.body.hint).toContain('WATCH_MAX_PER_KEY');
    for (const w of [a, b]) expect((await fetch(`${gw.url}/api/watches/${w.body.id}`, { method: 'DELETE', headers: h() })).status).toBe(204);
    expect((await gw.get(`/api/watches/${a.body.id}`, h())).status).toBe(404);
  });
});

describe('events', () => {
  test('pull with a long poll, webhook signed per Standard Webhooks, the same ids, billed once each', async () => {
    const target = await newWallet();
    const created = await gw.post('/api/watches', { wallets: [target], webhookUrl: rx.url }, h());
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.status).toBe('active');
    const id = created.body.id;
    // The secret is shown once.
    expect((await gw.get(`/api/watches/${id}`, h())).body.secret).toBeUndefined();
    expect(gw.services.watches.wallets('mainnet-beta')).toContain(target);

    const before = await credit();
    const started = Date.now();
    const pull = gw.get(`/api/watches/${id}/events?after=0&wait=10`, h());
    await Bun.sleep(200);
    const acts = [activity(), activity(), activity()];
    for (const a of acts) await gw.services.watches.recordActivity('mainnet-beta', target, a);
    const first = await pull;
    expect(first.status).toBe(200);
    expect(first.body.events.length).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(5000);
    // The same transaction again (an ingester retry) is neither a new event nor a new charge.
    await gw.services.watches.recordActivity('mainnet-beta', target, acts[0]!);
    const all = await gw.get(`/api/watches/${id}/events?after=0`, h());
    expect(all.body.events.map((e: any) => e.signature)).toEqual(acts.map((a) => a.signature));
    expect(all.body.events[0]).toMatchObject({ type: 'wallet.activity', watchId: id, wallet: target, network: 'mainnet-beta', commitment: 'confirmed', item: acts[0]!.item });
    expect(all.body.nextCursor).toBe('3');
    expect((await gw.get(`/api/watches/${id}/events?after=3`, h())).body.events).toEqual([]);
    expect(before - (await credit())).toBe(BigInt(3 * PRICE));

    expect(await within(5000, () => rx.got.length >= 3)).not.toBeNull();
    const wh = new Webhook(created.body.secret);
    const ids = rx.got.map((r) => (wh.verify(r.body, r.headers) as any).id);
    expect(ids).toEqual(all.body.events.map((e: any) => e.id));
    expect(rx.got.map((r) => r.headers['webhook-id'])).toEqual(ids);
    // A forged body does not verify.
    expect(() => wh.verify(rx.got[0]!.body.replace('wallet.activity', 'wallet.other'), rx.got[0]!.headers)).toThrow();
    // The receiver has the third POST before the gateway has read its answer and moved the cursor.
    expect(await within(5000, async () => (await gw.get(`/api/watches/${id}`, h())).body.delivery.pending === 0)).not.toBeNull();
    const view = (await gw.get(`/api/watches/${id}`, h())).body;
    expect(view.delivery).toMatchObject({ pending: 0, deliveredCursor: '3', lastError: null });

    // Replay sends from a cursor again, with the same ids; nothing is charged again.
    const replay = await gw.post(`/api/watches/${id}/replay`, { after: '1' }, h());
    expect(replay.status).toBe(200);
    expect(await within(5000, () => rx.got.length >= 5)).not.toBeNull();
    expect(rx.got.slice(3).map((r) => r.headers['webhook-id'])).toEqual(ids.slice(1));
    expect(before - (await credit())).toBe(BigInt(3 * PRICE));

    // Operators see it: what is watched, recorded and delivered, and how long delivery took.
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_watched_addresses\{network="mainnet-beta"\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_watch_events_total [1-9]/m);
    expect(metrics).toMatch(/^gateway_webhook_deliveries_total\{outcome="delivered"\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_webhook_delivery_seconds_count [1-9]/m);
    expect(metrics).toContain('gateway_watches_failing 0');

  });

  test('a watch at finalized takes only finalized activity; walletsAt tells the ingester which wallets that is', async () => {
    const target = await newWallet();
    const w = (await gw.post('/api/watches', { wallets: [target], commitment: 'finalized' }, h())).body;
    expect(w.commitment).toBe('finalized');
    expect(gw.services.watches.walletsAt('mainnet-beta', 'finalized')).toContain(target);
    expect(gw.services.watches.walletsAt('mainnet-beta', 'confirmed')).not.toContain(target);
    const seen = activity();
    await gw.services.watches.recordActivity('mainnet-beta', target, seen);
    await gw.services.watches.recordActivity('mainnet-beta', target, { ...seen, commitment: 'finalized' });
    const events = (await gw.get(`/api/watches/${w.id}/events`, h())).body.events;
    expect(events.map((e: any) => [e.signature, e.commitment])).toEqual([[seen.signature, 'finalized']]);
    await fetch(`${gw.url}/api/watches/${w.id}`, { method: 'DELETE', headers: h() });
  });

  test('bad pull parameters: 400 with a hint', async () => {
    const w = await gw.post('/api/watches', { wallets: [await newWallet()] }, h());
    for (const q of ['after=-1', 'after=x', 'limit=0', 'limit=101', `wait=26`, 'wait=1.5']) {
      const r = await gw.get(`/api/watches/${w.body.id}/events?${q}`, h());
      expect(r.status).toBe(400);
      expect(r.body.hint).toContain('/events?after=');
    }
    await fetch(`${gw.url}/api/watches/${w.body.id}`, { method: 'DELETE', headers: h() });
  });
});

// Bun's idle timer does not cut a request still waiting for its answer (verified: this passes with no timer lifted).
test('a long poll outlives a short IDLE_TIMEOUT_SECONDS and answers when the event comes', async () => {
  const short = await startGateway({ idleTimeoutSeconds: 2, freeCalls: 0 });
  try {
    const k = await keyWithCredit(short, BigInt(PRICE) * 10n);
    const target = await newWallet();
    const w = (await short.post('/api/watches', { wallets: [target] }, { 'x-api-key': k.key })).body;
    const pull = short.get(`/api/watches/${w.id}/events?wait=8`, { 'x-api-key': k.key });
    await Bun.sleep(3500);
    const a = activity();
    await short.services.watches.recordActivity('mainnet-beta', target, a);
    const got = await pull;
    expect(got.status).toBe(200);
    expect(got.body.events.map((e: any) => e.signature)).toEqual([a.signature]);
  } finally {
    await short.stop();
  }
});
