// MCP routes: the legacy HTTP+SSE transport exactly as SPEC.md (GET /mcp/sse, POST
// /mcp/messages?sessionId=...) and Streamable HTTP at /mcp (POST/GET/DELETE), one SDK Server per
// session, all sessions in one table with one cap (503 beyond it).
//
// Keys: x-api-key or Authorization: Bearer on the SSE GET (or on the Streamable HTTP initialize
// request) binds that key to the session; a key on an individual POST/request is used for that
// call and wins over the bound one. Every tool call runs through the call pipeline, like REST.
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Elysia } from 'elysia';
import { apiKeyOf, clientAddress, type Caller } from '../calls/caller.ts';
import { jsonResponse as json } from '../json.ts';
import type { Services } from '../services.ts';
import type { AddResult, HttpSession, McpSession, McpSessions, SseSession } from './sessions.ts';
import { InvalidMessage, WebSseServerTransport } from './sse-transport.ts';
import { manifest } from './manifest.ts';
import { MCP_HTTP_PATH, MCP_MESSAGES_PATH, MCP_SSE_PATH } from './paths.ts';
import { authInfoFor, toolServerFactory } from './tools.ts';


type ElysiaServer = { timeout(request: Request, seconds: number): void } | null | undefined;

export function mcpRoutes(s: Services) {
  const sessions = s.mcp;
  const newServer = toolServerFactory(s);
  const keepAliveMs = Math.round(s.config.mcpKeepAliveSeconds * 1000);

  const unavailable = (why: Exclude<AddResult, 'added'>) =>
    json(
      503,
      why === 'closing'
        ? { error: 'MCP is shutting down', hint: 'The gateway is stopping; reconnect in a moment.', live_status: 'FAILED' }
        : {
            error: 'Too many MCP sessions',
            hint: `This gateway holds at most ${sessions.maxSessions} open MCP sessions. Close sessions you no longer use (disconnect the SSE stream, or DELETE ${MCP_HTTP_PATH}) or retry later.`,
            live_status: 'FAILED',
          },
      { 'retry-after': '5' },
    );

  const refusal = () => (sessions.isClosing ? unavailable('closing') : sessions.accepting ? undefined : unavailable('full'));

  /**
   * Event streams must outlive Bun's idle timeout. Keep-alive comments alone do not do it: Bun
   * 1.4.5 does not restart a streaming response's idle timer on writes (verified: a stream with a
   * comment every 250 ms was still cut at idleTimeout). So the timeout is lifted for the stream;
   * the comments remain for proxies in between and to notice dead peers.
   */
  const holdOpen = (request: Request, server: unknown) => (server as ElysiaServer)?.timeout(request, 0);

  const onTransportError = (session: McpSession) => (error: Error) =>
    s.log.debug('mcp transport error', { session: session.id, transport: session.kind, error: error.message });

  return (
    new Elysia({ name: 'mcp' })
      .get('/.well-known/mcp.json', () => json(200, manifest(s.config.priceLamports)), { detail: { summary: 'MCP discovery manifest', tags: ['MCP'] } })
      // ---- legacy HTTP+SSE ----------------------------------------------------------------
      .get(
        MCP_SSE_PATH,
        async ({ request, server }) => {
          const refused = refusal();
          if (refused) return refused;
          holdOpen(request, server);
          const transport = new WebSseServerTransport(MCP_MESSAGES_PATH, request.signal, keepAliveMs);
          if (transport.isClosed) return transport.response; // the client is already gone
          const now = Date.now();
          const session: SseSession = {
            id: transport.sessionId,
            kind: 'sse',
            boundKey: apiKeyOf(request.headers),
            server: newServer(),
            transport,
            openedAt: now,
            lastActivity: now,
            streams: 1,
          };
          const added = sessions.add(session);
          if (added !== 'added') {
            await transport.close();
            return unavailable(added);
          }
          transport.onclose = () => sessions.remove(session); // the Server chains its own close onto this
          transport.onerror = onTransportError(session);
          await session.server.connect(transport); // start(): queues the `endpoint` event
          return transport.response;
        },
      )
      .post(MCP_MESSAGES_PATH, ({ request, query, body, server }) => {
        const id = query.sessionId;
        if (!id) {
          return json(400, {
            error: 'Missing sessionId',
            hint: `POST ${MCP_MESSAGES_PATH}?sessionId=<id> with the URL sent in the first (endpoint) event of GET ${MCP_SSE_PATH}, e.g. ${MCP_MESSAGES_PATH}?sessionId=0b6f1d2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b`,
            live_status: 'FAILED',
          });
        }
        const session = sessions.get(id);
        if (!session || session.kind !== 'sse' || session.transport.isClosed) return json(404, { error: 'MCP SSE Session not found' });
        sessions.touch(session);
        const caller: Caller = { apiKey: apiKeyOf(request.headers) ?? session.boundKey, address: clientAddress(request, server, s.config.trustedProxies), face: 'mcp' };
        try {
          session.transport.handlePostMessage(body, {
            authInfo: authInfoFor(caller),
            requestInfo: { headers: Object.fromEntries(request.headers), url: new URL(request.url) },
          });
        } catch (e) {
          if (!(e instanceof InvalidMessage)) throw e;
          return json(400, {
            error: 'Invalid JSON-RPC message',
            hint: 'Send Content-Type: application/json with a JSON-RPC 2.0 message, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_chain_blockhash","arguments":{}}}',
            live_status: 'FAILED',
          });
        }
        return new Response('Accepted', { status: 202, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      })
      // ---- Streamable HTTP --------------------------------------------------------------------
      .all(MCP_HTTP_PATH, async ({ request, body, server }) => {
        const method = request.method;
        const key = apiKeyOf(request.headers);
        const address = clientAddress(request, server, s.config.trustedProxies);
        const sid = request.headers.get('mcp-session-id');
        const parsedBody = method === 'POST' ? body : undefined;

        if (sid) {
          const session = sessions.get(sid);
          if (!session || session.kind !== 'streamable-http') return rpcError(404, -32001, 'Session not found');
          sessions.touch(session);
          if (method === 'GET') holdOpen(request, server);
          const authInfo = authInfoFor({ apiKey: key ?? session.boundKey, address, face: 'mcp' });
          const res = await session.transport.handleRequest(request, { authInfo, parsedBody });
          if (method === 'GET' && res.status === 200) attachStream(sessions, session, request.signal);
          return res;
        }

        if (method !== 'POST' || !isInitializeRequest(parsedBody)) {
          return rpcError(400, -32000, `Bad Request: send Mcp-Session-Id, or start a session with an initialize request (POST ${MCP_HTTP_PATH})`);
        }
        const refused = refusal();
        if (refused) return refused;
        const id = crypto.randomUUID();
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id, keepAliveMs: keepAliveMs > 0 ? keepAliveMs : 0 });
        const now = Date.now();
        const session: HttpSession = {
          id,
          kind: 'streamable-http',
          boundKey: key,
          server: newServer(),
          transport,
          openedAt: now,
          lastActivity: now,
          streams: 0,
        };
        // Registered before the first await, so concurrent initializes cannot overshoot the cap.
        const added = sessions.add(session);
        if (added !== 'added') return unavailable(added);
        transport.onclose = () => sessions.remove(session); // DELETE, sweep or shutdown
        transport.onerror = onTransportError(session);
        await session.server.connect(transport);
        const res = await transport.handleRequest(request, { authInfo: authInfoFor({ apiKey: key, address, face: 'mcp' }), parsedBody });
        // The transport refused the initialize (e.g. 406 for a wrong Accept header): no session.
        if (transport.sessionId === undefined) await transport.close();
        return res;
      })
  );
}

/** Counts an open GET stream of a Streamable HTTP session until its client goes away. */
function attachStream(sessions: McpSessions, session: McpSession, signal: AbortSignal): void {
  session.streams++;
  let attached = true;
  const detach = () => {
    if (!attached) return;
    attached = false;
    session.streams--;
    sessions.touch(session);
  };
  if (signal.aborted) detach();
  else signal.addEventListener('abort', detach, { once: true });
}

function rpcError(status: number, code: number, message: string): Response {
  return json(status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
