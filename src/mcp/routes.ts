// MCP routes: the legacy HTTP+SSE transport exactly as SPEC.md (GET /mcp/sse, POST
// /mcp/messages?sessionId=...) and Streamable HTTP at /mcp. On /mcp each request is routed by
// protocol revision as the spec says (the SDK's own classifier): 2026-07-28 requests (a
// per-request `_meta` envelope, `server/discover` instead of initialize) are served statelessly
// by the SDK's handler; 2025-era requests (2025-11-25, 2025-06-18, 2025-03-26) by sessions
// (POST/GET/DELETE). All sessions are in one table with one cap (503 beyond it) and a smaller one
// per owner; a session has an SDK Server only while it is in use (session-servers.ts).
//
// Every request passes, in this order: the Origin/Host check (403), the session lookup (404), the
// owner check (403: a session id is not a credential), the batch cap, then the rate limit: every
// message but a tools/call draws one token from the caller's REST bucket (a tools/call draws its
// own in the call pipeline, like the REST call it is). A tool call is charged only to the key sent
// on that very request.
import { createMcpHandler, isInitializeRequest, isLegacyRequest, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { Elysia } from 'elysia';
import { httpCaller, type Caller } from '../calls/caller.ts';
import { admitCaller, bucketOf } from '../calls/pipeline.ts';
import { jsonResponse as json } from '../json.ts';
import type { McpDeps } from './deps.ts';
import { manifest } from './manifest.ts';
import { originGuard } from './origin.ts';
import { MCP_HTTP_PATH, MCP_MESSAGES_PATH, MCP_SSE_PATH } from './paths.ts';
import { sameOwner, type AddResult, type HttpSession, type McpSession, type SessionOwner, type SseSession } from './sessions.ts';
import { sessionServers } from './session-servers.ts';
import { InvalidMessage, parseMessages, WebSseServerTransport } from './sse-transport.ts';
import { authInfoFor, toolServerFactory } from './tools.ts';
import { fastInitialized, fastStatelessToolCall, fastToolCall, isPlainInitialized, isPlainInitializeMessage } from './fast-call.ts';
import { bodyRefusal, MalformedBody, parseJsonBody } from '../body.ts';
import type { DirectRoute } from '../direct-route.ts';
import { x402Note } from '../calls/ways-to-pay.ts';

type ElysiaServer = { timeout(request: Request, seconds: number): void } | null | undefined;

const isToolCall = (m: unknown) => typeof m === 'object' && m !== null && 'id' in m && (m as { method?: unknown }).method === 'tools/call';
const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } => 'method' in m && 'id' in m;

