// Readiness for a load balancer: the database takes a write lock, and some upstream answered
// within the window. Traffic alone cannot tell (an idle gateway calls no upstream), so a probe
// asks each network for its slot whenever it has been quiet for a third of the window.
import type { Upstream } from './chain/upstream.ts';
import type { Network } from './config.ts';
import type { Db } from './db/client.ts';

export interface ReadinessReport {
  ready: boolean;
  database: 'writable' | 'failed';
  /** Seconds since each network's upstreams last answered (null: not yet). */
  upstreams: Record<string, number | null>;
}

export class Readiness {
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Postgres (no SQLite file): the last answer of the store's ping, refreshed by the probe. */
  private remoteWritable = true;

  constructor(
    private readonly db: Db | undefined,
    private readonly upstreams: Record<Network, Upstream>,
    private readonly windowMs: number,
    private readonly ping?: () => Promise<void>,
  ) {}

  start(): void {
    const probe = () => {
      const quietSince = Date.now() - this.windowMs / 3;
      for (const u of Object.values(this.upstreams)) if ((u.lastAnswerAt ?? 0) < quietSince) Promise.resolve(u.call('getSlot')).catch(() => {});
      this.ping?.().then(
        () => (this.remoteWritable = true),
        () => (this.remoteWritable = false),
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
    return { ready: database === 'writable' && answered, database, upstreams };
  }
}
