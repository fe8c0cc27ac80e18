// The table of open MCP sessions, across both transports: one cap on their number, an idle sweep
// for sessions nobody holds any more, and a way to close them all at shutdown.
//
// A legacy SSE session lives exactly as long as its event stream: it is removed when the client
// disconnects. A Streamable HTTP session has no such anchor (a client may never open the GET
// stream and may never send DELETE), so it is closed after `idleTtlMs` without a request while no
// event stream of its is attached.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Logger } from '../log.ts';
import type { WebSseServerTransport } from './sse-transport.ts';

interface SessionBase {
  readonly id: string;
  /** Key sent when the session was opened (SSE GET / initialize POST); a key on a request wins. */
  readonly boundKey?: string;
  readonly server: Server;
  readonly openedAt: number;
  lastActivity: number;
  /** Event streams attached right now; a session with one never idles out. */
  streams: number;
}

export interface SseSession extends SessionBase {
  readonly kind: 'sse';
  readonly transport: WebSseServerTransport;
}

export interface HttpSession extends SessionBase {
  readonly kind: 'streamable-http';
  readonly transport: WebStandardStreamableHTTPServerTransport;
}

export type McpSession = SseSession | HttpSession;

export interface McpSessionsOptions {
  maxSessions: number;
  /** Idle time after which a session without an attached stream is closed. Default 30 min. */
  idleTtlMs?: number;
  /** How often the sweep runs. Default: a quarter of the TTL, at most one minute. */
  sweepEveryMs?: number;
  log?: Logger;
}

export type AddResult = 'added' | 'full' | 'closing';

export const DEFAULT_IDLE_TTL_MS = 30 * 60_000;

export class McpSessions {
  readonly maxSessions: number;
  readonly idleTtlMs: number;
  private readonly sweepEveryMs: number;
  private readonly sessions = new Map<string, McpSession>();
  private sweeper?: ReturnType<typeof setInterval>;
  private closing = false;
  private readonly log?: Logger;

  constructor(opts: McpSessionsOptions) {
    this.maxSessions = opts.maxSessions;
    this.idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.sweepEveryMs = opts.sweepEveryMs ?? Math.max(10, Math.min(60_000, Math.floor(this.idleTtlMs / 4)));
    this.log = opts.log;
  }

  /** Open sessions, both transports together. */
  size(): number {
    return this.sessions.size;
  }

  count(kind: McpSession['kind']): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.kind === kind) n++;
    return n;
  }

  get accepting(): boolean {
    return !this.closing && this.sessions.size < this.maxSessions;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** The open sessions (a snapshot). */
  list(): McpSession[] {
    return [...this.sessions.values()];
  }

  get(id: string | null | undefined): McpSession | undefined {
    return id ? this.sessions.get(id) : undefined;
  }

  /** Registers a session, synchronously, so that concurrent opens can never pass the cap. */
  add(session: McpSession): AddResult {
    if (this.closing) return 'closing';
    if (this.sessions.size >= this.maxSessions) return 'full';
    this.sessions.set(session.id, session);
    if (session.kind === 'streamable-http') this.startSweeper();
    this.log?.debug('mcp session opened', { session: session.id, transport: session.kind, open: this.sessions.size });
    return 'added';
  }

  /** Forgets a session (its transport has closed). Idempotent. */
  remove(session: McpSession): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.log?.debug('mcp session closed', { session: session.id, transport: session.kind, open: this.sessions.size });
  }

  touch(session: McpSession, now = Date.now()): void {
    session.lastActivity = now;
  }

  /** Closes sessions idle longer than the TTL with no stream attached. Returns how many. */
  sweep(now = Date.now()): number {
    const stale = [...this.sessions.values()].filter((s) => s.streams <= 0 && now - s.lastActivity >= this.idleTtlMs);
    for (const s of stale) {
      this.log?.debug('mcp session idle, closing', { session: s.id, transport: s.kind, idleMs: now - s.lastActivity });
      void closeSession(s).finally(() => this.remove(s));
    }
    return stale.length;
  }

  /** Graceful shutdown: closes every session and refuses new ones from now on (503). */
  async closeAll(): Promise<void> {
    this.closing = true;
    this.stopSweeper();
    const all = [...this.sessions.values()];
    await Promise.allSettled(all.map((s) => closeSession(s).finally(() => this.remove(s))));
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), this.sweepEveryMs);
    this.sweeper.unref?.();
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

/** Closing the transport runs the Server's own close path (Protocol wraps transport.onclose). */
async function closeSession(s: McpSession): Promise<void> {
  try {
    await s.transport.close();
  } finally {
    await s.server.close().catch(() => {});
  }
}
