// Watches on PostgreSQL, two gateways on one database: a watch made on one is followed by the
// other (its set of wallets learns through LISTEN/NOTIFY), an event recorded by one wakes a long
// poll waiting on the other, the webhook gets each event once however many replicas deliver, and
// each event is debited once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { activity, keyWithCredit, newWallet, receiver } from '../support/watch.ts';
import { within } from '../support/poll.ts';
import { connectMcp } from '../support/mcp.ts';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const PRICE = 500;
describe.skipIf(shouldSkipPostgres('watch-postgres'))('watches on two replicas', () => {
  let a: TestGateway;
  let b: TestGateway;
  const rx = receiver();
  beforeAll(async () => {
    const databaseUrl = await freshDatabase();
    const shared = { databaseUrl, webhookAllowPrivate: true, webhookSecretKey: 'shared-sealing-key', prices: { 'watch-event': PRICE }, freeCalls: 0 };
    a = await startGateway(shared);
    b = await startGateway(shared);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    rx.stop();
  });

  test('made on one, recorded on the other, pulled and delivered once, debited once', async () => {
    const { key, wallet } = await keyWithCredit(a, BigInt(PRICE * 10));
    const h = { 'x-api-key': key };
    const target = await newWallet();
    const w = (await a.post('/api/watches', { wallets: [target], webhookUrl: rx.url }, h)).body;
    expect(w.id).toMatch(/^wch_/);
    expect(await within(5000, () => b.services.watches.wallets('mainnet-beta').includes(target))).not.toBeNull();
    const pull = a.get(`/api/watches/${w.id}/events?after=0&wait=10`, h);
    await Bun.sleep(200);
    const acts = [activity(), activity(), activity()];
    // Both replicas record the same transactions (as two ingesters might): each is one event.
    for (const x of acts) {
      await b.services.watches.recordActivity('mainnet-beta', target, x);
      await a.services.watches.recordActivity('mainnet-beta', target, x);
    }
    const first = await pull;
    expect(first.body.events.length).toBeGreaterThanOrEqual(1);
    const all = (await b.get(`/api/watches/${w.id}/events`, h)).body;
    expect(all.events.map((e: any) => e.signature)).toEqual(acts.map((x) => x.signature));
    expect(await within(8000, () => rx.got.length >= 3)).not.toBeNull();
    await Bun.sleep(500);
    expect(rx.got.map((r) => r.headers['webhook-id'])).toEqual(all.events.map((e: any) => e.id));
    expect((await a.services.store.account(wallet))!.creditLamports).toBe(BigInt(PRICE * 7));
  });

  test('an MCP subscriber on one replica hears of events recorded by the other (both revisions)', async () => {
    const { key } = await keyWithCredit(a, BigInt(PRICE * 10));
    const target = await newWallet();
    const w = (await a.post('/api/watches', { wallets: [target] }, { 'x-api-key': key })).body;
    const told: string[] = [];
    const legacy = await connectMcp(b.url, 'streamable-http', { headers: { 'x-api-key': key } });
    const modern = await connectMcp(b.url, 'v2-2026-07-28', { headers: { 'x-api-key': key } });
    try {
      (legacy.client as any).setNotificationHandler(ResourceUpdatedNotificationSchema, (n: any) => void told.push(`legacy ${n.params.uri}`));
      await (legacy.client as any).subscribeResource({ uri: w.eventsResource });
      (modern.client as any).setNotificationHandler('notifications/resources/updated', (n: any) => void told.push(`modern ${n.params.uri}`));
      await (modern.client as any).listen({ resourceSubscriptions: [w.eventsResource] });
      await Bun.sleep(300);
      await a.services.watches.recordActivity('mainnet-beta', target, activity());
      expect(await within(5000, () => told.includes(`legacy ${w.eventsResource}`) && told.includes(`modern ${w.eventsResource}`))).not.toBeNull();
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