export function mcpRoutes(s: McpDeps) {
  const sessions = s.mcp;
  const newServer = toolServerFactory(s);
  const keepAliveMs = Math.round(s.config.mcpKeepAliveSeconds * 1000);
  const foreign = originGuard(s.config);
  // 2026-07-28: stateless, one Server per request from the same factory; 2025-era traffic never reaches it.
  const modern = createMcpHandler(() => newServer(), { legacy: 'reject', keepAliveMs, onerror: (e) => s.log.debug('mcp request refused', { error: e.message }) });
  const maxBatch = s.config.mcpMaxBatch;

  const unavailable = (why: Exclude<AddResult, 'added'>, owner?: SessionOwner) => {
    if (why === 'owner-full') {
      const who = owner?.bucket.startsWith('wallet:') ? 'one API key' : 'one client address without a valid API key';
      return json(
        429,
        {
          error: 'Too many MCP sessions for this client',
          hint: `${who[0]!.toUpperCase()}${who.slice(1)} may hold at most ${sessions.capOf(owner?.bucket ?? '')} open MCP sessions. Close sessions you no longer use (disconnect the SSE stream, or DELETE ${MCP_HTTP_PATH}) or retry later.`,
          live_status: 'FAILED',
        },
        { 'retry-after': '5' },
      );
    }
    return json(
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
  };

  /** Why a new session for `owner` cannot be opened right now, if it cannot. */
  const refusal = (owner: SessionOwner) =>
    sessions.isClosing
      ? unavailable('closing')
      : !sessions.accepting
        ? unavailable('full')
        : !sessions.ownerHasRoom(owner.bucket)
          ? unavailable('owner-full', owner)
          : undefined;

  const notYours = () =>
    json(403, {
      error: 'This MCP session was opened with other credentials',
      hint: 'Send the same API key (x-api-key or Authorization: Bearer) on every request of a session as on the request that opened it; a session opened without a key takes requests only from the address that opened it. Otherwise open a new session.',
      live_status: 'FAILED',
    });

  const batchTooLarge = (n: number) =>
    json(400, { jsonrpc: '2.0', error: { code: -32600, message: `Batch of ${n} messages refused: at most ${maxBatch} messages per batch.` }, id: null });

  /** Draws one rate-limit token per message that is not a tools/call; the 429 when the bucket is empty. */
  const spend = async (caller: Caller, messages: number): Promise<Response | undefined> => {
    for (let i = 0; i < messages; i++) {
      const { headers, refusal } = await admitCaller(caller, s);
      if (refusal) return json(429, refusal, headers);
    }
    return undefined;
  };
  /**
   * spend() for the messages of a request: one token each but a tools/call's, which draws its own in
   * the pipeline; a lone tools/call has nothing to wait for here.
   */
  const spendOn = (caller: Caller, body: unknown) => {
    const n = Array.isArray(body) ? body.filter((m) => !isToolCall(m)).length : isToolCall(body) ? 0 : 1;
    return n === 0 ? undefined : spend(caller, n);
  };

  /** Who sends this very request: its own key and address, never the session's. The address is looked up when first read. */
  const callerOf = (request: Request, server: unknown): Caller => httpCaller(request, server, 'mcp', s.config.trustedProxies);

  const ownerOf = async (caller: Caller): Promise<SessionOwner> => ({ key: caller.apiKey, address: caller.address, bucket: await bucketOf(caller, s) });

  /**
   * Event streams must outlive Bun's idle timeout. Keep-alive comments alone do not do it: Bun
   * 1.4.5 does not restart a streaming response's idle timer on writes (verified: a stream with a
   * comment every 250 ms was still cut at idleTimeout). So the timeout is lifted for the stream;
   * the comments remain for proxies in between and to notice dead peers.
   */
  const holdOpen = (request: Request, server: unknown) => (server as ElysiaServer)?.timeout(request, 0);

  // One logger per transport kind, not a closure per session.
  const errorLog = (transport: McpSession['kind']) => (error: Error) => s.log.debug('mcp transport error', { transport, error: error.message });
  const transportErrorLogs = { sse: errorLog('sse'), 'streamable-http': errorLog('streamable-http') } as const;
  const servers = sessionServers({ sessions, newServer, keepAliveMs, onError: (kind) => transportErrorLogs[kind] });
  // Made here, not inside a route handler: a closure made there keeps the handler's whole scope
  // alive (the request, its body stream, the parsed body) for as long as the session lives,
  // about a third of an idle Streamable HTTP session's memory.
  const newHttpSession = (owner: SessionOwner): HttpSession => {
    const now = Date.now();
    return { id: crypto.randomUUID(), kind: 'streamable-http', owner, openedAt: now, lastActivity: now, streams: 0, busy: 0 };
  };
  const newSseSession = (owner: SessionOwner, stream: WebSseServerTransport): SseSession => {
    const now = Date.now();
    const session: SseSession = { id: stream.sessionId, kind: 'sse', owner, stream, openedAt: now, lastActivity: now, streams: 1, busy: 0, initialized: false };
    // The client went away (or stopped reading): the session ends, and its Server if it has one.
    stream.onclose = () => {
      sessions.remove(session);
      servers.release(session);
    };
    stream.onerror = transportErrorLogs.sse;
    return session;
  };

  /** The answers the SDK's transport gives a GET it cannot serve, for the checks it makes before ours. */
  const streamRefusal = (request: Request, session: HttpSession) => {
    const headers = request.headers;
    if (!headers.get('accept')?.includes('text/event-stream')) return rpcError(406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    if (session.hello === undefined) return rpcError(400, -32000, 'Bad Request: Server not initialized');
    const version = headers.get('mcp-protocol-version');
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return rpcError(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    return undefined;
  };

  /**
   * A Streamable HTTP session's GET stream, the gateway's own: it sends nothing unasked (no list
   * changes, no logging, no requests to the client), so the stream carries keep-alives only and
   * needs no SDK Server. Its first line goes out at once: Bun sends a streaming response's
   * headers only with its first chunk, and clients give up waiting for them; a comment line is a
   * no-op for every SSE parser. One stream per session: a new GET replaces the old one (a client
   * that reconnects must not meet a 409 from its own stale stream).
   */
  const attachStream = (session: HttpSession): Response => {
    void session.stream?.close();
    const stream = new WebSseServerTransport(MCP_HTTP_PATH, keepAliveMs, s.config.mcpStreamBufferBytes, session.id);
    session.stream = stream;
    session.streams++;
    stream.onclose = () => {
      session.streams--;
      if (session.stream === stream) session.stream = undefined;
      sessions.touch(session);
    };
    stream.onerror = transportErrorLogs['streamable-http'];
    stream.begin(': stream open\n\n');
    return stream.response;
  };

  /** Streamable HTTP: every method on /mcp, with the request's body as parsed (undefined when it has none). */
  const streamableHttp = async (request: Request, body: unknown, server: unknown): Promise<Response> => {
    const refused = foreign(request);
    if (refused) return refused;
    const method = request.method;
    const caller = callerOf(request, server);
    const sid = request.headers.get('mcp-session-id');
    const parsedBody = method === 'POST' ? body : undefined;
    if (Array.isArray(parsedBody) && parsedBody.length > maxBatch) return batchTooLarge(parsedBody.length);

    if (!sid) {
      // A plain 2026-07-28 tools/call (its header and envelope both claim that revision, so the
      // classifier below could only call it modern, at 18 µs) draws no token here: its call does.
      const direct = method === 'POST' ? fastStatelessToolCall(request, parsedBody, caller, newServer.runner) : undefined;
      if (direct) return direct;
    }
    if (!sid && !(await (method === 'POST' ? isLegacyRequest(request, parsedBody) : isLegacyRequest(request)))) {
      const limited = await spendOn(caller, parsedBody);
      if (limited) return limited;
      return modern.fetch(request, { authInfo: authInfoFor(caller), parsedBody });
    }

    if (sid) {
      const session = sessions.get(sid);
      if (!session || session.kind !== 'streamable-http') return rpcError(404, -32001, 'Session not found');
      if (!sameOwner(session.owner, caller)) return notYours();
      // Awaited only when there is something to wait for: a lone tools/call spends nothing here.
      const spending = method === 'POST' ? spendOn(caller, parsedBody) : method === 'GET' ? spend(caller, 1) : undefined;
      const limited = spending && (await spending);
      if (limited) return limited;
      sessions.touch(session);
      if (method === 'POST') {
        const direct = fastToolCall(session, request, parsedBody, caller, newServer.runner) ?? fastInitialized(session, request, parsedBody);
        if (direct) return direct;
      }
      if (method !== 'GET') return servers.serveHttp(session, request, { authInfo: authInfoFor(caller), parsedBody });
      const refusedStream = streamRefusal(request, session);
      if (refusedStream) return refusedStream;
      holdOpen(request, server);
      return attachStream(session);
    }

    if (method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return rpcError(400, -32000, `Bad Request: send Mcp-Session-Id, or start a session with an initialize request (POST ${MCP_HTTP_PATH})`);
    }
    const owner = await ownerOf(caller);
    const full = refusal(owner) ?? (await spend(caller, 1));
    if (full) return full;
    const session = newHttpSession(owner);
    // Registered before the first await, so concurrent initializes cannot overshoot the caps.
    const added = sessions.add(session);
    if (added !== 'added') return unavailable(added, owner);
    return servers.openHttp(session, request, { authInfo: authInfoFor(caller), parsedBody });
  };

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
    return streamableHttp(request, body, server);
  };
  const direct: DirectRoute[] = [{ method: 'POST', path: MCP_HTTP_PATH, handle: post }];

  const routes = new Elysia({ name: 'mcp' })
    .get('/.well-known/mcp.json', () => json(200, manifest(s.config.priceLamports, x402Note(s.config))))
    // ---- legacy HTTP+SSE ----------------------------------------------------------------
    .get(MCP_SSE_PATH, async ({ request, server }) => {
      const refused = foreign(request);
      if (refused) return refused;
      const caller = callerOf(request, server);
      const owner = await ownerOf(caller);
      const full = refusal(owner) ?? (await spend(caller, 1));
      if (full) return full;
      holdOpen(request, server);
      const stream = new WebSseServerTransport(MCP_MESSAGES_PATH, keepAliveMs, s.config.mcpStreamBufferBytes);
      const session = newSseSession(owner, stream);
      const added = sessions.add(session);
      if (added !== 'added') {
        await stream.close();
        return unavailable(added, owner);
      }
      await stream.start(); // queues the `endpoint` event
      return stream.response;
    })
    .post(MCP_MESSAGES_PATH, async ({ request, query, body, server }) => {
      const refused = foreign(request);
      if (refused) return refused;
      const id = query.sessionId;
      if (!id) {
        return json(400, {
          error: 'Missing sessionId',
          hint: `POST ${MCP_MESSAGES_PATH}?sessionId=<id> with the URL sent in the first (endpoint) event of GET ${MCP_SSE_PATH}, e.g. ${MCP_MESSAGES_PATH}?sessionId=0b6f1d2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b`,
          live_status: 'FAILED',
        });
      }
      const session = sessions.get(id);
      if (!session || session.kind !== 'sse' || session.stream.isClosed) return json(404, { error: 'MCP SSE Session not found' });
      const caller = callerOf(request, server);
      if (!sameOwner(session.owner, caller)) return notYours();
      if (Array.isArray(body) && body.length > maxBatch) return batchTooLarge(body.length);
      let messages: JSONRPCMessage[];
      try {
        messages = parseMessages(body);
      } catch (e) {
        if (!(e instanceof InvalidMessage)) throw e;
        return json(400, {
          error: 'Invalid JSON-RPC message',
          hint: 'Send Content-Type: application/json with a JSON-RPC 2.0 message, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_chain_blockhash","arguments":{}}}',
          live_status: 'FAILED',
        });
      }
      if (!session.initialized) {
        const early = messages.find((m) => isRequest(m) && m.method !== 'initialize' && m.method !== 'ping');
        if (early) {
          return json(400, { jsonrpc: '2.0', error: { code: -32600, message: 'Session not initialized: send initialize first.' }, id: isRequest(early) ? early.id : null });
        }
      }
      const limited = await spendOn(caller, messages);
      if (limited) return limited;
      if (messages.some((m) => isRequest(m) && m.method === 'initialize')) session.initialized = true;
      sessions.touch(session);
      const [one] = messages;
      // What every client sends first needs no Server: a plain initialize, then notifications/initialized.
      if (messages.length === 1 && session.hello === undefined && isPlainInitializeMessage(one)) {
        await servers.openSse(session, one);
      } else if (messages.length === 1 && session.hello !== undefined && isPlainInitialized(one)) {
        session.stream.lastMessageAt = Date.now();
      } else {
        await servers.deliverSse(session, messages, {
          authInfo: authInfoFor(caller, (id, refund) => session.stream.onCharged(id, refund)),
          request,
        });
      }
      return new Response('Accepted', { status: 202, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    })
    // ---- Streamable HTTP --------------------------------------------------------------------
    .all(MCP_HTTP_PATH, ({ request, body, server }) => streamableHttp(request, body, server));
  return { routes, direct };
}

/** What a JSON-RPC path answers a refused body: JSON-RPC's -32700 for one that is not JSON; 413 as elsewhere. */
export function rpcBodyRefusal(e: unknown): Response | undefined {
  return e instanceof MalformedBody ? rpcParseError() : bodyRefusal(e);
}

export const rpcParseError = () => rpcError(400, -32700, 'Parse error: the body is not valid JSON. Send one JSON-RPC 2.0 message (or a batch) as application/json.');

function rpcError(status: number, code: number, message: string): Response {
  return json(status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
