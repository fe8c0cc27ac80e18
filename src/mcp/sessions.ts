// The table of open MCP sessions, across both transports: one cap on their number, an idle sweep
// for sessions nobody holds any more, and a way to close them all at shutdown.
//
// A session is not a credential: each one remembers who opened it (the API key sent then, or for
// a keyless session the client address) and the routes refuse any message that does not carry
// the same. Each owner holds at most a few sessions (per key's wallet, else per address), so one
// client cannot take the whole table. Session ids never reach the log.
//
// A legacy SSE session lives exactly as long as its event stream: it is removed when the client
// disconnects. A Streamable HTTP session has no such anchor (a client may never open the GET
// stream and may never send DELETE), so it is closed after `idleTtlMs` without a request while no
// event stream of its is attached. A session whose stream stays open but carries nothing but
// keep-alives, with no request, is closed after `streamIdleMs`.
import type { JSONRPCRequest, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { bucketKey, type Bucket } from '../calls/bucket.ts';
import type { Logger } from '../log.ts';
import { mcpSessions } from '../metrics.ts';
import type { SsePort, WebSseServerTransport } from './sse-transport.ts';

/** Who opened a session. */
export interface SessionOwner {
  /** The API key sent when the session was opened; every message must send the same one. */
  readonly key?: string;
  /** The client address it was opened from; a keyless session's messages must come from it. */
  readonly address: string;
  /** What the per-owner cap counts: a valid key's wallet, else the address. */
  readonly bucket: Bucket;
}

/**
 * Whether a request from `caller` may use a session opened by `owner`: a session opened with a
 * key takes only requests with that key; a keyless one only requests from its address (which may
 * send a key of their own: a tool call is charged to the key on its request). The caller's
 * address is read only for a keyless session: looking it up costs as much as a cached call.
 */
export function sameOwner(owner: SessionOwner, caller: { readonly apiKey?: string; readonly address: string }): boolean {
  return owner.key !== undefined ? caller.apiKey === owner.key : caller.address === owner.address;
}

/**
 * The SDK Server serving a session right now, and the transport it is connected to. It exists
 * only while the session is in use: an idle session is its record alone (see session-servers.ts).
 */
export interface LiveServer<T> {
  readonly server: Server;
  readonly transport: T;
  /** Closed because the session went idle, not because the session ended. */
  released: boolean;
}

interface SessionBase {
  readonly id: string;
  readonly owner: SessionOwner;
  readonly openedAt: number;
  lastActivity: number;
  /** Event streams attached right now; a session with one never idles out. */
  streams: number;
  /** Requests being handed to the SDK or served by it; the Server stays while there are any. */
  busy: number;
  /** The initialize request that opened the session, replayed into each Server made for it later. */
  hello?: JSONRPCRequest;
}

export interface SseSession extends SessionBase {
  readonly kind: 'sse';
  /** The event stream: it lives as long as the session, whether or not a Server is attached. */
  readonly stream: WebSseServerTransport;
  live?: Promise<LiveServer<SsePort>>;
  /** Set once the client has sent `initialize`; other requests are refused until then. */
  initialized: boolean;
}

export interface HttpSession extends SessionBase {
  readonly kind: 'streamable-http';
  live?: Promise<LiveServer<WebStandardStreamableHTTPServerTransport>>;
  /** The event stream a GET attached, while it is open; the gateway's own, so it needs no Server. */
  stream?: WebSseServerTransport;
}

export type McpSession = SseSession | HttpSession;

export interface McpSessionsOptions {
  maxSessions: number;
  /** Sessions one client address may hold without a valid key. Default: no cap of its own. */
  maxPerAddress?: number;
  /** Sessions one key's wallet may hold. Default: no cap of its own. */
  maxPerKey?: number;
  /** Idle time after which a session without an attached stream is closed. Default 30 min. */
  idleTtlMs?: number;
  /** A session with a stream that carried only keep-alives and got no request this long is closed. Default 15 min. */
  streamIdleMs?: number;
  /** How often the sweep runs. Default: a quarter of the shorter idle time, at most one minute. */
  sweepEveryMs?: number;
  log?: Logger;
}

export type AddResult = 'added' | 'full' | 'owner-full' | 'closing';

export const DEFAULT_IDLE_TTL_MS = 5 * 60_000;

export class McpSessions {
  readonly maxSessions: number;
  readonly maxPerAddress: number;
  readonly maxPerKey: number;
  readonly idleTtlMs: number;
  readonly streamIdleMs: number;
  private readonly sweepEveryMs: number;
  private readonly sessions = new Map<string, McpSession>();
  /** Open sessions per owner bucket (bucketKey). */
  private readonly perOwner = new Map<string, number>();
  private sweeper?: ReturnType<typeof setInterval>;
  private closing = false;
  private readonly log?: Logger;

  constructor(opts: McpSessionsOptions) {
    this.maxSessions = opts.maxSessions;
    this.maxPerAddress = opts.maxPerAddress ?? opts.maxSessions;
    this.maxPerKey = opts.maxPerKey ?? opts.maxSessions;
    this.idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.streamIdleMs = opts.streamIdleMs ?? 15 * 60_000;
    this.sweepEveryMs = opts.sweepEveryMs ?? Math.max(10, Math.min(60_000, Math.floor(Math.min(this.idleTtlMs, this.streamIdleMs) / 4)));
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

  /** The cap that applies to an owner bucket. */
  capOf(bucket: Bucket): number {
    return bucket.wallet !== undefined ? this.maxPerKey : this.maxPerAddress;
  }

  /** Whether the owner bucket has room for one more session. */
  ownerHasRoom(bucket: Bucket): boolean {
    return (this.perOwner.get(bucketKey(bucket)) ?? 0) < this.capOf(bucket);
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
    if (!this.ownerHasRoom(session.owner.bucket)) return 'owner-full';
    this.sessions.set(session.id, session);
    const owner = bucketKey(session.owner.bucket);
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
    mcpSessions.inc({ transport: session.kind });
    this.startSweeper();
    this.log?.debug('mcp session opened', { transport: session.kind, open: this.sessions.size });
    return 'added';
  }

  /** Forgets a session (its transport has closed). Idempotent. */
  remove(session: McpSession): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    mcpSessions.dec({ transport: session.kind });
    const owner = bucketKey(session.owner.bucket);
    const left = (this.perOwner.get(owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(owner, left);
    else this.perOwner.delete(owner);
    this.log?.debug('mcp session closed', { transport: session.kind, open: this.sessions.size });
  }

  touch(session: McpSession, now = Date.now()): void {
    session.lastActivity = now;
  }

  /**
   * Closes sessions idle longer than the TTL with no stream attached, and those whose streams have
   * carried nothing but keep-alives for streamIdleMs. Returns how many.
   */
  sweep(now = Date.now()): number {
    const stale = [...this.sessions.values()].filter((s) => now - s.lastActivity >= (s.streams <= 0 ? this.idleTtlMs : this.streamIdleMs));
    for (const s of stale) {
      this.log?.debug('mcp session idle, closing', { transport: s.kind, idleMs: now - s.lastActivity });
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

/** Ends a session: its event stream if one is open, and its Server if it has one (which closes the Server's transport). */
async function closeSession(s: McpSession): Promise<void> {
  const live = s.live;
  s.live = undefined;
  try {
    await s.stream?.close();
  } finally {
    const l = await live?.catch(() => undefined);
    await l?.server.close().catch(() => {});
  }
}
