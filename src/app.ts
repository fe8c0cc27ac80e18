// Builds the Elysia app (without listening) so tests can run it in-process or on loopback.
import { Elysia } from 'elysia';
import type { Services } from './services.ts';
import type { Logger } from './log.ts';
import { keyDirectRoutes, keyRoutes } from './http/keys.ts';
import { metaRoutes } from './http/meta.ts';
import { bodyRefusal, malformed, MAX_BODY_BYTES, parseJsonBody } from './body.ts';
import { jsonResponse as json } from './json.ts';
import { GatewayError } from './errors.ts';
import { LLMS_TXT_PATH, llmsTxt } from './llms.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { rpcBodyRefusal, rpcParseError } from './mcp/refusals.ts';
import { OPENAPI_PATH, openApiRoutes } from './http/openapi.ts';
import { restDirectRoutes, restRoutes } from './http/rest.ts';
import { webhookRoutes } from './http/webhook.ts';
import { watchRoutes } from './watch/routes.ts';
import { docsRoutes, DOCS_PATHS } from './pages/docs.ts';
import { CLAIM_PATH, claimRoutes } from './pages/claim.ts';
import { faviconRoute, landingPage, wantsHtml } from './pages/home.ts';
import { x402Note } from './calls/ways-to-pay.ts';
import { MCP_HTTP_PATH, MCP_JSON_RPC_PATHS, MCP_SSE_PATH } from './mcp/paths.ts';
import { VERSION } from './version.ts';
import { discoveryRoutes } from './discovery/routes.ts';

/** What `GET /` answers: where a newcomer, an agent or a client generator goes next. */
export const HOME = {
  name: 'Chain Intelligence Gateway',
  version: VERSION,
  docs: DOCS_PATHS[1],
  llmsTxt: LLMS_TXT_PATH,
  openapi: OPENAPI_PATH,
  mcp: { streamableHttp: MCP_HTTP_PATH, sse: MCP_SSE_PATH, manifest: '/.well-known/mcp.json' },
  claim: CLAIM_PATH,
} as const;

/**
 * The methods each known path is served with, for the 405 of a known path called with another
 * (a route for every method, like /mcp's, never gets there). A trailing slash is the same path.
 */
function allowedMethods(routes: readonly { method: string; path: string }[]): (path: string) => string | undefined {
  const byPath = new Map<string, string[]>();
  for (const r of routes) if (r.method !== 'ALL') byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.method]);
  return (path) => byPath.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)?.join(', ');
}

export function buildApp(s: Services) {
  const llms = llmsTxt(s.config);
  // The pages name x402 when it is on, in the words every face uses.
  const x402 = x402Note(s.config);
  const landing = landingPage(HOME, x402);
  const mcp = mcpRoutes(s);
  // Set from the finished app below, before it answers anything.
  let allowOf: (path: string) => string | undefined = () => undefined;
  const app = new Elysia({
    // reusePort would let a second gateway bind the same port silently and steal traffic.
    // The body limit is the parser's (below): it answers a JSON 413 from the declared length or as
    // soon as a chunked body goes past it. Bun's own limit answers with an empty 413, so it is only
    // a backstop. No global onRequest hook: one forces Elysia's slow path on every route.
    serve: { reusePort: false, idleTimeout: s.config.idleTimeoutSeconds, maxRequestBodySize: 1024 * MAX_BODY_BYTES },
  })
    .onParse({ as: 'global' }, ({ request }) => parseJsonBody(request))
    .onError({ as: 'global' }, ({ code, error, path }) => {
      const jsonRpc = MCP_JSON_RPC_PATHS.has(path);
      const refusal = jsonRpc ? rpcBodyRefusal : bodyRefusal;
      // Elysia wraps what a parser throws in its own ParseError.
      const refused = refusal(error) ?? refusal(error instanceof Error ? error.cause : undefined);
      if (refused) return refused;
      switch (code) {
        case 'NOT_FOUND': {
          const allow = allowOf(path);
          if (allow) return json(405, { error: 'Method not allowed', hint: `This path answers ${allow} only.` }, { allow });
          return json(404, { error: 'Not found', hint: `See ${HOME.docs} (or ${HOME.openapi}, ${HOME.llmsTxt}) for the routes this gateway serves.` });
        }
        case 'PARSE':
          return jsonRpc ? rpcParseError() : malformed();
        case 'VALIDATION':
          return json(400, { error: 'Invalid request', hint: 'A field is missing or malformed; see /openapi.json.', live_status: 'FAILED' });
        default:
          return unhandled(s.log, error, String(code));
      }
    })
    // One URL, two readers: a browser gets the landing page, everything else the JSON; caches keep them apart.
    .get('/', ({ request }) => (wantsHtml(request) ? landing() : json(200, HOME, { vary: 'accept' })))
    .get('/favicon.ico', faviconRoute())
    .use(openApiRoutes(s.config))
    .get(LLMS_TXT_PATH, () => new Response(llms, { headers: { 'content-type': 'text/plain; charset=utf-8' } }))
    .use(claimRoutes(s.config, x402))
    .use(docsRoutes({ specUrl: OPENAPI_PATH, title: 'Chain Intelligence Gateway' }))
    .use(metaRoutes(s))
    .use(discoveryRoutes(s, { streamableHttp: MCP_HTTP_PATH, sse: MCP_SSE_PATH, docs: DOCS_PATHS[1] }))
    .use(restRoutes(s))
    .use(keyRoutes(s))
    .use(webhookRoutes(s))
    .use(watchRoutes(s))
    .use(mcp.routes);
  allowOf = allowedMethods(app.routes);
  // The hot calls, also answered by Bun's router when the app is served (see direct-route.ts).
  return Object.assign(app, { direct: [...restDirectRoutes(s), ...keyDirectRoutes(s), ...mcp.direct] });
}

/** The 500 for what a handler threw and nothing below it caught: logged whole, answered without internals. */
export function unhandled(log: Logger, error: unknown, code = 'UNKNOWN'): Response {
  // A refusal thrown by a handler rather than returned (the storage away, billing/backend/outage.ts) is answered as it is.
  if (error instanceof GatewayError) return json(error.status, error.body, error.headers);
  log.error('unhandled error', { code, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return json(500, { error: 'Internal server error', live_status: 'FAILED' });
}

export type App = ReturnType<typeof buildApp>;
