// MCP routes: the legacy HTTP+SSE transport exactly as SPEC.md (GET /mcp/sse, POST
// /mcp/messages?sessionId=..., legacy-sse.ts) and Streamable HTTP at /mcp (streamable-http.ts).
// All sessions are in one table with one cap (503 beyond it) and a smaller one per owner; a session
// has an SDK Server only while it is in use (session-servers.ts).
//
// Every request passes, in this order: the Origin/Host check (403), the session lookup (404), the
// owner check (403: a session id is not a credential), the batch cap, then the rate limit: every
// message but a tools/call draws one token from the caller's REST bucket (a tools/call draws its
// own in the call pipeline, like the REST call it is). A tool call is charged only to the key sent
// on that very request.
import { Elysia } from 'elysia';
import { parseJsonBody } from '../body.ts';
import type { DirectRoute } from '../direct-route.ts';
import { jsonResponse as json } from '../json.ts';
import type { McpDeps } from './deps.ts';
import { mcpFace } from './face.ts';
import { legacySse } from './legacy-sse.ts';
import { manifest } from './manifest.ts';
import { MCP_HTTP_PATH, MCP_MESSAGES_PATH, MCP_SSE_PATH } from './paths.ts';
import { rpcBodyRefusal } from './refusals.ts';
import { streamableHttp } from './streamable-http.ts';

export function mcpRoutes(s: McpDeps) {
  const face = mcpFace(s);
  const http = streamableHttp(face);
  const sse = legacySse(face);

  /** What the client POSTs to /mcp, for Bun's router (direct-route.ts): the body read and refused as the app's parse hook does. */
  const post = async (request: Request, server: unknown): Promise<Response> => {
    let body: unknown;
    try {
      body = await parseJsonBody(request);
    } catch (e) {
      const refused = rpcBodyRefusal(e);
      if (refused) return refused;
      throw e;
    }
    return http(request, body, server);
  };
  const direct: DirectRoute[] = [{ method: 'POST', path: MCP_HTTP_PATH, handle: post }];

  const routes = new Elysia({ name: 'mcp' })
    .get('/.well-known/mcp.json', () => json(200, manifest(s.config)))
    .get(MCP_SSE_PATH, ({ request, server }) => sse.open(request, server))
    .post(MCP_MESSAGES_PATH, ({ request, query, body, server }) => sse.post(request, query.sessionId, body, server))
    .all(MCP_HTTP_PATH, ({ request, body, server }) => http(request, body, server));
  return { routes, direct };
}
