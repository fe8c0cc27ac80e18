// Token buckets shared by every replica: one upsert per request on PostgreSQL decides and updates
// the bucket under its row lock, using the database's clock so replicas' clocks cannot disagree.
// Same buckets and answers as RateLimiter (rate-limit.ts), which keeps them in one process. While
// the database cannot answer, the seam lets this process's buckets decide (backend/outage.ts guardLimiter).
import type { SQL } from 'bun';
import { admission, type Admission, type Limiter, type RateDecision } from '../../rate-limit.ts';

/** Buckets untouched this long are full again and can be forgotten. */
const SWEEP_EVERY_MS = 60_000;

export class PgRateLimiter implements Limiter {
  private readonly sweeper: ReturnType<typeof setInterval>;

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

  private async shared(key: string): Promise<RateDecision> {
    const rate = this.ratePerSecond;
    const burst = this.burst;
    // EXCLUDED.at is the database's "now"; the SET expressions see the bucket as it was.
    const [row] = await this.sql<{ tokens: number; allowed: number }[]>`
      INSERT INTO rate_buckets AS b (key, tokens, at, allowed)
      VALUES (${key}, ${burst}::float8 - 1, extract(epoch from clock_timestamp()) * 1000, 1)
      ON CONFLICT (key) DO UPDATE SET
        tokens = LEAST(${burst}::float8, b.tokens + (EXCLUDED.at - b.at) / 1000 * ${rate}::float8)
          - CASE WHEN LEAST(${burst}::float8, b.tokens + (EXCLUDED.at - b.at) / 1000 * ${rate}::float8) >= 1 THEN 1 ELSE 0 END,
        allowed = CASE WHEN LEAST(${burst}::float8, b.tokens + (EXCLUDED.at - b.at) / 1000 * ${rate}::float8) >= 1 THEN 1 ELSE 0 END,
        at = EXCLUDED.at
      RETURNING tokens, allowed`;
    const tokens = Number(row!.tokens);
    const allowed = row!.allowed === 1;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((burst - tokens) / rate),
      windowSeconds: Math.ceil(burst / rate),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
    };
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
