// Health, generated from what the process actually holds.
import { Elysia } from 'elysia';
import type { Services } from '../services.ts';
import { VERSION } from '../version.ts';
import { jsonResponse as json } from '../json.ts';

export function metaRoutes(s: Services) {
  return new Elysia({ name: 'meta' })
    .get(
      '/healthz',
      () => {
        s.db.$client.query('SELECT 1').get();
        return json(200, {
          status: 'ok',
          version: VERSION,
          uptimeSeconds: Math.round((Date.now() - s.startedAt) / 1000),
          depositsConfigured: Boolean(s.config.gatewayAddress),
          paymentNetwork: s.config.paymentNetwork,
        });
      },
    );
}
