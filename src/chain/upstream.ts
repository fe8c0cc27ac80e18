// JSON-RPC access to one network's upstream nodes: failover over a URL list, a time limit per
// attempt, retry with backoff on 429/5xx for reads, coalescing of identical in-flight calls and a
// small TTL cache. Errors name upstreams by position ("mainnet-beta upstream #2"), never by URL:
// RPC URLs often carry API keys. A response body is read as a stream and abandoned past a size
// cap, so one node answering hundreds of megabytes costs a failed attempt, not the process's memory.
import { parseJson, toJson } from '../json.ts';
import type { Logger } from '../log.ts';
import { upstreamCache, upstreamDuration, upstreamRequests } from '../metrics.ts';
import { readCapped } from '../read-capped.ts';
import type { MaybePromise } from '../maybe.ts';
import type { RequestContext } from '../request-context.ts';

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'unreachable' | 'http' | 'malformed' | 'too_large' | 'rpc',
    readonly rpcCode?: number,
  ) {
    super(message);
  }
}

/** A JSON-RPC error answered by the node itself (the request reached a healthy node). */
export class RpcError extends UpstreamError {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message, 'rpc', code);
  }
}

/**
 * Machine-readable cause of a failed upstream call: unavailable (unreachable, HTTP 429/5xx, node
 * unhealthy), timeout, bad answer (not JSON-RPC, or over the size limit), or the node's own JSON-RPC error (`rpcCode`).
 */
export type UpstreamCode = 'upstream_unavailable' | 'upstream_timeout' | 'upstream_bad_answer' | 'upstream_rpc_error';

export function upstreamCode(e: UpstreamError): UpstreamCode {
  if (e instanceof RpcError) return RETRYABLE_RPC_CODES.has(e.code) ? 'upstream_unavailable' : 'upstream_rpc_error';
  if (e.kind === 'timeout') return 'upstream_timeout';
  if (e.kind === 'malformed' || e.kind === 'too_large') return 'upstream_bad_answer';
  return 'upstream_unavailable';
}

export interface CallOptions {
  /** Serve the same call from memory for this long (ms). Infinity: until evicted. */
  cacheMs?: number;
  /** Cache only answers this accepts (e.g. not a `null` for a transaction that may still land). */
  cacheWhen?: (value: unknown) => boolean;
  /**
   * After `cacheMs`, keep answering from memory for up to this long (ms) while one refresh runs in
   * the background: no caller waits for the node just because the answer aged (stale-while-revalidate).
   */
  staleMs?: number;
  /** Writes are never retried: the first attempt may have landed. */
  write?: boolean;
  /** No log line per failed attempt: the caller (the readiness probe) reports failures itself. */
  quiet?: boolean;
}

/** What a capability calls: an upstream, maybe counting its attempts into one request's context (its access line). */
export interface Rpc {
  call<T = unknown>(method: string, params?: unknown[], options?: CallOptions): MaybePromise<T>;
  /** The same upstream with every attempt of its calls counted into `tally`. */
  counting(tally: RequestContext): Rpc;
}

export interface UpstreamOptions {
  label: string;
  urls: readonly string[];
  timeoutMs: number;
  retries: number;
  log: Logger;
  /** Budget of the answer cache, in bytes of JSON as received (finalized transactions are big). */
  cacheBytes?: number;
  /** Largest response body read; a longer one fails the attempt. */
  maxBodyBytes?: number;
  fetch?: typeof fetch;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
// What of a node's own error message is kept (for logs and, cleaned, for clients).
const MAX_RPC_MESSAGE = 1000;

class BodyTooLarge extends Error {}

/** The body as text, abandoned as soon as it passes `limit` bytes (a declared length is checked first). */
async function readCappedBody(res: Response, limit: number): Promise<string> {
  if (Number(res.headers.get('content-length') ?? 0) > limit) {
    await res.body?.cancel();
    throw new BodyTooLarge();
  }
  const text = await readCapped(res.body, limit);
  if (text === null) throw new BodyTooLarge();
  return text;
}

// Words for the socket errors an operator meets; the error's own message may quote the URL, so
// only its code is used, and only when it looks like one.
const CONNECT_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
};

function connectFailure(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'cannot connect';
  if (code in CONNECT_ERRORS) return CONNECT_ERRORS[code]!;
  if (/CERT|TLS|SSL/.test(code)) return 'TLS certificate rejected';
  return /^[A-Za-z_]{1,40}$/.test(code) ? code : 'cannot connect';
}

