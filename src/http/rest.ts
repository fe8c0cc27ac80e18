// REST face of the registry: one route per capability under /api/chain/ and the /api/solana/
// alias. Validation, rate limits and charging all live in the call pipeline (src/calls); this file only moves fields
// from HTTP into it and the outcome back out (openapi.ts documents the routes).
import { Elysia } from 'elysia';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { restPath } from '../capabilities/capability.ts';
import { call, type CallDeps } from '../calls/pipeline.ts';
import { badRequest } from '../errors.ts';
import { httpCaller } from '../calls/caller.ts';
import { jsonResponse as json } from '../json.ts';

export const REST_PREFIXES = ['/api/chain', '/api/solana'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function restRoutes(deps: CallDeps) {
  const app = new Elysia({ name: 'rest' });
  for (const cap of CAPABILITIES) {
    for (const prefix of REST_PREFIXES) {
      app.route(
        cap.method,
        restPath(cap, prefix),
        async ({ request, query, body, server }) => {
          let raw: Record<string, unknown> = { ...query };
          if (cap.method === 'POST') {
            if (!isObject(body)) {
              const e = badRequest('Invalid JSON body', `Send Content-Type: application/json with a JSON object body, e.g. {"transaction": "<base64>"}`);
              return json(e.status, e.body);
            }
            raw = { ...raw, ...body };
          }
          const outcome = await call(cap, raw, httpCaller(request, server, 'rest', deps.ctx.config.trustedProxies), deps);
          return json(outcome.status, outcome.body, outcome.headers);
        },
      );
    }
  }
  return app;
}
