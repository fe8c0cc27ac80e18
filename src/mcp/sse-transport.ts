// The legacy MCP HTTP+SSE server transport over a web ReadableStream. The SDK's own
// SSEServerTransport writes to Node's ServerResponse, which Elysia on Bun does not have; this one
// writes to the Response a route handler returns. The event stream (WebSseServerTransport) lives
// as long as the session; the SDK Server is connected to it through an SsePort only while
// requests are being answered (session-servers.ts), so an idle session holds no Server. The same
// stream serves a Streamable HTTP session's GET: this gateway sends nothing unasked, so that
// stream carries keep-alives only and needs no Server either.
//
// Wire format (what the SDK's SSEClientTransport expects): the first event is
// `event: endpoint` with the messages URL; every JSON-RPC message after it is `event: message`;
// a `: keep-alive` comment goes out at a fixed interval so that idle timeouts of the server and
// of proxies in between never see a silent stream.
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type Transport,
} from '@modelcontextprotocol/server';

/** Output held for a client that does not read, by default; beyond it the session is closed. */
export const DEFAULT_OUTPUT_BUDGET = 256 * 1024;

const HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export class InvalidMessage extends Error {}

/** A POSTed JSON-RPC message or batch as a list; throws InvalidMessage when it is not JSON-RPC. */
export function parseMessages(body: unknown): JSONRPCMessage[] {
  const raw = Array.isArray(body) ? body : [body];
  if (raw.length === 0) throw new InvalidMessage('empty batch');
  return raw.map((m) => {
    if (!isJSONRPCRequest(m) && !isJSONRPCNotification(m) && !isJSONRPCResponse(m)) throw new InvalidMessage('not a JSON-RPC 2.0 message');
    return m as JSONRPCMessage;
  });
}

const ENCODER = new TextEncoder();

/**
 * The keep-alives of every open stream with the same interval, from one timer: a timer and its
 * closure per session were a tenth of an idle session's memory (bench/mcp-sessions.ts). A
 * stream's first keep-alive may come sooner than one interval after it opened, never later.
 */
