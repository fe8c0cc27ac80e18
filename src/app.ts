// Builds the Elysia app (without listening) so tests can run it in-process or on loopback.
import { Elysia } from 'elysia';
import type { Services } from './services.ts';
import { keyRoutes } from './http/keys.ts';
import { metaRoutes } from './http/meta.ts';
import { MalformedBody, MAX_BODY_BYTES, parseJsonBody, PayloadTooLarge } from './http/body.ts';
import { jsonResponse as json } from './json.ts';
import { LLMS_TXT_PATH, llmsTxt } from './llms.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { OPENAPI_PATH, openApiRoutes } from './http/openapi.ts';
import { restRoutes } from './http/rest.ts';
import { webhookRoutes } from './http/webhook.ts';
import { docsRoutes } from './pages/docs.ts';
import { claimRoutes } from './pages/claim.ts';

export function buildApp(s: Services) {
  const llms = llmsTxt(s.config);
  return (
    new Elysia({
      // reusePort would let a second gateway bind the same port silently and steal traffic.
      // The body limit is the parser's (below): it answers a JSON 413 from the declared length or as
      // soon as a chunked body goes past it. Bun's own limit answers with an empty 413, so it is only
      // a backstop. No global onRequest hook: one forces Elysia's slow path on every route.
      serve: { reusePort: false, idleTimeout: s.config.idleTimeoutSeconds, maxRequestBodySize: 1024 * MAX_BODY_BYTES },
    })
      .onParse({ as: 'global' }, ({ request }) => parseJsonBody(request))
      .onError({ as: 'global' }, ({ code, error }) => {
        // Elysia wraps what a parser throws in its own ParseError.
        const cause = error instanceof Error ? error.cause : undefined;
        if (error instanceof PayloadTooLarge || cause instanceof PayloadTooLarge) return tooLarge();
        if (error instanceof MalformedBody || cause instanceof MalformedBody) code = 'PARSE';
        switch (code) {
          case 'NOT_FOUND':
            return json(404, { error: 'Not found', hint: 'See /openapi.json for the routes this gateway serves.' });
          case 'PARSE':
            return json(400, { error: 'Malformed request body', hint: 'Send Content-Type: application/json with a valid JSON object.', live_status: 'FAILED' });
          case 'VALIDATION':
            return json(400, { error: 'Invalid request', hint: 'A field is missing or malformed; see /openapi.json.', live_status: 'FAILED' });
          default:
            s.log.error('unhandled error', { code: String(code), error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
            return json(500, { error: 'Internal server error', live_status: 'FAILED' });
        }
      })
      .use(openApiRoutes(s.config))
      .get(LLMS_TXT_PATH, () => new Response(llms, { headers: { 'content-type': 'text/plain; charset=utf-8' } }))
      .use(claimRoutes(s.config))
      .use(docsRoutes({ specUrl: OPENAPI_PATH, title: 'Chain Intelligence Gateway' }))
      .use(metaRoutes(s))
      .use(restRoutes(s))
      .use(keyRoutes(s))
      .use(webhookRoutes(s))
      .use(mcpRoutes(s))
  );
}

function tooLarge() {
  return json(413, { error: 'Request body too large', hint: `Bodies are limited to ${MAX_BODY_BYTES} bytes.`, live_status: 'FAILED' });
}

export type App = ReturnType<typeof buildApp>;
