// The legacy HTTP+SSE transport exactly as SPEC.md has it: GET /mcp/sse opens a session whose
// event stream's first event names POST /mcp/messages?sessionId=...; every message POSTed there
// is answered on that stream (202 Accepted on the POST itself).
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Caller } from '../calls/caller.ts';
import { jsonResponse as json } from '../json.ts';
import { LEGACY_SSE, type McpFace } from './face.ts';
import { isPlainInitialized, isPlainInitializeMessage } from './fast-call.ts';
import { MCP_MESSAGES_PATH, MCP_SSE_PATH } from './paths.ts';
import { sameOwner, type SessionOwner, type SseSession } from './sessions.ts';
import { InvalidMessage, parseMessages, WebSseServerTransport } from './sse-transport.ts';
import { authInfoFor } from './tools.ts';

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } => 'method' in m && 'id' in m;

const ACCEPTED = () => new Response('Accepted', { status: 202, headers: { 'content-type': 'text/plain; charset=utf-8' } });

// A new session's record, made outside any route handler: a closure made there would keep the
// handler's whole scope alive (the request, its body stream, the parsed body) for as long as the
// session lives.
function newSseSession(face: McpFace, owner: SessionOwner, stream: WebSseServerTransport): SseSession {
  const now = Date.now();
  const session: SseSession = { id: stream.sessionId, kind: 'sse', owner, stream, openedAt: now, lastActivity: now, streams: 1, busy: 0, initialized: false };
  // The client went away (or stopped reading): the session ends, and its Server if it has one.
  stream.onclose = () => {
    face.sessions.remove(session);
    face.servers.release(session);
  };
  stream.onerror = face.transportErrorLog.sse;
  return session;
}

/** The JSON-RPC messages of a POST the session may take now; else the 400 that says why not. */
function messagesFor(face: McpFace, session: SseSession, body: unknown): JSONRPCMessage[] | Response {
  const tooLarge = face.refused.batchTooLarge(body);
  if (tooLarge) return tooLarge;
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
  const early = session.initialized ? undefined : messages.find((m) => isRequest(m) && m.method !== 'initialize' && m.method !== 'ping');
  if (early) return json(400, { jsonrpc: '2.0', error: { code: -32600, message: 'Session not initialized: send initialize first.' }, id: isRequest(early) ? early.id : null });
  return messages;
}

export interface LegacySse {
  /** GET /mcp/sse: opens a session and answers its event stream. */
  open(request: Request, server: unknown): Promise<Response>;
  /** POST /mcp/messages?sessionId=...: hands the messages to the session, answered on its stream. */
  post(request: Request, sessionId: string | undefined, body: unknown, server: unknown): Promise<Response>;
}

export function legacySse(face: McpFace): LegacySse {
  const { deps: s, sessions, servers, refused } = face;

  /** The open session `id` names, if it is the caller's; else the 400, 404 or 403 that says why not. */
  const sessionOf = (id: string | undefined, caller: Caller): SseSession | Response => {
    if (!id) {
      return json(400, {
        error: 'Missing sessionId',
        hint: `POST ${MCP_MESSAGES_PATH}?sessionId=<id> with the URL sent in the first (endpoint) event of GET ${MCP_SSE_PATH}, e.g. ${MCP_MESSAGES_PATH}?sessionId=0b6f1d2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b`,
        live_status: 'FAILED',
      });
    }
    const session = sessions.get(id);
    if (!session || session.kind !== 'sse' || session.stream.isClosed) return json(404, { error: 'MCP SSE Session not found' });
    if (!sameOwner(session.owner, caller)) return refused.notYours();
    return session;
  };

  /** Answers the messages on the session's stream: what every client sends first needs no Server (a plain initialize, then notifications/initialized). */
  const deliver = async (session: SseSession, messages: JSONRPCMessage[], caller: Caller, request: Request): Promise<void> => {
    if (messages.some((m) => isRequest(m) && m.method === 'initialize')) session.initialized = true;
    sessions.touch(session);
    const [one] = messages;
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
  };

  return {
    async open(request, server) {
      const refusedOrigin = face.foreign(request);
      if (refusedOrigin) return refusedOrigin;
      const caller = face.callerOf(request, server, LEGACY_SSE);
      const owner = await face.ownerOf(caller);
      const full = refused.refusal(owner) ?? (await face.spend(caller, 1));
      if (full) return full;
      face.holdOpen(request, server);
      const stream = new WebSseServerTransport(MCP_MESSAGES_PATH, face.keepAliveMs, s.config.mcpStreamBufferBytes);
      const session = newSseSession(face, owner, stream);
      const added = sessions.add(session);
      if (added !== 'added') {
        await stream.close();
        return refused.unavailable(added, owner);
      }
      await stream.start(); // queues the `endpoint` event
      return stream.response;
    },

    async post(request, sessionId, body, server) {
      const refusedOrigin = face.foreign(request);
      if (refusedOrigin) return refusedOrigin;
      const caller = face.callerOf(request, server, LEGACY_SSE);
      const session = sessionOf(sessionId, caller);
      if (session instanceof Response) return session;
      const messages = messagesFor(face, session, body);
      if (messages instanceof Response) return messages;
      const limited = await face.spendOn(caller, messages);
      if (limited) return limited;
      await deliver(session, messages, caller, request);
      return ACCEPTED();
    },
  };
}
