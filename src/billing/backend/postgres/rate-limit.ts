// Token buckets shared by every replica: one upsert at a time on PostgreSQL decides and updates
// every bucket asked for since the last one, under their row locks, using the database's clock so
// replicas' clocks cannot disagree.
// Same buckets and answers as RateLimiter (rate-limit.ts), which keeps them in one process. While
// the database cannot answer, the seam lets this process's buckets decide (backend/outage.ts guardLimiter).
import type { SQL } from 'bun';
import { admission, type Admission, type Limiter, type RateDecision } from '../../rate-limit.ts';

/** Buckets untouched this long are full again and can be forgotten. */
const SWEEP_EVERY_MS = 60_000;

export class PgRateLimiter implements Limiter {
  private readonly sweeper: ReturnType<typeof setInterval>;
  /** Requests waiting for the next upsert, by bucket, in the order they came. */
  private waiting = new Map<string, { resolve(d: RateDecision): void; reject(e: unknown): void }[]>();
  private deciding = false;

  constructor(
    private readonly sql: SQL,
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  get enabled(): boolean {
    return this.ratePerSecond > 0;
  }

  take(key: string): Promise<RateDecision> {
    return this.shared(key);
  }

  private shared(key: string): Promise<RateDecision> {
    return new Promise((resolve, reject) => {
      const waiting = this.waiting.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (this.deciding) return;
      this.deciding = true;
      setImmediate(() => void this.decide());
    });
  }

  /** One upsert in flight at a time: what is asked meanwhile goes in the next, as a group commit does. */
  private async decide(): Promise<void> {
    while (this.waiting.size > 0) await this.decideNow();
    this.deciding = false;
  }

  /**
   * Every request asked for since the last upsert was sent, decided by one upsert: each bucket
   * gives as many tokens as it holds, up to its requests, to the first of them in order. Buckets
   * are taken in key order in every replica, so two replicas' upserts never wait on each other in
   * a cycle. The bucket is not money: its commit does not wait for the disk (a crash of the
   * database forgets at most the last moments of draws), so a request waits for no fsync for it.
   */
  private async decideNow(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()].sort();
    const rate = this.ratePerSecond;
    const burst = this.burst;
    let rows: { key: string; tokens: number; allowed: number }[];
    try {
      // EXCLUDED.at is the database's "now" when this statement read its clock, which may be before
      // a racing replica's upsert that it waited for (hence GREATEST: time never runs back, or a
      // bucket would go below empty and give a token back); EXCLUDED.allowed is the requests, at most
      // what a full bucket holds; the SET expressions see the bucket as it was; allowed is left as
      // what was given.
      rows = await this.sql<{ key: string; tokens: number; allowed: number }[]>`
        WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
        INSERT INTO rate_buckets AS b (key, tokens, at, allowed)
        SELECT v.key, ${burst}::float8 - LEAST(v.n, floor(${burst}::float8)), extract(epoch from clock_timestamp()) * 1000, LEAST(v.n, floor(${burst}::float8))::int
        FROM unnest(${keys}::text[], ${keys.map((k) => String(batch.get(k)!.length))}::text[]::int[]) AS v(key, n), relaxed
        ORDER BY v.key
        ON CONFLICT (key) DO UPDATE SET
          tokens = LEAST(${burst}::float8, b.tokens + (GREATEST(EXCLUDED.at, b.at) - b.at) / 1000 * ${rate}::float8)
            - LEAST(EXCLUDED.allowed, floor(LEAST(${burst}::float8, b.tokens + (GREATEST(EXCLUDED.at, b.at) - b.at) / 1000 * ${rate}::float8))),
          allowed = LEAST(EXCLUDED.allowed, floor(LEAST(${burst}::float8, b.tokens + (GREATEST(EXCLUDED.at, b.at) - b.at) / 1000 * ${rate}::float8)))::int,
          at = GREATEST(EXCLUDED.at, b.at)
        RETURNING key, tokens, allowed`;
    } catch (e) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(e);
      return;
    }
    for (const row of rows) {
      const left = Number(row.tokens);
      const given = Number(row.allowed);
      batch.get(row.key)!.forEach((w, i) => {
        const allowed = i < given;
        // What this request left in the bucket: the tokens before it, less its own.
        const tokens = allowed ? left + given - i - 1 : left;
        w.resolve({
          allowed,
          limit: burst,
          remaining: Math.floor(tokens),
          resetSeconds: Math.ceil((burst - tokens) / rate),
          windowSeconds: Math.ceil(burst / rate),
          retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / rate)),
        });
      });
    }
  }

  async admit(key: string): Promise<Admission> {
    return admission(await this.take(key));
  }

  private async sweep(): Promise<void> {
    const fullAfterMs = (this.burst / this.ratePerSecond) * 1000;
    await this.sql`DELETE FROM rate_buckets WHERE at < extract(epoch from clock_timestamp()) * 1000 - ${fullAfterMs}::float8`;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
