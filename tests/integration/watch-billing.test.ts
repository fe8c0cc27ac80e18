// Watch events and money, through the real server: credit = events x price exactly; when credit
// runs out the watch pauses (told on the watch and in /api/keys/me), events in between are skipped
// and counted, nothing is charged for them; after a top-up it resumes.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { activity, keyWithCredit, newWallet } from '../support/watch.ts';
import { within } from '../support/poll.ts';
import { base58 } from '@scure/base';
import { randomBytes } from 'node:crypto';
import { Database } from 'bun:sqlite';

const PRICE = 1000;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ prices: { 'watch-event': PRICE }, freeCalls: 0 });
});
afterAll(() => gw.stop());

test('pause on no credit, skipped events counted and free, resume after a top-up', async () => {
  const { key, wallet } = await keyWithCredit(gw, BigInt(PRICE * 3));
  const h = { 'x-api-key': key };
  const target = await newWallet();
  const w = (await gw.post('/api/watches', { wallets: [target] }, h)).body;
  expect(w.eventPriceLamports).toBe(PRICE);
  for (let i = 0; i < 5; i++) await gw.services.watches.recordActivity('mainnet-beta', target, activity());
  const paused = (await gw.get(`/api/watches/${w.id}`, h)).body;
  expect(paused.status).toBe('paused_no_credit');
  expect(paused.skippedEvents).toBe(2);
  expect(paused.lastCursor).toBe('3');
  expect((await gw.services.store.account(wallet))!.creditLamports).toBe(0n);
  const me = (await gw.get('/api/keys/me', h)).body;
  expect(me.watchesPausedNoCredit).toEqual([w.id]);

  // Top-up: a new deposit and claim (the wallet's credit moves to the new key).
  await gw.services.store.recordDeposit({ signature: base58.encode(randomBytes(64)), network: 'mainnet-beta', wallet, lamports: BigInt(PRICE * 2), source: 'webhook' }, 0n);
  const { apiKey } = (await gw.services.store.claim(wallet, 0, Date.now()))!;
  const h2 = { 'x-api-key': apiKey };
  // The next event that can be paid resumes it at once (the periodic check would too).
  await gw.services.watches.recordActivity('mainnet-beta', target, activity());
  const resumed = (await gw.get(`/api/watches/${w.id}`, h2)).body;
  expect(resumed.status).toBe('active');
  expect(resumed.lastCursor).toBe('4');
  expect((await gw.get('/api/keys/me', h2)).body.watchesPausedNoCredit).toBeUndefined();
  const events = (await gw.get(`/api/watches/${w.id}/events`, h2)).body.events;
  expect(events.length).toBe(4);
  expect((await gw.services.store.account(wallet))!.creditLamports).toBe(BigInt(PRICE));
});

test('resumed by the periodic check after a top-up, without waiting for an event', async () => {
  const { key, wallet } = await keyWithCredit(gw, 0n);
  const target = await newWallet();
  const w = (await gw.post('/api/watches', { wallets: [target] }, { 'x-api-key': key })).body;
  await gw.services.watches.recordActivity('mainnet-beta', target, activity());
  expect(gw.services.watches.pausedOf(wallet)).toEqual([w.id]);
  await gw.services.store.recordDeposit({ signature: base58.encode(randomBytes(64)), network: 'mainnet-beta', wallet, lamports: BigInt(PRICE), source: 'webhook' }, 0n);
  const { apiKey } = (await gw.services.store.claim(wallet, 0, Date.now()))!;
  await gw.services.watches.resumeFunded();
  expect(await within(2000, async () => (await gw.get(`/api/watches/${w.id}`, { 'x-api-key': apiKey })).body.status === 'active')).not.toBeNull();
});

test('the database away: a clear 500 with Retry-After, the recording refused (the ingester retries), nothing charged twice after', async () => {
  const { key, wallet } = await keyWithCredit(gw, BigInt(PRICE * 10));
  const h = { 'x-api-key': key };
  const target = await newWallet();
  const w = (await gw.post('/api/watches', { wallets: [target] }, h)).body;
  const a = activity();
  // Another process holds SQLite's write lock past the busy timeout.
  const other = new Database(gw.config.databasePath);
  other.run('BEGIN IMMEDIATE');
  try {
    const refused = await gw.post('/api/watches', { wallets: [await newWallet()] }, h);
    expect(refused.status).toBe(500);
    expect(refused.body.code).toBe('storage_unavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await expect(gw.services.watches.recordActivity('mainnet-beta', target, a)).rejects.toThrow();
  } finally {
    other.run('ROLLBACK');
    other.close();
  }
  await gw.services.watches.recordActivity('mainnet-beta', target, a);
  await gw.services.watches.recordActivity('mainnet-beta', target, a);
  const events = (await gw.get(`/api/watches/${w.id}/events`, h)).body.events;
  expect(events.map((e: any) => e.signature)).toEqual([a.signature]);
  expect((await gw.services.store.account(wallet))!.creditLamports).toBe(BigInt(PRICE * 9));
  expect((await gw.get('/api/watches', h)).body.watches.length).toBe(1);
});
