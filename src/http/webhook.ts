import { Elysia } from 'elysia';
import { handleWebhook } from '../billing/webhook.ts';
import { errorOutcome } from '../calls/outcome.ts';
import type { HttpDeps } from './deps.ts';
import { jsonResponse as json } from '../json.ts';

export function webhookRoutes(s: HttpDeps) {
  const { config } = s;
  return new Elysia({ name: 'webhook' }).post(
    '/api/payments/webhook',
    async ({ request, body }) => {
      if (!config.webhookSecret || !config.gatewayAddress) {
        return json(404, { error: 'Deposit webhook is disabled on this gateway (WEBHOOK_SECRET and GATEWAY_ADDRESS must both be set).' });
      }
      try {
        const result = await handleWebhook(
          {
            store: s.store,
            rpc: s.upstreams[config.paymentNetwork],
            network: config.paymentNetwork,
            gateway: config.gatewayAddress,
            secret: config.webhookSecret,
            verify: config.verifyDeposits,
            minDepositLamports: config.minDepositLamports,
            log: s.log,
            confirm: s.quorum?.confirm,
          },
          request.headers.get('authorization'),
          body,
        );
        return json(200, result);
      } catch (e) {
        const out = errorOutcome(e, s.log, 'webhook');
        return json(out.status, out.body, out.headers);
      }
    },
  );
}