class KeepAlives {
  private readonly streams = new Set<WebSseServerTransport>();
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private readonly ms: number) {}

  add(stream: WebSseServerTransport) {
    this.streams.add(stream);
    this.timer ??= setInterval(() => {
      for (const s of this.streams) s.keepAlive();
    }, this.ms);
  }

  delete(stream: WebSseServerTransport) {
    this.streams.delete(stream);
    if (this.streams.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const keepAlives = new Map<number, KeepAlives>();
function keepAlivesEvery(ms: number): KeepAlives {
  let k = keepAlives.get(ms);
  if (!k) keepAlives.set(ms, (k = new KeepAlives(ms)));
  return k;
}

/** A charged call's answer and how to give its charge back if the answer is never delivered. */
type Chunk = { bytes: Uint8Array; refund?: () => Promise<void> };

/**
 * Output is held in our own queue and handed to the HTTP layer only when it pulls (the stream has
 * no buffer of its own): what a client has not taken is exactly what is in the queue. The queue
 * is bounded by `outputBudget` bytes; a session over it is closed, and every charged answer still
 * in it is refunded, as are those of a session that closes for any other reason before delivery.
 */
export class WebSseServerTransport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The event stream; return it from the GET handler. */
  readonly response: Response;
  /** When something other than a keep-alive last went out (or was asked for). */
  lastMessageAt = Date.now();

  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private started = false;
  private closed = false;
  private readonly queue: Chunk[] = [];
  private queuedBytes = 0;
  /** The HTTP layer asked for data and none was there: the next write goes straight out. */
  private wanted = false;
  /** Refunds of charged calls whose answers have not been sent yet, by JSON-RPC request id (made on first use: most sessions never hold one). */
  private charged?: Map<string | number, () => Promise<void>>;

  /**
   * @param endpoint path the client POSTs to; `?sessionId=<id>` is appended (legacy SSE only).
   *
   * A client that goes away is noticed by the stream's cancel, which Bun runs as soon as it fires
   * the request's abort signal. The signal is not read: reading it makes an AbortSignal and a
   * listener for each session, 0.5 KB of the 5.3 KB an open stream costs (bench/mcp-sessions.ts).
   */
  constructor(
    private readonly endpoint: string,
    private readonly keepAliveMs: number,
    private readonly outputBudget: number = DEFAULT_OUTPUT_BUDGET,
    sessionId: string = crypto.randomUUID(),
  ) {
    this.sessionId = sessionId;
    const stream = new ReadableStream<Uint8Array>(new WebSseServerTransport.Source(this), { highWaterMark: 0 });
    // The id in a header too, as Streamable HTTP has it: a balancer can learn which replica holds
    // the stream from the response and send the session's POSTs there (docs/scale-out.md).
    this.response = new Response(stream, { headers: { ...HEADERS, 'mcp-session-id': this.sessionId } });
  }

  /** The stream's source: methods on one small object, not three closures and their scope per session. */
  private static readonly Source = class {
    constructor(private readonly t: WebSseServerTransport) {}
    start(c: ReadableStreamDefaultController<Uint8Array>) {
      this.t.controller = c;
    }
    pull() {
      this.t.pump();
    }
    cancel() {
      this.t.finish();
    }
  };

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes waiting for the client to read them. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  /** Opens a legacy SSE session's stream: its first event names the URL to POST messages to. */
  async start(): Promise<void> {
    this.begin(`event: endpoint\ndata: ${this.endpoint}?sessionId=${this.sessionId}\n\n`);
  }

  /** Writes the stream's first text (it sends the headers too) and starts its keep-alives. */
  begin(first: string): void {
    if (this.started) throw new Error('WebSseServerTransport already started');
    this.started = true;
    this.write(first);
    if (this.keepAliveMs > 0) keepAlivesEvery(this.keepAliveMs).add(this);
  }

  /** A comment line every SSE parser ignores: it keeps proxies and clients from timing the stream out. */
  keepAlive(): void {
    this.write(': keep-alive\n\n');
  }

  /** Registers how to refund the charged call `id` if its answer is never delivered. */
  onCharged(id: string | number, refund: () => Promise<void>): void {
    if (this.closed) void refund();
    else (this.charged ??= new Map()).set(id, refund);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const refund = id === undefined ? undefined : this.charged?.get(id);
    if (refund) this.charged!.delete(id!);
    if (this.closed) {
      if (refund) void refund();
      throw new Error('Not connected');
    }
    this.lastMessageAt = Date.now();
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`, refund);
  }

  /** Sends a message already written as JSON (an answer given without a Server: fast-call.ts). */
  sendJson(json: string): void {
    this.lastMessageAt = Date.now();
    this.write(`event: message\ndata: ${json}\n\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.controller.close();
    } catch {
      // already closed or errored by a disconnect
    }
    this.finish();
  }

  private write(text: string, refund?: () => Promise<void>): void {
    if (this.closed) {
      if (refund) void refund();
      return;
    }
    const bytes = ENCODER.encode(text);
    if (this.wanted && this.queue.length === 0) {
      this.wanted = false;
      this.controller.enqueue(bytes);
      return;
    }
    this.queue.push({ bytes, refund });
    this.queuedBytes += bytes.byteLength;
    // A client that stopped reading (but kept the socket open) must not grow our memory.
    if (this.queuedBytes > this.outputBudget) {
      const why = new Error('SSE client is not reading; closing the session');
      this.onerror?.(why);
      // Errored, not closed: the connection is dropped instead of waiting to drain what the kernel holds.
      try {
        this.controller.error(why);
      } catch {}
      this.finish();
    }
  }

  private pump(): void {
    const next = this.queue.shift();
    if (!next) {
      this.wanted = true;
      return;
    }
    this.queuedBytes -= next.bytes.byteLength;
    this.controller.enqueue(next.bytes);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAliveMs > 0) keepAlivesEvery(this.keepAliveMs).delete(this);
    // Answers that never left: their charges go back.
    for (const c of this.queue) if (c.refund) void c.refund();
    for (const refund of this.charged?.values() ?? []) void refund();
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.charged?.clear();
    this.onclose?.();
  }
}

/** What a port counts on its session: requests unanswered, and when it was last used. */
export interface PortUse {
  busy: number;
  lastActivity: number;
}

/**
 * The Transport an SDK Server is connected to for a while: what it sends goes out on the
 * session's event stream; closing it detaches the Server and leaves the stream open. Each
 * request delivered counts on the session until its answer is sent. A request the client cancels
 * gets no answer and keeps the count up: the Server then stays until the session ends.
 */
export class SsePort implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Set while a replayed initialize is answered: that answer is for this Server only, not the client. */
  private swallow?: () => void;
  private closed = false;

  constructor(
    private readonly stream: WebSseServerTransport,
    private readonly use: PortUse,
  ) {
    this.sessionId = stream.sessionId;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // An answer (a result or an error) ends a request; anything else the Server sends just goes out.
    if (!isJSONRPCResponse(message)) return this.stream.send(message);
    if (this.swallow) {
      const done = this.swallow;
      this.swallow = undefined;
      return done();
    }
    this.use.busy--;
    this.use.lastActivity = Date.now();
    return this.stream.send(message);
  }

  /** Hands already-parsed JSON-RPC messages (see parseMessages) to the Server. */
  deliver(messages: readonly JSONRPCMessage[], extra?: MessageExtraInfo): void {
    this.stream.lastMessageAt = Date.now();
    for (const m of messages) {
      if ('method' in m && 'id' in m) this.use.busy++;
      this.onmessage?.(m, extra);
    }
  }

  /** Replays the session's initialize into a new Server; resolves once it has answered (to nobody). */
  replay(hello: JSONRPCRequest): Promise<void> {
    return new Promise((resolve) => {
      this.swallow = resolve;
      this.onmessage?.(hello);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
