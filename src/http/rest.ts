// REST face of the registry: one route per capability under /api/chain/ and the /api/solana/
// alias. Validation, rate limits and charging all live in the call pipeline (src/calls); this file only moves fields
// from HTTP into it and the outcome back out, plus the OpenAPI description of each route.
import { Elysia } from 'elysia';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { inputSchema, restPath, type Capability } from '../capabilities/capability.ts';
import { call, type CallDeps } from '../calls/pipeline.ts';
import { badRequest } from '../errors.ts';
import { apiKeyOf, clientAddress } from '../calls/caller.ts';
import { jsonResponse as json } from '../json.ts';

export const REST_PREFIXES = ['/api/chain', '/api/solana'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function openApi(cap: Capability, prefix: string, priceLamports: number) {
  const schema = inputSchema(cap);
  const price = cap.paid ? ` Paid: ${priceLamports} lamports per call after the free-call allowance; send x-api-key.` : ' Free.';
  const errors = {
    '400': { description: 'Missing or malformed parameter (nothing is charged)' },
    '429': { description: 'Rate limit reached; see Retry-After' },
    '500': { description: 'Upstream RPC or server failure (a paid call is refunded)' },
    ...(cap.paid ? { '402': { description: 'Missing, invalid or exhausted API key' } } : {}),
  };
  return {
    summary: cap.title,
    description: cap.description + price,
    tags: [cap.paid ? 'Paid' : 'Free'],
    operationId: prefix === REST_PREFIXES[0] ? cap.name : `${cap.name}_alias`,
    // The alias serves clients written for the public gateway; documenting it twice helps no one.
    ...(prefix === REST_PREFIXES[0] ? {} : { hide: true }),
    ...(cap.paid ? { security: [{ apiKey: [] }] } : {}),
    ...(cap.method === 'GET'
      ? {
          parameters: Object.entries(cap.params).map(([name, p]) => ({
            name,
            in: 'query',
            required: p.required,
            schema: p.schema,
            description: (p.schema as { description?: string }).description,
          })),
        }
      : { requestBody: { required: true, content: { 'application/json': { schema } } } }),
    responses: { '200': { description: 'Success; the body carries network and live_status "SUCCESS"' }, ...errors },
  };
}

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
          const outcome = await call(cap, raw, { apiKey: apiKeyOf(request.headers), address: clientAddress(request, server) }, deps);
          return json(outcome.status, outcome.body, outcome.headers);
        },
        { detail: openApi(cap, prefix, deps.ctx.config.priceLamports) as never },
      );
    }
  }
  return app;
}
