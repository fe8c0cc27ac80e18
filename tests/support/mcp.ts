// MCP test support: official SDK clients over both transports and a raw SSE reader.
import http from 'node:http';
import { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Client as Client2, StreamableHTTPClientTransport as StreamableHTTP2 } from '@modelcontextprotocol/client';
import { within } from './poll.ts';

export type McpTransportKind = 'sse' | 'streamable-http';
export const TRANSPORTS: McpTransportKind[] = ['sse', 'streamable-http'];
/** Official clients: the v1 SDK on both transports; the v2 client pinned to 2026-07-28 or negotiating. */
export type McpClientKind = McpTransportKind | 'v2-2026-07-28' | 'v2-auto';
export const CLIENTS: McpClientKind[] = ['sse', 'streamable-http', 'v2-2026-07-28', 'v2-auto'];
export const hasSessions = (kind: McpClientKind): kind is McpTransportKind => (TRANSPORTS as string[]).includes(kind);

export interface ConnectOptions {
  /** Sent on every request of the transport (the SSE GET included): binds the key. */
  headers?: Record<string, string>;
  fetch?: FetchLike;
}

type AnyClient = Client | Client2;

export interface McpTestClient {
  client: AnyClient;
  transport: SSEClientTransport | StreamableHTTPClientTransport | StreamableHTTP2;
  /** The protocol revision the client ended up speaking. */
  protocolVersion(): string | undefined;
  /** Text and parsed JSON of a tool call's first content item. */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; text: string; body: any; result: any }>;
  close(): Promise<void>;
}

export async function connectMcp(baseUrl: string, kind: McpClientKind, opts: ConnectOptions = {}): Promise<McpTestClient> {
  const init = { requestInit: opts.headers ? { headers: opts.headers } : undefined, fetch: opts.fetch };
  let client: AnyClient;
  let transport: McpTestClient['transport'];
  if (hasSessions(kind)) {
    const c = new Client({ name: 'cig-test', version: '1.0.0' });
    transport = kind === 'sse' ? new SSEClientTransport(new URL('/mcp/sse', baseUrl), init) : new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), init);
    await c.connect(transport);
    client = c;
  } else {
    const c = new Client2({ name: 'cig-test', version: '1.0.0' }, { versionNegotiation: { mode: kind === 'v2-auto' ? 'auto' : { pin: '2026-07-28' } } });
    transport = new StreamableHTTP2(new URL('/mcp', baseUrl), init as ConstructorParameters<typeof StreamableHTTP2>[1]);
    await c.connect(transport);
    client = c;
  }
  return {
    client,
    transport,
    protocolVersion: () => (transport as { protocolVersion?: string }).protocolVersion,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as any;
      const text = result.content?.[0]?.text as string;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {}
      return { isError: result.isError === true, text, body, result };
    },
    close: () => client.close(),
  };
}

/** The JSON-RPC messages of a Streamable HTTP answer, whether it came as JSON or as an event stream. */
export async function rpcAnswers(res: Response): Promise<any[]> {
  const text = await res.text();
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trim())
    .filter(Boolean)
    .map((d) => JSON.parse(d));
}

/**
 * A Streamable HTTP session opened by hand at one protocol revision, as an older client would
 * (the official clients speak only their latest): initialize, the initialized notification, then
 * requests whose one answer is returned.
 */
export async function rawMcpSession(baseUrl: string, protocolVersion: string) {
  const url = `${baseUrl}/mcp`;
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const hello = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const init = await fetch(url, { method: 'POST', headers: base, body: JSON.stringify(hello) });
  const [welcome] = await rpcAnswers(init);
  const headers = { ...base, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': protocolVersion };
  await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  let id = 0;
  return {
    /** The revision the gateway agreed to. */
    protocolVersion: welcome.result.protocolVersion as string,
    async request(method: string, params: Record<string, unknown>): Promise<any> {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
      return (await rpcAnswers(res))[0];
    },
    close: () => fetch(url, { method: 'DELETE', headers }),
  };
}

/** A fetch that adds x-api-key to POSTs only: the key travels per message, never on the SSE GET. */
export function keyOnPosts(key: () => string | undefined): FetchLike {
  return (url, init) => {
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST') return fetch(url, init);
    const headers = new Headers(init?.headers);
    const k = key();
    if (k) headers.set('x-api-key', k);
    else headers.delete('x-api-key');
    return fetch(url, { ...init, headers });
  };
}

export interface SseEvent {
  event?: string;
  data: string;
  comment?: string;
}

/** A raw event-stream reader over fetch: events and comments in arrival order. */
export async function openRawSse(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const queue: SseEvent[] = [];
  const waiters: ((e: SseEvent | null) => void)[] = [];
  let ended = false;
  const push = (e: SseEvent | null) => {
    const w = waiters.shift();
    if (w) w(e);
    else if (e) queue.push(e);
  };
  void (async () => {
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += value;
        let i: number;
        while ((i = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const e: SseEvent = { data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) e.comment = line.slice(1).trim();
            else if (line.startsWith('event:')) e.event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          e.data = data.join('\n');
          push(e);
        }
      }
    } catch {
      // aborted
    }
    ended = true;
    while (waiters.length) waiters.shift()!(null);
  })();
  return {
    response: res,
    /** The next event or comment; null when the stream ended. */
    next(timeoutMs = 5000): Promise<SseEvent | null> {
      const e = queue.shift();
      if (e) return Promise.resolve(e);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const waiter = (x: SseEvent | null) => {
          clearTimeout(t);
          resolve(x);
        };
        // A timed-out wait must not swallow the next event.
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no SSE event within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    /** The next real event, skipping comments. */
    async nextEvent(timeoutMs = 5000): Promise<SseEvent | null> {
      for (;;) {
        const e = await this.next(timeoutMs);
        if (!e || e.event !== undefined || e.data !== '') return e;
      }
    },
    close: () => abort.abort(),
  };
}

/** Polls `cond` every few ms until true or the deadline; returns its last value. */
export async function eventually(cond: () => boolean, timeoutMs = 3000): Promise<boolean> {
  return (await within(timeoutMs, cond, 10)) !== null;
}

/**
 * A fetch whose connections come from another loopback address (127.0.0.2, ...), so one test
 * process can be several clients as the gateway's per-address rules see them. Bun's fetch cannot
 * pick its source address; node:http can.
 */
export function fetchFrom(localAddress: string): FetchLike {
  return async (url, init) => {
    const target = new URL(url);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = init?.body == null ? undefined : typeof init.body === 'string' ? init.body : await new Response(init.body).text();
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: init?.method ?? 'GET', headers, localAddress, signal: init?.signal ?? undefined },
        (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
          const stream = res.statusCode === 204 || res.statusCode === 304 ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status: res.statusCode, headers: out }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}
