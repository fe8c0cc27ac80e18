// Health, readiness and metrics, generated from what the process actually holds.
import { timingSafeEqual } from 'node:crypto';
import { Elysia } from 'elysia';
import { registry } from '../metrics.ts';
import type { HttpDeps } from './deps.ts';
import { VERSION } from '../version.ts';
import { jsonResponse as json } from '../json.ts';

export function metaRoutes(s: HttpDeps) {
  return new Elysia({ name: 'meta' })
    .get(
      '/healthz',
      // Liveness: the process answers. Not the database: a restart brings no database back, and a
      // liveness check that failed during an outage would restart a gateway that recovers on its own.
      () => {
        return json(200, {
          status: 'ok',
          version: VERSION,
          uptimeSeconds: Math.round((Date.now() - s.startedAt) / 1000),
          depositsConfigured: Boolean(s.config.gatewayAddress),
          paymentNetwork: s.config.paymentNetwork,
        });
      },
    )
    .get(
      '/readyz',
      () => {
        const report = s.readiness.check();
        const ready = report.ready && !s.stopping;
        return json(ready ? 200 : 503, { status: ready ? 'ready' : s.stopping ? 'stopping' : 'not ready', ...report, ready }, ready ? {} : { 'retry-after': '5' });
      },
    )
    .get(
      '/metrics',
      async ({ request }) => {
        if (s.config.metricsToken && !bearerMatches(request.headers.get('authorization'), s.config.metricsToken)) {
          return json(401, { error: 'Unauthorized', hint: 'Send Authorization: Bearer <METRICS_TOKEN>.' }, { 'www-authenticate': 'Bearer realm="metrics"' });
        }
        return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
      },
    );
}

function bearerMatches(header: string | null, token: string): boolean {
  const sent = header?.startsWith('Bearer ') ? Buffer.from(header.slice(7).trim()) : Buffer.alloc(0);
  const want = Buffer.from(token);
  return sent.length === want.length && timingSafeEqual(sent, want);
}
