// Token buckets shared by every replica: one upsert at a time on PostgreSQL (buckets.ts) decides and
// updates every bucket asked for since the last one. A paid call's draw rides in its debit's own
// transaction instead (ledger.ts, debitDrawing): this limiter decides the rest.
// Same buckets and answers as RateLimiter (rate-limit.ts), which keeps them in one process. While
// the database cannot answer, the seam lets this process's buckets decide (backend/outage.ts guardLimiter).
import type { SQL } from 'bun';
import { admission, type Admission, type Limiter, type RateDecision } from '../../rate-limit.ts';
import { decisionOf, draw, type BucketPolicy } from './buckets.ts';
import { KeyedBatch } from './keyed-batch.ts';

/** Buckets untouched this long are full again and can be forgotten. */
const SWEEP_EVERY_MS = 60_000;

export class PgRateLimiter implements Limiter {
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly policy: BucketPolicy;
  /**
   * One upsert in flight at a time, deciding every request asked for since the last was sent: each
   * bucket gives as many tokens as it holds, up to its requests, to the first of them in order
   * (buckets.ts). Its commit does not wait for the disk (a crash of the database forgets at most
   * the last moments of draws), so a request waits for no fsync for it.
   */
  private readonly draws = new KeyedBatch<RateDecision>(async (counts) => {
    const drawn = await draw(this.sql, counts, this.policy, true);
    return (key, i) => decisionOf(drawn.get(key)!, i, this.policy);
  });

  constructor(
    private readonly sql: SQL,
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.policy = { rate: ratePerSecond, burst };
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  get enabled(): boolean {
    return this.ratePerSecond > 0;
  }

  take(key: string): Promise<RateDecision> {
    return this.draws.ask(key);
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
