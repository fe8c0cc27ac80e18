// What x402's extensions keep, on both backends (a real SQLite file, a real PostgreSQL): a nonce is
// used once until it has expired and been pruned; a payment identifier is taken by one call, its
// holder and answer read back, handed over only by its holder, freed only by its holder.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/client.ts';
import { migratePostgres, openPostgres } from '../../src/db/pg-client.ts';
import { pgExtensionStore, sqliteExtensionStore, type ExtensionStore } from '../../src/billing/x402/ext-store.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';

const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const backends: [string, () => Promise<ExtensionStore>, boolean][] = [
  [
    'sqlite',
    async () => {
      const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'cig-ext-store-')), 'gateway.sqlite'));
      closers.push(() => db.$client.close());
      return sqliteExtensionStore(db);
    },
    false,
  ],
  [
    'postgres',
    async () => {
      const url = await freshDatabase();
      await migratePostgres(url);
      const db = openPostgres(url, 4);
      closers.push(() => db.$client.close());
      return pgExtensionStore(db);
    },
    shouldSkipPostgres('x402 extension store'),
  ],
];

for (const [backend, open, skip] of backends) {
  describe.skipIf(skip)(`x402 extension store on ${backend}`, () => {
    test(
      'nonces: once each, 20 at once included; pruned after they expire, and only then',
      async () => {
        const store = await open();
        const now = Date.now();
        expect(await store.useNonce('n1', 'w', 'c1', now + 60_000)).toBe(true);
        expect(await store.useNonce('n1', 'w', 'c2', now + 60_000)).toBe(false);
        const race = await Promise.all(Array.from({ length: 20 }, (_, i) => store.useNonce('n2', 'w', `r${i}`, now + 60_000)));
        expect(race.filter(Boolean)).toHaveLength(1);
        expect(await store.useNonce('old', 'w', 'c3', now - 1)).toBe(true);
        await store.prune(now);
        expect(await store.useNonce('old', 'w', 'c4', now + 60_000)).toBe(true);
        expect(await store.useNonce('n1', 'w', 'c5', now + 60_000)).toBe(false);
      },
      POSTGRES_HOOK_TIMEOUT_MS,
    );

    test('payment identifiers: taken once, the holder and its answer read back; handed over and freed only by the holder', async () => {
      const store = await open();
      const now = Date.now();
      expect(await store.takePaymentId('pay_1', 'h1', 'c1', now, now + 60_000)).toEqual({ taken: true });
      expect(await store.takePaymentId('pay_1', 'h2', 'c2', now, now + 60_000)).toEqual({ taken: false, holder: { payloadHash: 'h1', callId: 'c1', answer: null, createdAt: now } });
      expect(await store.retakePaymentId('pay_1', 'c9', 'c3', now)).toBe(false);
      expect(await store.retakePaymentId('pay_1', 'c1', 'c3', now + 1)).toBe(true);
      await store.answerPaymentId('pay_1', 'c1', '{"stale":true}');
      await store.answerPaymentId('pay_1', 'c3', '{"status":200}');
      expect(await store.takePaymentId('pay_1', 'h1', 'c4', now, now + 60_000)).toEqual({ taken: false, holder: { payloadHash: 'h1', callId: 'c3', answer: '{"status":200}', createdAt: now + 1 } });
      await store.releasePaymentId('pay_1', 'c1');
      expect((await store.takePaymentId('pay_1', 'h1', 'c5', now, now + 60_000)).taken).toBe(false);
      await store.releasePaymentId('pay_1', 'c3');
      expect(await store.takePaymentId('pay_1', 'h9', 'c6', now, now + 60_000)).toEqual({ taken: true });
      const race = await Promise.all(Array.from({ length: 20 }, (_, i) => store.takePaymentId('pay_2', 'h', `r${i}`, now, now + 60_000)));
      expect(race.filter((r) => r.taken)).toHaveLength(1);
    });
  });
}
