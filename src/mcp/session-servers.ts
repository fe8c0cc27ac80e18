// An MCP session's SDK Server exists only while the session is in use. The SDK wants a Server per
// connection, and an idle one holds about 6 KB (bench/mcp-sessions.ts: an idle legacy SSE session
// cost 12.6 KB with its Server, 6.3 KB without); most sessions are idle most of the time, and a
// plain initialize or tools/call on a Streamable HTTP session is answered without one
// (fast-call.ts). So a Server is made when a request needs one, is told the session's initialize
// again (its answer goes nowhere), and is closed once no request is in flight and the session has
// been quiet for LINGER_MS, so a client's run of requests shares one. Event streams are the
// gateway's own (sse-transport.ts) and need no Server.
//
// The initialize is all a Server of this gateway remembers between requests (protocol revision,
// client capabilities and info): it sends no requests to clients and offers no subscriptions and
// no logging level, so nothing else is lost when one is closed.
import { WebStandardStreamableHTTPServerTransport, type HandleRequestOptions, type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo, type Server } from '@modelcontextprotocol/server';
import type { HttpSession, LiveServer, McpSession, McpSessions, SseSession } from './sessions.ts';
import { SsePort } from './sse-transport.ts';
import { initializeAnswer, initializeAnswerJson, isPlainInitialize, sharedHello, type PlainInitialize } from './fast-call.ts';

/** How long a session's Server outlives its last request. */
export const LINGER_MS = 1000;

/** The session's id, read by the transport at initialize (it calls its generator as a method). */
function presetSessionId(this: SessionTransport): string {
  return this.presetId;
}

/** A session transport whose id is chosen up front: a field, not a closure kept per session. */
class SessionTransport extends WebStandardStreamableHTTPServerTransport {
  constructor(
    readonly presetId: string,
    keepAliveMs: number,
  ) {
    super({ sessionIdGenerator: presetSessionId as () => string, keepAliveMs: keepAliveMs > 0 ? keepAliveMs : 0 });
  }
}

