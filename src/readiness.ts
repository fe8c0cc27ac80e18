// Readiness for a load balancer: the database takes a write lock, and some upstream answered
// within the window. Traffic alone cannot tell (an idle gateway calls no upstream), so a probe
// asks each network for its slot whenever it has been quiet for a third of the window.
import type { Upstream } from './chain/upstream.ts';
import type { Network } from './config.ts';
import type { Db } from './db/client.ts';
import { x402FeePayerRead } from './metrics.ts';

export interface ReadinessReport {
  ready: boolean;
  database: 'writable' | 'failed';
  /** Seconds since each network's upstreams last answered (null: not yet). */
  upstreams: Record<string, number | null>;
  /** The built-in x402 facilitator's fee payer's SOL, in lamports, as last read by the probe (null: not yet). Present with x402's built-in facilitator only. */
  x402FeePayerLamports?: number | null;
}

export class Readiness {
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Postgres (no SQLite file): the last answer of the store's ping, refreshed by the probe. */
  private remoteWritable = true;
  private feePayer: bigint | null = null;

  constructor(
    private readonly db: Db | undefined,
    private readonly upstreams: Record<Network, Upstream>,
    private readonly windowMs: number,
    private readonly ping?: () => Promise<void>,
    /** Reads the x402 fee payer's balance; it pays every settlement's fee, so an empty one stops x402. */
    private readonly feePayerLamports?: () => Promise<bigint>,
  ) {}

  start(): void {
    const probe = () => {
      const quietSince = Date.now() - this.windowMs / 3;
      for (const u of Object.values(this.upstreams)) if ((u.lastAnswerAt ?? 0) < quietSince) Promise.resolve(u.call('getSlot')).catch(() => {});
      this.ping?.().then(
        () => (this.remoteWritable = true),
        () => (this.remoteWritable = false),
      );
      this.feePayerLamports?.().then(
        (lamports) => {
          this.feePayer = lamports;
          x402FeePayerRead(lamports);
        },
        () => {},
      );
    };
    probe();
    this.timer = setInterval(probe, Math.max(250, Math.floor(this.windowMs / 3)));
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  check(now = Date.now()): ReadinessReport {
    let database: ReadinessReport['database'] = 'writable';
    if (!this.db) database = this.remoteWritable ? 'writable' : 'failed';
    else {
      try {
        this.db.$client.run('BEGIN IMMEDIATE');
        this.db.$client.run('ROLLBACK');
      } catch {
        database = 'failed';
      }
    }
    const upstreams: ReadinessReport['upstreams'] = {};
    let answered = false;
    for (const [network, u] of Object.entries(this.upstreams)) {
      upstreams[network] = u.lastAnswerAt === undefined ? null : Math.round((now - u.lastAnswerAt) / 100) / 10;
      if (u.lastAnswerAt !== undefined && now - u.lastAnswerAt <= this.windowMs) answered = true;
    }
    const report: ReadinessReport = { ready: database === 'writable' && answered, database, upstreams };
    if (this.feePayerLamports) report.x402FeePayerLamports = this.feePayer === null ? null : Number(this.feePayer);
    return report;
  }
}
