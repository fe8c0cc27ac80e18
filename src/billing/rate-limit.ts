// Token buckets per API key (or per client address for keyless calls). REST and MCP draw from the
// same buckets because both go through the same call pipeline.
import { andThen, type MaybePromise } from '../maybe.ts';
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

/** Decides one request against a bucket: in this process (RateLimiter) or shared by replicas (PgRateLimiter). */
export interface Limiter {
  readonly enabled: boolean;
  take(key: string): MaybePromise<RateDecision>;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter implements Limiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxBuckets = 100_000,
  ) {}

  get enabled(): boolean {
    return this.ratePerSecond > 0;
  }

  take(key: string): RateDecision {
    if (!this.enabled) return { allowed: true, limit: this.burst, remaining: this.burst, resetSeconds: 0, windowSeconds: 0, retryAfterSeconds: 0 };
    const now = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    // Refresh recency so the eviction below drops the least recently used bucket.
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
    // Time until the next whole token: what a client must wait for one more request.
    const nextToken = b.tokens >= this.burst ? 0 : Math.max(1, Math.ceil((1 - (b.tokens % 1)) / this.ratePerSecond));
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(b.tokens),
      resetSeconds: nextToken,
      windowSeconds: Math.ceil(this.burst / this.ratePerSecond),
      retryAfterSeconds: allowed ? 0 : nextToken,
    };
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * One request against a bucket: the headers every answer carries, and the 429 body when refused.
 * `bucket` names the bucket only when limits are on (naming it may mean asking the socket or the
 * key store). The headers object may be shared between answers: copy it to add to it.
 */
export type Admission = { headers: Readonly<Record<string, string>>; refusal?: { error: string; hint: string; live_status: 'FAILED' } };

// With limits off the answer is always the same, and given without a promise of its own.
const UNLIMITED: Admission = Object.freeze({ headers: NO_HEADERS });

export function admit(limiter: Limiter, bucket: () => MaybePromise<string>): MaybePromise<Admission> {
  if (!limiter.enabled) return UNLIMITED;
  // A bucket in this process for a caller known at once (the usual case) is decided at once: an
  // await here would cost every rate-limited call a turn of the microtask queue (maybe.ts).
  return andThen(bucket(), (key) => andThen(limiter.take(key), admission));
}

function admission(decision: RateDecision): Admission {
  const headers = rateLimitHeaders(decision);
  if (decision.allowed) return { headers };
  rateLimited.inc();
  return { headers, refusal: { error: 'Too many requests', hint: `Rate limit reached; retry after ${decision.retryAfterSeconds} s.`, live_status: 'FAILED' } };
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
