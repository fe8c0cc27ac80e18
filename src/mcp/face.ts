// What both MCP transports share (streamable-http.ts, legacy-sse.ts): the session table and the
// Servers of its sessions, and the steps every request passes: the Origin/Host check, who sends
// it, its rate-limit tokens, and the refusals.
import { httpCaller, type Caller, type McpEndpoint } from '../calls/caller.ts';
import { admitCaller, bucketOf } from '../calls/pipeline.ts';
import { jsonResponse as json } from '../json.ts';
import type { McpDeps } from './deps.ts';
import { MCP_HTTP_PATH, MCP_SSE_PATH } from './paths.ts';
import { originGuard } from './origin.ts';
import { sessionRefusals, type SessionRefusals } from './refusals.ts';
import { sessionServers, type SessionServers } from './session-servers.ts';
import type { McpSession, McpSessions, SessionOwner } from './sessions.ts';
import { toolServerFactory, type ToolServerFactory } from './tools.ts';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { InMemoryServerEventBus, type ServerEventBus } from '@modelcontextprotocol/server';
import { ResourceFollowers } from './resource-followers.ts';

type ElysiaServer = { timeout(request: Request, seconds: number): void } | null | undefined;

/** Where each transport is reached, as an x402 offer names it. */
export const STREAMABLE_HTTP = { path: MCP_HTTP_PATH, transport: 'streamable-http' } as const;
export const LEGACY_SSE = { path: MCP_SSE_PATH, transport: 'sse' } as const;

const isToolCall = (m: unknown) => typeof m === 'object' && m !== null && 'id' in m && (m as { method?: unknown }).method === 'tools/call';

export interface McpFace {
  readonly deps: McpDeps;
  readonly sessions: McpSessions;
  readonly newServer: ToolServerFactory;
  /** What subscriptions/listen streams (2026-07-28) hear: the changes of the extra tools' resources. */
  readonly bus: ServerEventBus;
  readonly servers: SessionServers;
  readonly keepAliveMs: number;
  readonly refused: SessionRefusals;
  /** One logger per transport kind, not a closure per session. */
  readonly transportErrorLog: Readonly<Record<McpSession['kind'], (error: Error) => void>>;
  /** The 403 for a request from an origin or host not allowed, if it is one. */
  foreign(request: Request): Response | undefined;
  /** Who sends this very request: its own key and address, never the session's. The address is looked up when first read. */
  callerOf(request: Request, server: unknown, endpoint?: McpEndpoint): Caller;
  ownerOf(caller: Caller): Promise<SessionOwner>;
  /** Draws one rate-limit token per message; the 429 when the bucket is empty. */
  spend(caller: Caller, messages: number): Promise<Response | undefined>;
  /**
   * spend() for the messages of a request: one token each but a tools/call's, which draws its own
   * in the pipeline; a lone tools/call has nothing to wait for here.
   */
  spendOn(caller: Caller, body: unknown): Promise<Response | undefined> | undefined;
  /**
   * Event streams must outlive Bun's idle timeout. Keep-alive comments alone do not do it: Bun
   * 1.4.5 does not restart a streaming response's idle timer on writes (verified: a stream with a
   * comment every 250 ms was still cut at idleTimeout). So the timeout is lifted for the stream;
   * the comments remain for proxies in between and to notice dead peers.
   */
  holdOpen(request: Request, server: unknown): void;
}

export function mcpFace(s: McpDeps): McpFace {
  const sessions = s.mcp;
  const extra = s.extraTools;
  const newServer = toolServerFactory(s, CAPABILITIES, extra, extra && new ResourceFollowers(sessions, (cb) => extra.changes(cb)));
  const bus = new InMemoryServerEventBus((e) => s.log.warn('mcp listen delivery failed', { error: e.message }));
  extra?.changes((uri) => bus.publish({ kind: 'resource_updated', uri }));
  const keepAliveMs = Math.round(s.config.mcpKeepAliveSeconds * 1000);
  const errorLog = (transport: McpSession['kind']) => (error: Error) => s.log.debug('mcp transport error', { transport, error: error.message });
  const transportErrorLog = { sse: errorLog('sse'), 'streamable-http': errorLog('streamable-http') } as const;

  const spend = async (caller: Caller, messages: number): Promise<Response | undefined> => {
    for (let i = 0; i < messages; i++) {
      const { headers, refusal } = await admitCaller(caller, s);
      if (refusal) return json(429, refusal, headers);
    }
    return undefined;
  };

  return {
    deps: s,
    sessions,
    newServer,
    bus,
    servers: sessionServers({ sessions, newServer, keepAliveMs, onError: (kind) => transportErrorLog[kind] }),
    keepAliveMs,
    refused: sessionRefusals(sessions, s.config.mcpMaxBatch),
    transportErrorLog,
    foreign: originGuard(s.config),
    callerOf: (request, server, endpoint = STREAMABLE_HTTP) => httpCaller(request, server, 'mcp', s.config.trustedProxies, endpoint),
    ownerOf: async (caller) => ({ key: caller.apiKey, address: caller.address, bucket: await bucketOf(caller, s) }),
    spend,
    spendOn(caller, body) {
      const n = Array.isArray(body) ? body.filter((m) => !isToolCall(m)).length : isToolCall(body) ? 0 : 1;
      return n === 0 ? undefined : spend(caller, n);
    },
    holdOpen: (request, server) => (server as ElysiaServer)?.timeout(request, 0),
  };
}
