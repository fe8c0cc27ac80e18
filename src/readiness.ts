// Readiness for a load balancer: the database answers (billing/backend/outage.ts probes it twice a second
// and follows the calls that found it away), and some upstream answered within the window. Traffic alone cannot tell (an idle gateway calls no upstream), so a probe
// asks each network for its slot whenever it has been quiet for a third of the window. The probe
// logs a network once when it stops answering (naming the sandbox chain when it never answered:
// an offline first run) and once when it answers again, not a line per failed attempt.
import type { Upstream } from './chain/upstream.ts';
import type { Network } from './config.ts';
import type { StorageOutage } from './billing/backend/outage.ts';
import type { Logger } from './log.ts';
import type { X402Readiness, X402Settleable } from './billing/x402/settleable.ts';

const OFFLINE_HINT =
  'offline? `bun run sandbox` (in a source checkout) starts a local Solana chain on 127.0.0.1:8899: set MAINNET_RPC_URLS and DEVNET_RPC_URLS to http://127.0.0.1:8899';

export interface ReadinessReport {
  ready: boolean;
  database: 'writable' | 'failed';
  /** Why the database is not ready, naming it: "postgres: unreachable", "sqlite: disk full". */
  databaseError?: string;
  /** Seconds since each network's upstreams last answered (null: not yet). */
  upstreams: Record<string, number | null>;
  /** Why, for each network with no answer within the window: "unreachable: connection refused". */
  upstreamErrors: Record<string, string>;
  /** The built-in x402 facilitator's fee payer's SOL, in lamports, as last read by the probe (null: not yet). Present with x402's built-in facilitator only. */
  x402FeePayerLamports?: number | null;
  /**
   * With x402 on: its accounts as last read (settleable.ts), whether 402 answers offer x402
   * (`offered`), every current cause that stops payments (`problems`: accounts, facilitator) and
   * what soon will (`warnings`). They do not make the gateway unready: keys and free calls still
   * work, and every replica shares the same accounts.
   */
  x402?: X402Readiness;
}

export class Readiness {
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Networks the probe last saw fail, so that a lasting outage is logged once. */
  private readonly failing = new Set<string>();

  constructor(
    private readonly storage: StorageOutage,
    private readonly upstreams: Record<Network, Upstream>,
    private readonly windowMs: number,
    private readonly log: Logger,
    /** Whether x402 payments can settle (its accounts, its facilitator): watched from start() to stop(). */
    private readonly x402?: Pick<X402Settleable, 'start' | 'stop' | 'report'>,
  ) {}

  start(): void {
    const probe = () => {
      const quietSince = Date.now() - this.windowMs / 3;
      const probes = Object.entries(this.upstreams)
        .filter(([, u]) => (u.lastAnswerAt ?? 0) < quietSince)
        .map(([network, u]) =>
          Promise.resolve(u.call('getSlot', [], { quiet: true })).then(
            () => ({ network, u, ok: true }),
            () => ({ network, u, ok: u.lastAnswerAt !== undefined && u.lastAnswerAt >= quietSince }),
          ),
        );
      void Promise.all(probes).then((results) => this.report(results));
    };
    probe();
    this.timer = setInterval(probe, Math.max(250, Math.floor(this.windowMs / 3)));
    this.timer.unref?.();
    this.storage.start();
    this.x402?.start();
  }

  /** One line for the networks that stopped answering in this round, one for those back. */
  private report(results: { network: string; u: Upstream; ok: boolean }[]) {
    const down = results.filter((r) => !r.ok && !this.failing.has(r.network));
    const back = results.filter((r) => r.ok && this.failing.has(r.network));
    for (const r of down) this.failing.add(r.network);
    for (const r of back) this.failing.delete(r.network);
    if (back.length > 0) this.log.info('upstreams answer again', { networks: back.map((r) => r.network).join(', ') });
    if (down.length === 0) return;
    const which = down.map((r) => `${r.network} (${r.u.failureReason() ?? 'no answer'})`).join(', ');
    const neverAnswered = down.every((r) => r.u.lastAnswerAt === undefined);
    this.log.warn(`no upstream answers for ${which}: their chain calls fail until one does${neverAnswered ? `; ${OFFLINE_HINT}` : ''}`);
  }

  stop(): void {
    clearInterval(this.timer);
    this.storage.stop();
    this.x402?.stop();
  }

  check(now = Date.now()): ReadinessReport {
    const database: ReadinessReport['database'] = this.storage.available ? 'writable' : 'failed';
    const upstreams: ReadinessReport['upstreams'] = {};
    const upstreamErrors: ReadinessReport['upstreamErrors'] = {};
    let answered = false;
    for (const [network, u] of Object.entries(this.upstreams)) {
      upstreams[network] = u.lastAnswerAt === undefined ? null : Math.round((now - u.lastAnswerAt) / 100) / 10;
      if (u.lastAnswerAt !== undefined && now - u.lastAnswerAt <= this.windowMs) answered = true;
      else upstreamErrors[network] = u.failureReason() ?? 'no answer yet';
    }
    const report: ReadinessReport = { ready: database === 'writable' && answered, database, upstreams, upstreamErrors };
    if (!this.storage.available) report.databaseError = this.storage.reason;
    if (this.x402) {
      report.x402 = this.x402.report();
      if (report.x402.feePayer) report.x402FeePayerLamports = report.x402.feePayerLamports ?? null;
    }
    return report;
  }
}
