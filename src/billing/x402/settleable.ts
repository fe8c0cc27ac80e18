// Whether x402 payments can settle now, watched, so that a 402 offers x402 only while they can. A
// fault on the gateway's side (a fee payer short of SOL, a missing pay-to account or mint, an
// external facilitator that does not answer /supported) takes the offer out; the operator hears it
// once per episode (one ERROR when it begins, one INFO when it ends), in /readyz and in metrics; the
// client never hears of it beyond a 503 when it raced a payment. While a fault lasts the accounts
// and the facilitator are read every second, so a fix is seen within about one; while all is well,
// at the slower pace of the readiness probe (a settlement refused for the chain's reasons reads them
// at once).
import type { Logger } from '../../log.ts';
import { x402Fault, x402Offered } from '../../metrics.ts';
import { LATE, within } from '../../within.ts';
import type { X402Accounts, X402AccountsReport } from './accounts.ts';
import type { Facilitator } from './facilitator.ts';

export interface SettleableOptions {
  /** Pace of the reads while a fault lasts (a fix is seen within about this long). */
  faultMs: number;
  /** Pace while all is well. */
  healthyMs: number;
  /** Longest wait for the facilitator's /supported. */
  probeTimeoutMs: number;
}

/** What /readyz shows of x402: the accounts as last read, whether the offer stands, and every current cause. */
export type X402Readiness = Partial<X402AccountsReport> & { offered: boolean; problems: string[]; warnings: string[] };

const CAUSES = ['fee_payer', 'pay_to', 'asset', 'facilitator'] as const;
type Cause = (typeof CAUSES)[number];

/** Which setting a problem line of accounts.ts is about. */
function causeOf(problem: string): Cause {
  if (problem.startsWith('the fee payer')) return 'fee_payer';
  if (problem.startsWith('the pay-to owner')) return 'pay_to';
  return 'asset';
}

/** The facilitator's failure in words that cannot carry its URL (a secret: it may hold a key). */
function facilitatorFailure(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  const status = e instanceof Error ? /\((\d{3})\)/.exec(e.message)?.[1] : undefined;
  if (status) return `HTTP ${status}`;
  if (e instanceof Error && /supports no exact payments/.test(e.message)) return e.message;
  return 'no usable answer';
}

export class X402Settleable {
  private facilitatorProblem: string | undefined;
  /** Set while a fault episode lasts: its ERROR was logged. */
  private inEpisode = false;
  /** The warnings last logged (known by their words, not their numbers), so that each is logged once. */
  private warned = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private checking: Promise<boolean> | undefined;
  /** When the read under way (or queued) began: it decides for a refusal that came before. */
  private checkingFrom = 0;
  /** When the last finished read began. */
  private readFrom = -1;

  constructor(
    private readonly accounts: Pick<X402Accounts, 'read' | 'lastReport' | 'ids'>,
    private readonly facilitator: Pick<Facilitator, 'probe'>,
    private readonly log: Logger,
    private readonly opts: SettleableOptions,
  ) {
    x402Offered.set(1);
  }

  /** Every cause that stops payments now, in words naming the account or the setting. */
  get problems(): string[] {
    const accounts = this.accounts.lastReport?.problems ?? [];
    return this.facilitatorProblem ? [...accounts, this.facilitatorProblem] : accounts;
  }

  /** Whether a 402 offers x402 now. */
  get offered(): boolean {
    return this.problems.length === 0;
  }

  report(): X402Readiness {
    const last = this.accounts.lastReport;
    const feePayer = this.accounts.ids.feePayer;
    return { ...last, ...(feePayer ? { feePayer } : {}), offered: this.offered, problems: this.problems, warnings: last?.warnings ?? [] };
  }

  /**
   * Reads the accounts and probes the facilitator; true when payments can settle. `since`: a read
   * begun at or after this time decides (a refusal passes the moment its payment came, so that a
   * read made before a fault cannot clear it); callers share such a read, and one asked for while
   * another runs starts after it. A chain that does not answer leaves the accounts as last read:
   * an upstream outage is /readyz's own line.
   */
  check(since = Date.now()): Promise<boolean> {
    if (this.readFrom >= since) return Promise.resolve(this.offered);
    if (this.checking && this.checkingFrom >= since) return this.checking;
    const from = Date.now();
    const prior = this.checking;
    const next: Promise<boolean> = (async () => {
      await prior;
      await this.checkNow();
      this.readFrom = Math.max(this.readFrom, from);
      return this.offered;
    })().finally(() => {
      if (this.checking === next) this.checking = undefined;
    });
    this.checking = next;
    this.checkingFrom = from;
    return next;
  }

  private async checkNow(): Promise<void> {
    await Promise.all([this.accounts.read().catch(() => undefined), this.probeFacilitator()]);
    this.judge();
  }

  private async probeFacilitator(): Promise<void> {
    try {
      const answered = await within(this.facilitator.probe(), this.opts.probeTimeoutMs);
      this.facilitatorProblem = answered === LATE ? `the facilitator (X402_FACILITATOR_URL) did not answer /supported within ${this.opts.probeTimeoutMs} ms` : undefined;
    } catch (e) {
      this.facilitatorProblem = `the facilitator (X402_FACILITATOR_URL) cannot be used: /supported failed (${facilitatorFailure(e)})`;
    }
  }

  /** One ERROR when an episode begins, one INFO when it ends; each warning once, when it appears; the metrics. */
  private judge(): void {
    const problems = this.problems;
    for (const cause of CAUSES) x402Fault.set({ cause }, 0);
    for (const p of this.accounts.lastReport?.problems ?? []) x402Fault.set({ cause: causeOf(p) }, 1);
    if (this.facilitatorProblem) x402Fault.set({ cause: 'facilitator' }, 1);
    x402Offered.set(problems.length === 0 ? 1 : 0);
    if (problems.length > 0 && !this.inEpisode) {
      this.inEpisode = true;
      this.log.error(`x402 payments cannot settle: ${problems.join('; ')}; 402 answers leave x402 out until this is fixed`, { event: 'x402_fault' });
    } else if (problems.length === 0 && this.inEpisode) {
      this.inEpisode = false;
      this.log.info('x402 payments can settle again: 402 answers offer x402 again', { event: 'x402_fault' });
    }
    const kind = (line: string) => line.replace(/\d+/g, '#');
    const warnings = this.accounts.lastReport?.warnings ?? [];
    for (const line of warnings) if (!this.warned.has(kind(line))) this.log.warn(`x402: ${line}`, { event: 'x402_account' });
    this.warned = new Set(warnings.map(kind));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const tick = () =>
      void this.check().finally(() => {
        if (this.running) this.timer = setTimeout(tick, this.offered ? this.opts.healthyMs : this.opts.faultMs);
        this.timer?.unref?.();
      });
    tick();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }
}
