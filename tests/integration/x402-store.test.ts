// The x402 payment record on both stores (SQLite file, PostgreSQL): a payment transaction is held
// once however many ask at once, a released one may be held again, a finished one never is.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { heldPayment } from '../support/x402.ts';

setDefaultTimeout(30_000);

const payment = heldPayment;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('x402-store'))(`x402 payments on ${backend}`, () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({ databaseUrl: backend === 'postgres' ? await freshDatabase() : undefined });
      expect(gw.services.store.backend).toBe(backend);
    }, POSTGRES_HOOK_TIMEOUT_MS);
    afterAll(() => gw?.stop());
    const store = () => gw.services.store;

    test('20 holds of one payment at once: exactly one wins', async () => {
      const held = await Promise.all(Array.from({ length: 20 }, () => store().holdPayment(payment('race'), Date.now())));
      expect(held.filter(Boolean)).toHaveLength(1);
    });

    test('released, it may be held again; settled or failed, never', async () => {
      expect(await store().holdPayment(payment('released', 'call-a'), Date.now())).toBe(true);
      // Only the call that holds it releases it.
      await store().releasePayment('released', 'call-b');
      expect(await store().holdPayment(payment('released'), Date.now())).toBe(false);
      await store().releasePayment('released', 'call-a');
      expect(await store().holdPayment(payment('released'), Date.now())).toBe(true);

      expect(await store().holdPayment(payment('settled', 'call-s'), Date.now())).toBe(true);
      await store().finishPayment('settled', { status: 'settled', signature: 'sig-1' }, Date.now());
      await store().releasePayment('settled', 'call-s');
      expect(await store().holdPayment(payment('settled'), Date.now())).toBe(false);

      expect(await store().holdPayment(payment('failed'), Date.now())).toBe(true);
      await store().finishPayment('failed', { status: 'failed', reason: 'settlement_failed: test' }, Date.now());
      expect(await store().holdPayment(payment('failed'), Date.now())).toBe(false);
    });
  });
}
