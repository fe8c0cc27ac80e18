// HTTP + JSON-RPC 2.0 dispatch (single and batch requests), call counters and injected faults.

import { parseJson, toJson } from '../../../src/json.ts';
import { RpcError } from './errors.ts';
import type { RpcMethods } from './rpc.ts';

export type Fault =
  | { mode: 'hang' } // accept the request, never answer
  | { mode: 'slow'; delayMs: number } // answer correctly after a delay
  | { mode: 'http429' }
  | { mode: 'http500' } // HTTP status with a small text body (429 also sets Retry-After: 1)
  | { mode: 'garbage' } // HTTP 200 with a body that is not JSON
  | { mode: 'rpcError'; code: number; message: string } // HTTP 200 with a JSON-RPC error object
  | { mode: 'ownerlessTokenBalances' }; // getTransaction's token balances without owner/programId, as nodes sent them before 2022

export interface FaultOptions {
  /** only requests calling one of these methods (any element of a batch) */
  methods?: string[];
  /** only the next N matching HTTP requests, then the fault clears itself */
  times?: number;
}

interface ActiveFault {
  fault: Fault;
  methods?: Set<string>;
  remaining: number;
}

type Id = string | number | null;
interface Reply {
  jsonrpc: '2.0';
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  id: Id;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

function methodsOf(body: unknown): string[] {
  const items = Array.isArray(body) ? body : [body];
  return items.flatMap((r) => (r && typeof r === 'object' && typeof (r as { method?: unknown }).method === 'string' ? [(r as { method: string }).method] : []));
}

/** A getTransaction result's token balances as a pre-2022 node answered them: no owner, no programId. */
function withoutTokenOwners(result: unknown): void {
  const meta = (result as { meta?: Record<string, unknown> } | null)?.meta;
  for (const list of [meta?.preTokenBalances, meta?.postTokenBalances]) {
    for (const b of Array.isArray(list) ? (list as Record<string, unknown>[]) : []) {
      delete b.owner;
      delete b.programId;
    }
  }
}

export class RpcServer {
  private server: ReturnType<typeof Bun.serve> | undefined;
  private readonly counts = new Map<string, number>();
  private total = 0;
  private active: ActiveFault | null = null;
  private readonly hung = new Set<(r: Response) => void>();

  constructor(private readonly methods: RpcMethods) {}

  start(port: number, hostname: string): string {
    this.server = Bun.serve({
      port,
      hostname,
      // Exclusive: a second sandbox on a taken port must fail, not share it and split the calls.
      reusePort: false,
      idleTimeout: 0, // a 'hang' or 'slow' fault must not be cut off by Bun's 10 s default
      development: false,
      fetch: (req) => this.handle(req),
    });
    return `http://${hostname}:${this.server.port}`;
  }

  async stop(): Promise<void> {
    for (const release of this.hung) release(new Response('sandbox stopped', { status: 503 }));
    this.hung.clear();
    await this.server?.stop(true);
    this.server = undefined;
  }

  calls(method?: string): number {
    return method === undefined ? this.total : (this.counts.get(method) ?? 0);
  }

  resetCalls(): void {
    this.counts.clear();
    this.total = 0;
  }

  fault(fault: Fault | null, opts: FaultOptions = {}): void {
    this.active = fault && {
      fault,
      methods: opts.methods ? new Set(opts.methods) : undefined,
      remaining: opts.times ?? Number.POSITIVE_INFINITY,
    };
  }

  /** The fault that applies to a request calling these methods (consuming one of its `times`). */
  private take(methods: string[]): ActiveFault | null {
    const a = this.active;
    if (!a) return null;
    if (a.methods && !methods.some((m) => a.methods!.has(m))) return null;
    a.remaining -= 1;
    if (a.remaining <= 0) this.active = null;
    return a;
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method === 'GET' && url.pathname === '/health') return new Response('ok');
    if (req.method !== 'POST') return new Response('Used HTTP Method is not allowed. POST or OPTIONS is required', { status: 405 });
    const text = await req.text();
    let body: unknown;
    let parsed = true;
    try {
      body = parseJson(text);
    } catch {
      parsed = false;
    }
    const methods = parsed ? methodsOf(body) : [];
    for (const m of methods) {
      this.counts.set(m, (this.counts.get(m) ?? 0) + 1);
      this.total += 1;
    }
    const active = this.take(methods);
    const fault = active?.fault;
    switch (fault?.mode) {
      case 'hang':
        return new Promise<Response>((resolve) => this.hung.add(resolve));
      case 'slow':
        await Bun.sleep(fault.delayMs);
        break;
      case 'http429':
        return new Response('Too many requests for a specific RPC call', { status: 429, headers: { 'content-type': 'text/plain', 'retry-after': '1' } });
      case 'http500':
        return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain' } });
      case 'garbage':
        return new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 200, headers: { 'content-type': 'text/html' } });
      default:
        break;
    }
    if (!parsed) return this.json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    const injected = fault?.mode === 'rpcError' ? { fault, methods: active!.methods } : undefined;
    const one = async (r: unknown) => {
      const reply = await this.dispatch(r, injected);
      if (fault?.mode === 'ownerlessTokenBalances' && reply) withoutTokenOwners(reply.result);
      return reply;
    };
    if (Array.isArray(body)) {
      if (body.length === 0) return this.json({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
      const replies: Reply[] = [];
      for (const r of body) {
        const reply = await one(r);
        if (reply) replies.push(reply);
      }
      return replies.length ? this.json(replies) : new Response(null, { status: 200 });
    }
    const reply = await one(body);
    return reply ? this.json(reply) : new Response(null, { status: 200 });
  }

  private json(value: unknown): Response {
    return new Response(toJson(value), { headers: JSON_HEADERS });
  }

  private async dispatch(
    request: unknown,
    injected: { fault: { code: number; message: string }; methods?: Set<string> } | undefined,
  ): Promise<Reply | null> {
    const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const hasId = r && typeof r === 'object' && 'id' in r;
    const id = (hasId && (typeof r.id === 'string' || typeof r.id === 'number' || typeof r.id === 'bigint') ? r.id : null) as Id;
    if (!r || typeof r !== 'object' || Array.isArray(r) || r.jsonrpc !== '2.0' || typeof r.method !== 'string')
      return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
    if (injected && (!injected.methods || injected.methods.has(r.method)))
      return { jsonrpc: '2.0', error: { code: injected.fault.code, message: injected.fault.message }, id };
    try {
      const result = await this.methods.call(r.method, r.params);
      return hasId ? { jsonrpc: '2.0', result, id } : null;
    } catch (e) {
      if (e instanceof RpcError) {
        const error: Reply['error'] = { code: e.code, message: e.message };
        if (e.data !== undefined) error.data = e.data;
        return { jsonrpc: '2.0', error, id };
      }
      console.error(`sandbox: ${r.method} failed:`, e);
      return { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id };
    }
  }
}
