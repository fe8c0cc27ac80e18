// The legacy MCP HTTP+SSE server transport over a web ReadableStream. The SDK's own
// SSEServerTransport writes to Node's ServerResponse, which Elysia on Bun does not have; this one
// implements the SDK's Transport interface on the Response a route handler returns.
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
  type MessageExtraInfo,
  type Transport,
} from '@modelcontextprotocol/server';

/** Bytes queued for a client that does not read; beyond this the session is dropped. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

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

export class WebSseServerTransport implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The event stream; return it from the GET handler. */
  readonly response: Response;

  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private keepAlive?: ReturnType<typeof setInterval>;
  private started = false;
  private closed = false;

  /**
   * @param endpoint path the client POSTs to; `?sessionId=<id>` is appended.
   * @param signal the GET request's signal: it aborts when the client goes away.
   */
  constructor(
    private readonly endpoint: string,
    signal: AbortSignal,
    private readonly keepAliveMs: number,
    sessionId: string = crypto.randomUUID(),
  ) {
    this.sessionId = sessionId;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
        },
        cancel: () => this.finish(),
      },
      { highWaterMark: 64 * 1024, size: (chunk) => chunk?.byteLength ?? 0 },
    );
    this.response = new Response(stream, { headers: HEADERS });
    if (signal.aborted) this.finish();
    else signal.addEventListener('abort', () => this.finish(), { once: true });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('WebSseServerTransport already started');
    this.started = true;
    this.write(`event: endpoint\ndata: ${this.endpoint}?sessionId=${this.sessionId}\n\n`);
    if (this.keepAliveMs > 0) this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), this.keepAliveMs);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('Not connected');
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Hands already-parsed JSON-RPC messages (see parseMessages) to the server. */
  deliver(messages: readonly JSONRPCMessage[], extra?: MessageExtraInfo): void {
    for (const m of messages) this.onmessage?.(m, extra);
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

  private write(text: string): void {
    if (this.closed) return;
    try {
      this.controller.enqueue(this.encoder.encode(text));
    } catch {
      this.finish();
      return;
    }
    // A client that stopped reading (but kept the socket open) must not grow our memory forever.
    if ((this.controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) {
      this.onerror?.(new Error('SSE client is not reading; closing the session'));
      void this.close();
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.onclose?.();
  }
}
