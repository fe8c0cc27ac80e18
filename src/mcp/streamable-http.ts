// Streamable HTTP at /mcp, every method. Each request is routed by protocol revision as the MCP
// specification says (the SDK's own classifier): 2026-07-28 requests (a per-request `_meta`
// envelope, `server/discover` instead of initialize) are served statelessly by the SDK's handler;
// 2025-era requests (2025-11-25, 2025-06-18, 2025-03-26) by sessions: an initialize opens one,
// and its id (Mcp-Session-Id) carries every later POST, the GET event stream and the DELETE.
import { createMcpHandler, isInitializeRequest, isLegacyRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { Caller } from '../calls/caller.ts';
import type { McpFace } from './face.ts';
import { fastInitialized, fastStatelessToolCall, fastToolCall } from './fast-call.ts';
import { MCP_HTTP_PATH } from './paths.ts';
import { rpcError } from './refusals.ts';
import { sameOwner, type HttpSession, type SessionOwner } from './sessions.ts';
import { WebSseServerTransport } from './sse-transport.ts';
import { authInfoFor } from './tools.ts';

// A new session's record, made outside any route handler: a closure made there would keep the
// handler's whole scope alive (the request, its body stream, the parsed body) for as long as the
// session lives, about a third of an idle Streamable HTTP session's memory.
function newHttpSession(owner: SessionOwner): HttpSession {
  const now = Date.now();
  return { id: crypto.randomUUID(), kind: 'streamable-http', owner, openedAt: now, lastActivity: now, streams: 0, busy: 0 };
}

/** The answers the SDK's transport gives a GET it cannot serve, for the checks it makes before ours. */
function streamRefusal(request: Request, session: HttpSession): Response | undefined {
  const headers = request.headers;
  if (!headers.get('accept')?.includes('text/event-stream')) return rpcError(406, -32000, 'Not Acceptable: Client must accept text/event-stream');
  if (session.hello === undefined) return rpcError(400, -32000, 'Bad Request: Server not initialized');
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
  }
  return undefined;
}

/**
 * A session's GET stream, the gateway's own: it sends nothing unasked (no list changes, no
 * logging, no requests to the client), so the stream carries keep-alives only and needs no SDK
 * Server. Its first line goes out at once: Bun sends a streaming response's headers only with
 * its first chunk, and clients give up waiting for them; a comment line is a no-op for every
 * SSE parser. One stream per session: a new GET replaces the old one (a client that reconnects
 * must not meet a 409 from its own stale stream).
 */
function attachStream(face: McpFace, session: HttpSession): Response {
  void session.stream?.close();
  const stream = new WebSseServerTransport(MCP_HTTP_PATH, face.keepAliveMs, face.deps.config.mcpStreamBufferBytes, session.id);
  session.stream = stream;
  session.streams++;
  stream.onclose = () => {
    session.streams--;
    if (session.stream === stream) session.stream = undefined;
    face.sessions.touch(session);
  };
  stream.onerror = face.transportErrorLog['streamable-http'];
  stream.begin(': stream open\n\n');
  return stream.response;
}

/** Answers one request to /mcp, with its body as parsed (undefined when it has none). */
export type StreamableHttp = (request: Request, body: unknown, server: unknown) => Promise<Response>;

export function streamableHttp(face: McpFace): StreamableHttp {
  const { deps: s, sessions, newServer, servers, keepAliveMs, refused, bus } = face;
  // 2026-07-28: stateless, one Server per request from the same factory; 2025-era traffic never reaches it.
  const modern = createMcpHandler(() => newServer(), { legacy: 'reject', keepAliveMs, bus, onerror: (e) => s.log.debug('mcp request refused', { error: e.message }) });

  /** A request naming a session: a message POSTed to it, its GET stream, or its DELETE. */
  const inSession = async (request: Request, sid: string, body: unknown, caller: Caller, server: unknown): Promise<Response> => {
    const method = request.method;
    const session = sessions.get(sid);
    if (!session || session.kind !== 'streamable-http') return rpcError(404, -32001, 'Session not found');
    if (!sameOwner(session.owner, caller)) return refused.notYours();
    // Awaited only when there is something to wait for: a lone tools/call spends nothing here.
    const spending = method === 'POST' ? face.spendOn(caller, body) : method === 'GET' ? face.spend(caller, 1) : undefined;
    const limited = spending && (await spending);
    if (limited) return limited;
    sessions.touch(session);
    if (method === 'POST') {
      const direct = fastToolCall(session, request, body, caller, newServer.runner) ?? fastInitialized(session, request, body);
      if (direct) return direct;
    }
    if (method !== 'GET') return servers.serveHttp(session, request, { authInfo: authInfoFor(caller), parsedBody: body });
    const refusedStream = streamRefusal(request, session);
    if (refusedStream) return refusedStream;
    face.holdOpen(request, server);
    return attachStream(face, session);
  };

  /** An initialize without a session id: opens a session, within the caps and the rate limit. */
  const openSession = async (request: Request, body: unknown, caller: Caller): Promise<Response> => {
    if (request.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(400, -32000, `Bad Request: send Mcp-Session-Id, or start a session with an initialize request (POST ${MCP_HTTP_PATH})`);
    }
    const owner = await face.ownerOf(caller);
    const full = refused.refusal(owner) ?? (await face.spend(caller, 1));
    if (full) return full;
    const session = newHttpSession(owner);
    // Registered before the first await, so concurrent initializes cannot overshoot the caps.
    const added = sessions.add(session);
    if (added !== 'added') return refused.unavailable(added, owner);
    return servers.openHttp(session, request, { authInfo: authInfoFor(caller), parsedBody: body });
  };

  /** A request without a session id: a 2026-07-28 one, served statelessly, or a session's initialize. */
  const withoutSession = async (request: Request, body: unknown, caller: Caller): Promise<Response> => {
    const post = request.method === 'POST';
    // A plain 2026-07-28 tools/call (its header and envelope both claim that revision, so the
    // classifier below could only call it modern, at 18 µs) draws no token here: its call does.
    const direct = post ? fastStatelessToolCall(request, body, caller, newServer.runner) : undefined;
    if (direct) return direct;
    if (await (post ? isLegacyRequest(request, body) : isLegacyRequest(request))) return openSession(request, body, caller);
    const limited = await face.spendOn(caller, body);
    if (limited) return limited;
    return modern.fetch(request, { authInfo: authInfoFor(caller), parsedBody: body });
  };

  return async (request, body, server) => {
    const refusedOrigin = face.foreign(request);
    if (refusedOrigin) return refusedOrigin;
    const caller = face.callerOf(request, server);
    const parsedBody = request.method === 'POST' ? body : undefined;
    const tooLarge = refused.batchTooLarge(parsedBody);
    if (tooLarge) return tooLarge;
    const sid = request.headers.get('mcp-session-id');
    return sid ? inSession(request, sid, parsedBody, caller, server) : withoutSession(request, parsedBody, caller);
  };
}
