// kill -9 of a gateway in the middle of recording and delivering: a real process on a real SQLite
// file, its receiver slow so deliveries are in flight when it dies. After a restart on the same
// file, the ingester's retry of every activity (its cursor never moved past them) records nothing
// twice: every event reaches the receiver at least once, and the credit is events x price exactly.
import { afterAll, expect, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { activity, keyWithCredit, newWallet, receiver } from '../support/watch.ts';
import { within } from '../support/poll.ts';

const PRICE = 700;
const N = 12;
const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

test('kill -9 mid-stream, restart: delivered at least once, charged once', async () => {
  const rx = receiver();
  stops.push(rx.stop);
  // A receiver slow enough that a delivery is in flight when the process dies.
  const slow = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      await Bun.sleep(150);
      return fetch(rx.url, { method: 'POST', headers: req.headers, body: await req.text() });
    },
  });
  stops.push(() => slow.stop(true));
  const settings = { webhookAllowPrivate: true, freeCalls: 0, prices: { 'watch-event': PRICE }, webhookTimeoutSeconds: 1, webhookRetryBaseSeconds: 0.1, webhookRetryMaxSeconds: 0.5 };
  const first: TestGateway = await startGateway(settings, { keepFiles: true });
  const { key, wallet } = await keyWithCredit(first, BigInt(PRICE * 100));
  const target = await newWallet();
  const watch = (await first.post('/api/watches', { wallets: [target], webhookUrl: `http://127.0.0.1:${slow.port}/hook` }, { 'x-api-key': key })).body;
  const dir = first.dir;
  const databasePath = first.config.databasePath;
  await first.stop();
  stops.push(() => rmSync(dir, { recursive: true, force: true }));

  const acts = Array.from({ length: N }, () => activity());
  const file = join(dir, 'activities.json');
  writeFileSync(file, JSON.stringify(acts));
  const child = Bun.spawn(['bun', join(import.meta.dir, '../support/watch-child.ts'), JSON.stringify({ ...settings, databasePath, port: 0 }), file, target], { stdout: 'pipe', stderr: 'inherit' });
  // Killed once some events are recorded and at least one delivery has gone out, before all are sent.
  expect(await within(20_000, () => rx.got.length >= 2)).not.toBeNull();
  child.kill('SIGKILL');
  await child.exited;
  const before = rx.got.length;
  expect(before).toBeLessThan(N);

  const second = await startGateway({ ...settings, databasePath });
  stops.push(() => second.stop());
  for (const a of acts) await second.services.watches.recordActivity('mainnet-beta', target, a);
  const h = { 'x-api-key': key };
  expect(await within(20_000, async () => (await second.get(`/api/watches/${watch.id}`, h)).body.delivery.pending === 0)).not.toBeNull();
  const events = (await second.get(`/api/watches/${watch.id}/events?limit=100`, h)).body.events;
  expect(events.map((e: any) => e.signature)).toEqual(acts.map((a) => a.signature));
  const delivered = new Set(rx.got.map((r) => r.headers['webhook-id']));
  expect([...delivered].sort()).toEqual(events.map((e: any) => e.id).sort());
  expect((await second.services.store.account(wallet))!.creditLamports).toBe(BigInt(PRICE * (100 - N)));
});