/** Hands `hello` (an initialize) to a transport as a POST with the headers it requires; its answer's text. */
async function initializeOn(transport: SessionTransport, hello: unknown): Promise<{ status: number; text: string }> {
  const res = await transport.handleRequest(new Request('http://session.local/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }), { parsedBody: hello });
  return { status: res.status, text: await res.text() };
}

export interface SessionServersOptions {
  sessions: McpSessions;
  newServer: () => Server;
  keepAliveMs: number;
  onError: (kind: McpSession['kind']) => (error: Error) => void;
}

/** The sessions that have a Server now, and the sweep that closes each one LINGER_MS after its session went quiet. */
interface Lingering {
  /** The session has a Server: swept from now on. */
  track(s: McpSession): void;
  /** Closes the session's Server, leaving the session open. */
  release(s: McpSession): void;
  /** The session's Server closed by itself (the session ended with it): nothing left to sweep. */
  forget(s: McpSession): void;
}

function lingering(): Lingering {
  /** Looked at every half LINGER_MS while there are any. */
  const withServer = new Set<McpSession>();
  let sweeper: ReturnType<typeof setInterval> | undefined;

  const release = (s: McpSession) => {
    withServer.delete(s);
    const live = s.live;
    s.live = undefined;
    void live
      ?.then((l) => {
        l.released = true;
        return l.server.close();
      })
      .catch(() => {});
  };

  const sweep = () => {
    const now = Date.now();
    for (const s of withServer) {
      if (!s.live) withServer.delete(s);
      else if (s.busy === 0 && now - s.lastActivity >= LINGER_MS) release(s);
    }
    if (withServer.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return {
    track(s) {
      withServer.add(s);
      if (sweeper) return;
      sweeper = setInterval(sweep, LINGER_MS / 2);
      sweeper.unref?.();
    },
    release,
    forget: (s) => withServer.delete(s),
  };
}

/** A made-once promise of the session's Server; a failed wake leaves the next request to try again. */
function liveOf<T>(s: { live?: Promise<T> }, wake: () => Promise<T>): Promise<T> {
  if (s.live) return s.live;
  const p = wake();
  s.live = p;
  p.catch(() => {
    if (s.live === p) s.live = undefined;
  });
  return p;
}

/** A Server for a Streamable HTTP session, told the session's initialize again if it had one. */
async function wakeHttp({ sessions, newServer, keepAliveMs, onError }: SessionServersOptions, servers: Lingering, session: HttpSession): Promise<LiveServer<SessionTransport>> {
  const server = newServer();
  const transport = new SessionTransport(session.id, keepAliveMs);
  const live: LiveServer<SessionTransport> = { server, transport, released: false };
  // Closed by a DELETE, or refused at initialize: the session ends with it. A release is not an end.
  transport.onclose = () => {
    if (live.released) return;
    servers.forget(session);
    session.live = undefined;
    sessions.remove(session);
    void session.stream?.close();
  };
  transport.onerror = onError('streamable-http');
  await server.connect(transport);
  if (session.hello) {
    const replayed = await initializeOn(transport, session.hello);
    if (transport.sessionId !== session.id) throw new Error(`replayed initialize answered ${replayed.status}`);
  }
  servers.track(session);
  return live;
}

/** A Server for a legacy SSE session, on a port to its stream, told the session's initialize again if it had one. */
async function wakeSse({ newServer, onError }: SessionServersOptions, servers: Lingering, session: SseSession): Promise<LiveServer<SsePort>> {
  const server = newServer();
  const port = new SsePort(session.stream, session);
  port.onerror = onError('sse');
  await server.connect(port);
  if (session.hello) await port.replay(session.hello);
  servers.track(session);
  return { server, transport: port, released: false };
}

/**
 * What a Server answers a plain initialize of `version`, once per revision: every session opened
 * by a client asking nothing unusual gets the same result, so such a session never needs a
 * Server to open (10,000 of them made as many, for a second each).
 */
function initializeResults(newServer: () => Server): (version: string) => Promise<string> {
  const results = new Map<string, Promise<string>>();
  return (version) => {
    let result = results.get(version);
    if (result) return result;
    result = (async () => {
      const server = newServer();
      const transport = new SessionTransport(crypto.randomUUID(), 0);
      await server.connect(transport);
      try {
        const hello = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'gateway', version: '0' } } };
        const { text } = await initializeOn(transport, hello);
        const data = /^data: (.*)$/m.exec(text)?.[1];
        const answer = data ? (JSON.parse(data) as { result?: unknown }) : undefined;
        if (answer?.result === undefined) throw new Error(`initialize of ${version} answered without a result`);
        return JSON.stringify(answer.result);
      } finally {
        await server.close();
      }
    })();
    results.set(version, result);
    result.catch(() => results.delete(version));
    return result;
  };
}

export type SessionServers = ReturnType<typeof sessionServers>;

export function sessionServers(options: SessionServersOptions) {
  const { sessions } = options;
  const servers = lingering();
  const initializeResult = initializeResults(options.newServer);

  /**
   * Hands a request to the Streamable HTTP session's Server, made if it has none; it stays at
   * least until the answer has gone out (or the client has gone).
   */
  async function serveHttp(session: HttpSession, request: Request, handling: HandleRequestOptions): Promise<Response> {
    session.busy++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      session.busy--;
      sessions.touch(session);
    };
    try {
      const { transport } = await liveOf(session, () => wakeHttp(options, servers, session));
      const res = await transport.handleRequest(request, handling);
      if (!res.body) {
        end();
        return res;
      }
      if (request.signal.aborted) end();
      else request.signal.addEventListener('abort', end, { once: true });
      const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: end }));
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (e) {
      end();
      throw e;
    }
  }

  return {
    serveHttp,

    /**
     * Serves the initialize that opens a Streamable HTTP session. When the transport accepts it,
     * the session remembers it for every later Server; when it refuses it (a wrong Accept header,
     * say) the session ends.
     */
    async openHttp(session: HttpSession, request: Request, handling: HandleRequestOptions & { parsedBody: unknown }): Promise<Response> {
      const body = handling.parsedBody;
      if (isPlainInitialize(request, body)) {
        try {
          const res = await initializeAnswer(session, body, initializeResult);
          session.hello = sharedHello(body);
          return res;
        } catch (e) {
          sessions.remove(session);
          throw e;
        }
      }
      const res = await serveHttp(session, request, handling);
      const live = await session.live?.catch(() => undefined);
      // Accepted: the transport took it as a JSON-RPC initialize request.
      if (live?.transport.sessionId === session.id) session.hello = handling.parsedBody as JSONRPCRequest;
      else await (live ? live.transport.close() : sessions.remove(session));
      return res;
    },

    /**
     * Answers the plain initialize of a legacy SSE session on its stream without a Server, as
     * openHttp does for Streamable HTTP; the session remembers it for every later Server.
     */
    async openSse(session: SseSession, hello: PlainInitialize): Promise<void> {
      // Remembered first: a Server woken meanwhile (a request sent without waiting) replays it.
      session.hello = sharedHello(hello);
      session.stream.sendJson(initializeAnswerJson(hello, await initializeResult(hello.params.protocolVersion)));
    },

    /** Delivers POSTed messages to the legacy SSE session's Server, made if it has none. */
    async deliverSse(session: SseSession, messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<void> {
      session.busy++;
      try {
        const { transport: port } = await liveOf(session, () => wakeSse(options, servers, session));
        session.hello ??= messages.find((m): m is JSONRPCRequest => 'method' in m && m.method === 'initialize' && 'id' in m);
        port.deliver(messages, extra);
      } finally {
        session.busy--;
        sessions.touch(session);
      }
    },

    /** The session has ended: its Server goes too, whatever it was doing. */
    release: servers.release,
  };
}
