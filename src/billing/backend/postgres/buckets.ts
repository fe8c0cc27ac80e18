// The shared token buckets' one statement: draws for many requests on many buckets decided at once,
// under the buckets' row locks (taken in key order in every replica and every transaction, and
// always before any account's, so no two transactions wait on each other in a cycle), on the
// database's clock so replicas' clocks cannot disagree. Run alone by the limiter (rate-limit.ts)
// and inside the ledger's transaction for a paid call's draw (ledger.ts).
import type { SQL } from 'bun';
import type { RateDecision } from '../../rate-limit.ts';

export interface BucketPolicy {
  /** Tokens added per second. */
  rate: number;
  /** The most a bucket holds. */
  burst: number;
}

/** A bucket after a draw: the tokens it holds, and how many of its requests were given one. */
export interface Drawn {
  key: string;
  tokens: number;
  allowed: number;
}

/**
 * Draws `counts` (requests per bucket key, in key order) in one statement: each bucket gives as
 * many tokens as it holds, up to its requests. `relaxed`: the statement is its own transaction, and
 * its commit need not wait for the disk (a bucket is not money).
 */
export async function draw(sql: SQL, counts: Map<string, number>, p: BucketPolicy, relaxed: boolean): Promise<Map<string, Drawn>> {
  return drawnOf(await drawing(sql, counts, p, relaxed));
}

/** The rows draw's statement returns, by bucket. */
export const drawnOf = (rows: Drawn[]): Map<string, Drawn> => new Map(rows.map((r) => [r.key, { key: r.key, tokens: Number(r.tokens), allowed: Number(r.allowed) }]));

/** draw's statement, not yet sent: awaited alone, or a CTE of a larger statement (the ledger's at-once debits). */
export function drawing(sql: SQL, counts: Map<string, number>, p: BucketPolicy, relaxed: boolean) {
  const keys = [...counts.keys()].sort();
  const n = keys.map((k) => String(counts.get(k)!));
  // EXCLUDED.at is the database's "now" when this statement read its clock, which may be before a
  // racing replica's upsert that it waited for (hence GREATEST: time never runs back, or a bucket
  // would go below empty and give a token back); EXCLUDED.allowed is the requests, at most what a
  // full bucket holds; the SET expressions see the bucket as it was; allowed is left as what was given.
  return sql<Drawn[]>`
    ${relaxed ? sql`WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))` : sql``}
    INSERT INTO rate_buckets AS b (key, tokens, at, allowed)
    SELECT v.key, ${p.burst}::float8 - LEAST(v.n, floor(${p.burst}::float8)), extract(epoch from clock_timestamp()) * 1000, LEAST(v.n, floor(${p.burst}::float8))::int
    FROM unnest(${keys}::text[], ${n}::text[]::int[]) AS v(key, n) ${relaxed ? sql`, relaxed` : sql``}
    ORDER BY v.key
    ON CONFLICT (key) DO UPDATE SET
      tokens = LEAST(${p.burst}::float8, b.tokens + (GREATEST(EXCLUDED.at, b.at) - b.at) / 1000 * ${p.rate}::float8)
        - LEAST(EXCLUDED.allowed, floor(LEAST(${p.burst}::float8, b.tokens + (GREATEST(EXCLUDED.at, b.at) - b.at) / 1000 * ${p.rate}::float8))),
      allowed = LEAST(EXCLUDED.allowed, floor(LEAST(${p.burst}::float8, b.tokens + (GREATEST(EXCLUDED.at, b.at) - b.at) / 1000 * ${p.rate}::float8)))::int,
      at = GREATEST(EXCLUDED.at, b.at)
    RETURNING key, tokens, allowed`;
}

/** What the `i`-th request (from 0) of a bucket's draw was answered: the first `allowed` got a token. */
export function decisionOf(d: Pick<Drawn, 'tokens' | 'allowed'>, i: number, p: BucketPolicy): RateDecision {
  const allowed = i < d.allowed;
  // What this request left in the bucket: the tokens before it, less its own.
  const tokens = allowed ? d.tokens + d.allowed - i - 1 : d.tokens;
  return {
    allowed,
    limit: p.burst,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((p.burst - tokens) / p.rate),
    windowSeconds: Math.ceil(p.burst / p.rate),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - d.tokens) / p.rate)),
  };
}