// Node-side conditions where another node (or the same one a moment later) may well answer.
const RETRYABLE_RPC_CODES = new Set([-32005 /* node unhealthy / behind */, -32603 /* internal, e.g. index overloaded */]);

interface Attempt {
  ok: boolean;
  value?: unknown;
  /** Length of the JSON text received, to account the cache by size. */
  size?: number;
  error?: UpstreamError;
  /** Why it failed, short and without the URL (it may hold a key): "unreachable: connection refused". */
  reason?: string;
  retryable?: boolean;
  retryAfterMs?: number;
}

export class Upstream implements Rpc {
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly cache = new Map<string, { expires: number; value: unknown; size: number }>();
  private readonly hits: { add(): void };
  private readonly misses: { add(): void };
  private cachedBytes = 0;
  private readonly fetcher: typeof fetch;
  private nextId = 1;
  /** When some upstream last answered (a result or a node's own JSON-RPC error): readiness reads it. */
  lastAnswerAt: number | undefined;
  /** Per URL, why its last attempt failed; cleared when it answers. */
  private readonly failures: (string | undefined)[] = [];

  constructor(private readonly opts: UpstreamOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.label}: no RPC URLs`);
    this.fetcher = opts.fetch ?? fetch;
    this.hits = upstreamCache.series({ network: opts.label, result: 'hit' });
    this.misses = upstreamCache.series({ network: opts.label, result: 'miss' });
  }

  /** The answer, at once (not a promise) when the cache holds it: a cached call need not wait a microtask turn. */
  call<T = unknown>(method: string, params: unknown[] = [], options: CallOptions = {}, tally?: RequestContext): MaybePromise<T> {
    const key = method + ':' + toJson(params);
    if (options.cacheMs) {
      const hit = this.cache.get(key);
      const now = Date.now();
      if (hit && now < hit.expires + (options.staleMs ?? 0)) {
        // Re-insert to keep the Map in least-recently-used order.
        this.cache.delete(key);
        this.cache.set(key, hit);
        this.hits.add();
        // Aged but still usable: one refresh in the background, its failure left to the next caller.
        if (now >= hit.expires) this.fetchShared(key, method, params, options, tally).catch(() => {});
        return hit.value as T;
      }
      this.misses.add();
    }
    if (options.write) return this.run(method, params, options, tally).then((r) => r.value as T);
    return this.fetchShared(key, method, params, options, tally) as Promise<T>;
  }

  counting(tally: RequestContext): Rpc {
    return { call: (method, params, options) => this.call(method, params, options, tally), counting: (other) => this.counting(other) };
  }

  /** One request to the nodes per key at a time, shared by every caller asking meanwhile; remembered when cacheable. */
  private fetchShared(key: string, method: string, params: unknown[], options: CallOptions, tally: RequestContext | undefined): Promise<unknown> {
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const p = this.run(method, params, options, tally)
      .then(({ value, size }) => {
        if (options.cacheMs && (options.cacheWhen?.(value) ?? true)) this.remember(key, value, size, options.cacheMs);
        return value;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private drop(key: string) {
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    this.cachedBytes -= old.size;
  }

  private remember(key: string, value: unknown, size: number, ttl: number) {
    const budget = this.opts.cacheBytes ?? 32 * 1024 * 1024;
    if (size > budget / 4) return;
    this.drop(key);
    this.cache.set(key, { expires: Date.now() + ttl, value, size });
    this.cachedBytes += size;
    // Least recently used first: hits re-insert their entry at the end.
    while (this.cachedBytes > budget) this.drop(this.cache.keys().next().value!);
  }

  private async run(method: string, params: unknown[], options: CallOptions, tally: RequestContext | undefined): Promise<{ value: unknown; size: number }> {
    const rounds = options.write ? 1 : 1 + this.opts.retries;
    let last: UpstreamError | undefined;
    for (let round = 0; round < rounds; round++) {
      let retryable = false;
      let waitMs = 0;
      for (let i = 0; i < this.opts.urls.length; i++) {
        const started = performance.now();
        const attempt = await this.attempt(i, method, params);
        this.observe(i, method, attempt, started);
        if (tally) tally.upstreamCalls++;
        if (attempt.ok) return { value: attempt.value, size: attempt.size ?? 0 };
        last = attempt.error!;
        const next = i + 1 < this.opts.urls.length ? `failover to #${i + 2}` : round + 1 < rounds && attempt.retryable ? 'retry' : 'give up';
        if (!options.quiet) this.opts.log.warn('upstream attempt failed', { event: 'upstream_failure', upstream: this.name(i), method, cause: last.kind, error: last.message, next });
        // A JSON-RPC error that is not about node health is the node's real answer: stop here.
        if (last instanceof RpcError && !RETRYABLE_RPC_CODES.has(last.code)) throw last;
        retryable ||= attempt.retryable === true;
        waitMs = Math.max(waitMs, attempt.retryAfterMs ?? 0);
      }
      if (!retryable || round === rounds - 1) break;
      const backoff = Math.min(2000, 100 * 2 ** round) * (0.5 + Math.random() / 2);
      await Bun.sleep(Math.min(2000, Math.max(backoff, waitMs)));
    }
    throw last ?? new UpstreamError(`${this.opts.label}: no upstream answered`, 'unreachable');
  }

  private observe(i: number, method: string, attempt: Attempt, started: number) {
    const outcome = attempt.ok ? 'ok' : attempt.error!.kind;
    const labels = { network: this.opts.label, upstream: String(i + 1), outcome };
    upstreamRequests.inc({ ...labels, method });
    upstreamDuration.observe(labels, (performance.now() - started) / 1000);
    if (attempt.ok || attempt.error instanceof RpcError) {
      this.lastAnswerAt = Date.now();
      this.failures[i] = undefined;
    } else this.failures[i] = attempt.reason;
  }

  /** Why the upstreams did not answer their last attempts ("#2 HTTP 503" with several URLs); undefined when none failed. */
  failureReason(): string | undefined {
    const failed = this.failures.flatMap((reason, i) => (reason === undefined ? [] : [this.opts.urls.length > 1 ? `#${i + 1} ${reason}` : reason]));
    return failed.length > 0 ? failed.join('; ') : undefined;
  }

  private name(i: number) {
    return `${this.opts.label} upstream #${i + 1}`;
  }

  private async attempt(i: number, method: string, params: unknown[]): Promise<Attempt> {
    const who = this.name(i);
    let res: Response;
    let text = '';
    try {
      res = await this.fetcher(this.opts.urls[i]!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: toJson({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      // An error status is answered by its status alone: its body is not worth reading.
      if (res.ok) text = await readCappedBody(res, this.opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
      else await res.body?.cancel();
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        const limit = this.opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
        return { ok: false, reason: `answer over ${limit} bytes`, error: new UpstreamError(`${who} answered more than ${limit} bytes`, 'too_large') };
      }
      const timedOut = e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError');
      // A hung node is not retried in later rounds: the caller has already waited a full time limit.
      return timedOut
        ? { ok: false, reason: `no answer within ${this.opts.timeoutMs / 1000} s`, error: new UpstreamError(`${who} timed out after ${this.opts.timeoutMs} ms`, 'timeout') }
        : { ok: false, retryable: true, reason: `unreachable: ${connectFailure(e)}`, error: new UpstreamError(`${who} is unreachable`, 'unreachable') };
    }
    if (!res.ok) {
      const retryAfter = Number(res.headers.get('retry-after'));
      return {
        ok: false,
        retryable: res.status === 429 || res.status >= 500,
        retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
        reason: `HTTP ${res.status}`,
        error: new UpstreamError(`${who} answered HTTP ${res.status}`, 'http'),
      };
    }
    let body: unknown;
    try {
      body = parseJson(text);
    } catch {
      return { ok: false, retryable: true, reason: 'malformed JSON', error: new UpstreamError(`${who} answered malformed JSON`, 'malformed') };
    }
    if (!body || typeof body !== 'object') {
      return { ok: false, retryable: true, reason: 'not a JSON-RPC answer', error: new UpstreamError(`${who} answered a non-JSON-RPC body`, 'malformed') };
    }
    const envelope = body as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (envelope.error) {
      const code = typeof envelope.error.code === 'number' ? envelope.error.code : -32603;
      const message = typeof envelope.error.message === 'string' ? envelope.error.message.slice(0, MAX_RPC_MESSAGE) : 'RPC error';
      return { ok: false, retryable: RETRYABLE_RPC_CODES.has(code), error: new RpcError(code, message, envelope.error.data) };
    }
    if (!('result' in envelope)) {
      return { ok: false, retryable: true, reason: 'an answer without a result', error: new UpstreamError(`${who} answered without a result`, 'malformed') };
    }
    return { ok: true, value: envelope.result, size: text.length };
  }
}
