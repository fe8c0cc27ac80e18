// REST face of the registry: one route per capability under /api/chain/ and the /api/solana/
// alias. Validation, rate limits and charging all live in the call pipeline (src/calls); this file only moves fields
// from HTTP into it and the outcome back out (openapi.ts documents the routes).
import { Elysia } from 'elysia';
import { parseQueryFromURL } from 'elysia/parse-query';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { restPath, type Capability } from '../capabilities/capability.ts';
import { call, type CallDeps } from '../calls/pipeline.ts';
import type { Outcome } from '../calls/outcome.ts';
import { badRequest } from '../errors.ts';
import { httpCaller } from '../calls/caller.ts';
import { jsonResponse as json } from '../json.ts';
import type { MaybePromise } from '../maybe.ts';
import type { DirectRoute } from '../direct-route.ts';

export const REST_PREFIXES = ['/api/chain', '/api/solana'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// HEAD is a safe method: it must not spend the caller's credit on an answer it never receives.
const HEAD_REFUSED = {
  error: 'HEAD is not served for paid calls',
  hint: 'A HEAD request would be charged for an answer it never receives. Send GET; refused and failed calls cost nothing.',
  live_status: 'FAILED',
};

const answerOf = (outcome: Outcome) => json(outcome.status, outcome.body, outcome.headers);
// A pending outcome: a paid call waiting for its commit, or an answer still on its way from upstream.
const answerLater = async (outcome: Promise<Outcome>) => answerOf(await outcome);

/** Answers one call of `cap` with the fields from the query (and body), for the Elysia route and the direct one alike. */
function answerer(cap: Capability, deps: CallDeps) {
  return (raw: Record<string, unknown>, request: Request, server: unknown): MaybePromise<Response> => {
    if (cap.paid && request.method === 'HEAD') return json(405, HEAD_REFUSED, { allow: cap.method });
    const outcome = call(cap, raw, httpCaller(request, server, 'rest', deps.ctx.config.trustedProxies), deps);
    return outcome instanceof Promise ? answerLater(outcome) : answerOf(outcome);
  };
}

export function restRoutes(deps: CallDeps) {
  const app = new Elysia({ name: 'rest' });
  for (const cap of CAPABILITIES) {
    const answer = answerer(cap, deps);
    for (const prefix of REST_PREFIXES) {
      app.route(cap.method, restPath(cap, prefix), async ({ request, query, body, server }) => {
        let raw: Record<string, unknown> = { ...query };
        if (cap.method === 'POST') {
          if (!isObject(body)) {
            const e = badRequest('Invalid JSON body', `Send Content-Type: application/json with a JSON object body, e.g. {"transaction": "<base64>"}`);
            return json(e.status, e.body);
          }
          raw = { ...raw, ...body };
        }
        return answer(raw, request, server);
      });
    }
  }
  return app;
}

/**
 * The GET capability routes for Bun's router. The query is read by the parser Elysia's routes use,
 * so both take the same fields (the last of a repeated name wins, percent-escapes decoded).
 */
export function restDirectRoutes(deps: CallDeps): DirectRoute[] {
  return CAPABILITIES.filter((cap) => cap.method === 'GET').flatMap((cap) => {
    const answer = answerer(cap, deps);
    const handle = (request: Request, server: unknown) => {
      const url = request.url;
      const q = url.indexOf('?');
      return answer(q === -1 ? {} : { ...parseQueryFromURL(url, q + 1) }, request, server);
    };
    return REST_PREFIXES.map((prefix) => ({ method: 'GET' as const, path: restPath(cap, prefix), handle }));
  });
}
