// Token buckets per API key (or per client address for keyless calls). REST and MCP draw from the
// same buckets because both go through the same call pipeline.
import type { MaybePromise } from '../maybe.ts';
import { rateLimited } from '../metrics.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until one more request is allowed (0 while the bucket is full); equals Retry-After when refused. */
  resetSeconds: number;
  /** Seconds an empty bucket takes to fill: the policy's window. */
  windowSeconds: number;
  /** Seconds until one more request is allowed (only when refused). */
  retryAfterSeconds: number;
}

/** Decides one request against a bucket, by its key: in this process (RateLimiter) or shared by replicas (backend/postgres/rate-limit.ts). */
export interface Limiter {
  readonly enabled: boolean;
  take(key: string): MaybePromise<RateDecision>;
  /** take() as the answer carries it: the headers, and the refusal when refused. */
  admit(key: string): MaybePromise<Admission>;
}

interface Tokens {
  tokens: number;
  at: number;
}

export class RateLimiter implements Limiter {
  private readonly buckets = new Map<string, Tokens>();
  private readonly admissions = new Admissions();
  /** What the last step() left in its bucket. */
  private tokens = 0;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxBuckets = 100_000,
  ) {}

  get enabled(): boolean {
    return this.ratePerSecond > 0;
  }

  /** Draws one token from the key's bucket, if it holds one. */
  private step(key: string): boolean {
    const now = this.now();
    let b = this.buckets.get(key);
    if (b) this.buckets.delete(key);
    else b = { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    // Set again to refresh its recency, so the eviction below drops the least recently used bucket.
    this.buckets.set(key, b);
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
    this.tokens = b.tokens;
    return allowed;
  }

  /** Time until the next whole token: what a client must wait for one more request. */
  private nextToken(): number {
    return this.tokens >= this.burst ? 0 : Math.max(1, Math.ceil((1 - (this.tokens % 1)) / this.ratePerSecond));
  }

  take(key: string): RateDecision {
    if (!this.enabled) return { allowed: true, limit: this.burst, remaining: this.burst, resetSeconds: 0, windowSeconds: 0, retryAfterSeconds: 0 };
    const allowed = this.step(key);
    const nextToken = this.nextToken();
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(this.tokens),
      resetSeconds: nextToken,
      windowSeconds: Math.ceil(this.burst / this.ratePerSecond),
      retryAfterSeconds: allowed ? 0 : nextToken,
    };
  }

  admit(key: string): Admission {
    if (!this.enabled) return UNLIMITED;
    const allowed = this.step(key);
    return this.admissions.of(allowed, this.burst, Math.floor(this.tokens), this.nextToken(), Math.ceil(this.burst / this.ratePerSecond));
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * One request against a bucket: the headers every answer carries, and the 429 body when refused.
 * The headers object may be shared between answers (it is frozen): copy it to add to it.
 */
export type Admission = { headers: Readonly<Record<string, string>>; refusal?: { error: string; hint: string; live_status: 'FAILED' } };

// With limits off the answer is always the same, and given without a promise of its own.
const UNLIMITED: Admission = Object.freeze({ headers: NO_HEADERS });

/**
 * `bucket` names the bucket only when limits are on (naming it may mean asking the socket or the
 * key store).
 */
export function admit(limiter: Limiter, bucket: () => MaybePromise<string>): MaybePromise<Admission> {
  if (!limiter.enabled) return UNLIMITED;
  // A bucket in this process for a caller known at once (the usual case) is decided at once: an
  // await here would cost every rate-limited call a turn of the microtask queue (maybe.ts).
  const key = bucket();
  return key instanceof Promise ? key.then((k) => limiter.admit(k)) : limiter.admit(key);
}

/** Most distinct admissions kept: a bucket's state takes few values (its tokens, a few seconds to wait). */
const MAX_ADMISSIONS = 4096;

/**
 * Admissions by the numbers they carry, built once each: the headers of an answer were five
 * strings and an object per request, and a Response reads a Headers object it was given before
 * (json.ts) cheaper than a fresh one.
 */
export class Admissions {
  private readonly known = new Map<number, Admission>();

  of(allowed: boolean, limit: number, remaining: number, resetSeconds: number, windowSeconds: number): Admission {
    // One number names the state while its parts stay small; larger ones are not kept.
    const cacheable = remaining < 2 ** 31 && resetSeconds < 1024;
    const id = ((remaining * 1024 + resetSeconds) * 2 + (allowed ? 1 : 0));
    const known = cacheable ? this.known.get(id) : undefined;
    if (known) {
      if (!allowed) rateLimited.inc();
      return known;
    }
    const made = admission({ allowed, limit, remaining, resetSeconds, windowSeconds, retryAfterSeconds: allowed ? 0 : resetSeconds });
    if (cacheable) {
      if (this.known.size >= MAX_ADMISSIONS) this.known.clear();
      this.known.set(id, made);
    }
    return made;
  }
}

export function admission(decision: RateDecision): Admission {
  const headers = Object.freeze(rateLimitHeaders(decision));
  if (decision.allowed) return Object.freeze({ headers });
  rateLimited.inc();
  return Object.freeze({
    headers,
    refusal: Object.freeze({ error: 'Too many requests', hint: `Rate limit reached; retry after ${decision.retryAfterSeconds} s.`, live_status: 'FAILED' as const }),
  });
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): the policy as quota `q` per
 * window `w` (the bucket size and the time it takes to fill), the state as remaining `r` and `t`,
 * the seconds until one more request is allowed, which is exactly Retry-After when refused. The
 * earlier draft's three RateLimit-Limit/-Remaining/-Reset fields carry the same numbers.
 */
function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const h: Record<string, string> = {
    'ratelimit-policy': `"default";q=${d.limit};w=${d.windowSeconds}`,
    ratelimit: `"default";r=${d.remaining};t=${d.resetSeconds}`,
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
  };
  if (!d.allowed) h['retry-after'] = String(d.retryAfterSeconds);
  return h;
}
