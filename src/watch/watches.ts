// Watches: what a key holder follows, the events recorded for it, and who is waiting for them.
// The sink side (recordActivity) records each event once, debited once, before anyone hears of it;
// the faces (REST, MCP) create, list, end, pull and replay through the methods here.
import { randomBytes } from 'node:crypto';
import type { BillingStore } from '../billing/store.ts';
import { NETWORKS, type Config, type Network } from '../config.ts';
import { badRequest, GatewayError, notFound } from '../errors.ts';
import type { Logger } from '../log.ts';
import { failingWatches, watchedAddresses, watchEventsRecorded, watchEventsSkipped } from '../metrics.ts';
import { address, InvalidField, network as networkParam } from '../capabilities/params.ts';
import { EXAMPLE_WALLET } from '../capabilities/examples.ts';
import { RefusedUrl, webhookTarget } from './address-policy.ts';
import type { Bus } from './bus.ts';
import { buildEvent, eventCallId, eventsUri, type WatchEvent } from './events.ts';
import { allowedAddresses, type Resolve } from './resolve.ts';
import type { SecretBox } from './secrets.ts';
import { newWebhookSecret } from './signing.ts';
import type { Activity, Commitment, WatchedSet, WatchSink } from './sink.ts';
import type { WatchRow, WatchStore } from './store.ts';

/**
 * What one event costs unless PRICES says `watch-event=...`: a hundredth of a call. An event is one
 * decode the ingester does once for every watch of the wallet, one row and a few small POSTs, with
 * no upstream call per event as a paid call has; priced like a call, a busy wallet would cost more
 * pushed than polled, which is the opposite of why watches exist.
 */
export const WATCH_EVENT_DEFAULT_LAMPORTS = 22_000;
export const WATCH_EVENT = 'watch-event';
/** Longest a pull may hold (seconds): below IDLE_TIMEOUT_SECONDS' least useful value and any proxy's usual read timeout. */
export const MAX_WAIT_SECONDS = 25;
export const MAX_PULL = 100;
/** What every face's refusal says of x402 and watches. */
export const X402_CANNOT_PAY = "x402 cannot pay for a watch: its events are pushed later, with no request to carry a payment. Watches are paid from a key's credit, one debit per event.";

const HINT = 'Example: POST /api/watches {"wallets":["' + EXAMPLE_WALLET + '"],"network":"mainnet-beta","webhookUrl":"https://example.com/hooks/solana"}';
const walletParam = address('Wallet address', EXAMPLE_WALLET);
const networkOf = networkParam();

export interface WatchInput {
  wallets: string[];
  network: Network;
  webhookUrl: string | null;
  commitment: Commitment;
}

export const eventPrice = (config: Pick<Config, 'prices'>) => config.prices[WATCH_EVENT] ?? WATCH_EVENT_DEFAULT_LAMPORTS;

/** The status a watch shows: a failing webhook is told apart from a merely active watch. */
function shownStatus(w: WatchRow, failingAfterMs: number, now: number) {
  if (w.status !== 'active') return w.status;
  return w.firstFailureAt !== null && now - w.firstFailureAt >= failingAfterMs ? 'failing' : 'active';
}

export class Watches implements WatchedSet, WatchSink {
  /** network -> wallet -> ids of live watches following it. */
  private index = new Map<Network, Map<string, Set<string>>>();
  private rows = new Map<string, WatchRow>();
  private listeners: ((n: Network) => void)[] = [];
  private waiters = new Map<string, Set<() => void>>();
  private reloading: Promise<void> | undefined;
  private reloadAgain: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  readonly price: number;

  constructor(
    private readonly deps: { store: WatchStore; billing: BillingStore; config: Config; log: Logger; box: SecretBox; resolve: Resolve; bus: Bus },
  ) {
    this.price = eventPrice(deps.config);
    deps.bus.subscribe((m) => (m.kind === 'events' ? this.wake(m.watchId) : void this.reload()));
  }

  async start(): Promise<void> {
    await this.reload();
    const { config, store, log } = this.deps;
    // Old events go; paused watches look for a top-up (a resume also comes with the next payable event);
    // the failing gauge follows the delivery state every replica writes.
    const sweep = () => {
      const now = Date.now();
      store.prune(now - config.watchEventRetentionHours * 3_600_000).catch((e: Error) => log.warn('watch event prune failed', { error: e.message }));
      store.countFailing(now - config.webhookFailingAfterSeconds * 1000).then((n) => failingWatches.set(n), () => {});
      void this.resumeFunded();
    };
    this.timer = setInterval(sweep, 15_000);
    sweep();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const set of this.waiters.values()) for (const w of set) w();
    await this.deps.bus.close();
  }

  // ---- WatchedSet ----
  wallets(network: Network): string[] {
    return [...(this.index.get(network)?.keys() ?? [])];
  }

  /** The wallets followed by watches at `commitment` (the ingester runs one follower per commitment). */
  walletsAt(network: Network, commitment: Commitment): string[] {
    const out = new Set<string>();
    for (const [wallet, ids] of this.index.get(network) ?? []) for (const id of ids) if (this.rows.get(id)?.commitment === commitment) out.add(wallet);
    return [...out];
  }

  onChange(cb: (network: Network) => void): () => void {
    this.listeners.push(cb);
    return () => (this.listeners = this.listeners.filter((l) => l !== cb));
  }

  /**
   * Reads the live watches again (after a change here or on another replica). Asked while a read is
   * under way, it reads once more after it: that read may have begun before the change.
   */
  reload(): Promise<void> {
    if (this.reloading) return (this.reloadAgain ??= this.reloading.then(() => ((this.reloadAgain = undefined), this.reload())));
    this.reloading = this.deps.store
      .live()
      .then((rows) => {
        const index = new Map<Network, Map<string, Set<string>>>();
        this.rows = new Map(rows.map((r) => [r.id, r]));
        for (const r of rows) {
          const byWallet = index.get(r.network as Network) ?? new Map<string, Set<string>>();
          index.set(r.network as Network, byWallet);
          for (const w of r.wallets) byWallet.set(w, (byWallet.get(w) ?? new Set()).add(r.id));
        }
        this.index = index;
        for (const n of NETWORKS) watchedAddresses.set({ network: n }, index.get(n)?.size ?? 0);
        for (const n of NETWORKS) for (const l of this.listeners) l(n);
      })
      .catch((e: Error) => this.deps.log.warn('watches not reloaded', { error: e.message }))
      .finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  /**
   * Tells every replica, this one included (its bus subscription reloads), that the watches
   * changed; resolves once this one has read them again after the change.
   */
  private changed(): Promise<void> {
    this.deps.bus.publish({ kind: 'watches' });
    return this.reloadAgain ?? this.reloading ?? this.reload();
  }

  // ---- WatchSink ----
  async recordActivity(network: Network, wallet: string, activity: Activity): Promise<void> {
    const ids = this.index.get(network)?.get(wallet);
    if (!ids) return;
    for (const watchId of [...ids]) {
      const w = this.rows.get(watchId);
      // A watch takes the events of its own commitment only (the ingester reports each commitment apart).
      if (!w || w.status === 'ended' || w.commitment !== activity.commitment) continue;
      await this.recordOne(w, network, wallet, activity);
    }
  }

  private async recordOne(w: WatchRow, network: Network, wallet: string, activity: Activity) {
    const { store, billing, log } = this.deps;
    const event = buildEvent(w.id, network, wallet, activity);
    if (await store.eventExists(event.id)) return;
    // Paid before it is written: a debit is recorded under the event's own call id, so a retry of
    // the same event (the ingester's, after a crash) finds that debit and is not charged again.
    if (this.price > 0) {
      const debit = await billing.debit(w.wallet, this.price, eventCallId(event.id, activity.blockTime));
      if (!debit) {
        watchEventsSkipped.inc();
        await store.skipped(w.id);
        if (w.status !== 'paused_no_credit') {
          await store.setStatus(w.id, 'paused_no_credit', Date.now());
          w.status = 'paused_no_credit';
          log.info('watch paused: no credit', { event: 'watch_paused', watchId: w.id });
          void this.changed();
        }
        return;
      }
    }
    if (w.status === 'paused_no_credit') await this.resume(w);
    const seq = await store.insertEvent(w.id, event.id, JSON.stringify(event), Date.now());
    if (seq === null) return;
    watchEventsRecorded.inc();
    this.deps.bus.publish({ kind: 'events', watchId: w.id });
  }

  private async resume(w: WatchRow) {
    await this.deps.store.setStatus(w.id, 'active', Date.now());
    w.status = 'active';
    this.deps.log.info('watch resumed', { event: 'watch_resumed', watchId: w.id });
    void this.changed();
  }

  /** Paused watches whose account can pay an event again are resumed. */
  async resumeFunded(): Promise<void> {
    for (const w of this.rows.values()) {
      if (w.status !== 'paused_no_credit') continue;
      try {
        const account = await this.deps.billing.account(w.wallet);
        if (account && (account.freeCalls > 0 || account.creditLamports >= BigInt(this.price))) await this.resume(w);
      } catch (e) {
        this.deps.log.warn('paused watch not checked', { watchId: w.id, error: (e as Error).message });
      }
    }
  }

  /** The owner's watches paused for want of credit (what /api/keys/me tells). */
  pausedOf(owner: string): string[] {
    return [...this.rows.values()].filter((w) => w.wallet === owner && w.status === 'paused_no_credit').map((w) => w.id);
  }

  // ---- waiting for events ----
  /** Calls `cb` whenever the watch has new events (here or on another replica); returns an unsubscribe. */
  listen(watchId: string, cb: () => void): () => void {
    const set = this.waiters.get(watchId) ?? new Set();
    this.waiters.set(watchId, set.add(cb));
    return () => {
      set.delete(cb);
      if (set.size === 0) this.waiters.delete(watchId);
    };
  }

  private readonly changeListeners = new Set<(watchId: string, network: Network) => void>();

  /** Calls `cb` whenever any watch has new events (recorded here or on another replica); returns an unsubscribe. */
  changes(cb: (watchId: string, network: Network) => void): () => void {
    this.changeListeners.add(cb);
    return () => this.changeListeners.delete(cb);
  }

  private wake(watchId: string) {
    for (const cb of this.waiters.get(watchId) ?? []) cb();
    const network = this.rows.get(watchId)?.network as Network | undefined;
    if (network) for (const cb of this.changeListeners) cb(watchId, network);
  }

  // ---- the faces' operations ----
  /** Validates a request body; SPEC.md's 400 with a hint for anything wrong. */
  async parseInput(body: unknown): Promise<WatchInput> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Invalid body', `Send a JSON object. ${HINT}`);
    const b = body as Record<string, unknown>;
    const unknown = Object.keys(b).filter((k) => !['wallets', 'network', 'webhookUrl', 'commitment'].includes(k));
    if (unknown.length) throw badRequest('Invalid body', `Unknown field ${unknown[0]}; the fields are wallets, network, webhookUrl, commitment. ${HINT}`);
    const max = this.deps.config.watchMaxWallets;
    if (!Array.isArray(b.wallets) || b.wallets.length === 0) throw badRequest('Invalid wallets', `wallets must be a non-empty array of base58 addresses (at most ${max}). ${HINT}`);
    if (b.wallets.length > max) throw badRequest('Too many wallets', `A watch follows at most ${max} wallets (WATCH_MAX_WALLETS); split them over several watches. ${HINT}`);
    let wallets: string[];
    let network: Network;
    try {
      wallets = [...new Set(b.wallets.map((w, i) => walletParam.parse(w, `wallets[${i}]`)))];
      network = networkOf.parse(b.network, 'network');
    } catch (e) {
      if (e instanceof InvalidField) throw badRequest(`Invalid ${e.field}`, `${e.message}. ${HINT}`);
      throw e;
    }
    const commitment = b.commitment ?? 'confirmed';
    if (commitment !== 'confirmed' && commitment !== 'finalized') throw badRequest('Invalid commitment', `commitment must be confirmed (default) or finalized. ${HINT}`);
    let webhookUrl: string | null = null;
    if (b.webhookUrl !== undefined && b.webhookUrl !== null) {
      if (typeof b.webhookUrl !== 'string') throw badRequest('Invalid webhookUrl', `webhookUrl must be an https URL. ${HINT}`);
      webhookUrl = await this.checkWebhookUrl(b.webhookUrl);
    }
    return { wallets, network, webhookUrl, commitment };
  }

  /** The URL as it will be called, or a 400 saying why it may not be (address-policy.ts). */
  async checkWebhookUrl(raw: string): Promise<string> {
    const allowPrivate = this.deps.config.webhookAllowPrivate;
    try {
      const { url, host } = webhookTarget(raw, allowPrivate);
      await allowedAddresses(this.deps.resolve, host, allowPrivate);
      return url.toString();
    } catch (e) {
      const why = e instanceof RefusedUrl ? e.message : `webhookUrl's host could not be resolved (${(e as Error).message})`;
      throw badRequest('Invalid webhookUrl', `${why}. The webhook must be an https URL whose host resolves only to public addresses. ${HINT}`);
    }
  }

  async create(owner: string, input: WatchInput) {
    const secret = input.webhookUrl ? newWebhookSecret() : undefined;
    const row: Omit<WatchRow, 'lastSeq'> = {
      id: 'wch_' + randomBytes(12).toString('hex'),
      wallet: owner,
      network: input.network,
      wallets: input.wallets,
      commitment: input.commitment,
      webhookUrl: input.webhookUrl,
      secretSealed: secret ? this.deps.box.seal(secret) : null,
      status: 'active',
      endedReason: null,
      pausedAt: null,
      skippedEvents: 0,
      deliveredSeq: 0,
      attempts: 0,
      nextAttemptAt: null,
      lastError: null,
      firstFailureAt: null,
      createdAt: Date.now(),
    };
    const max = this.deps.config.watchMaxPerKey;
    if (!(await this.deps.store.insert(row, max))) {
      throw new GatewayError(409, { error: 'Too many watches', hint: `A key's wallet has at most ${max} live watches (WATCH_MAX_PER_KEY); end one with DELETE /api/watches/{id} first.` });
    }
    this.deps.log.info('watch created', { event: 'watch_created', watchId: row.id, wallets: row.wallets.length, webhook: row.webhookUrl !== null });
    await this.changed();
    return { ...this.view({ ...row, lastSeq: 0 }), ...(secret ? { secret } : {}) };
  }

  async list(owner: string) {
    return (await this.deps.store.watchesOf(owner)).map((w) => this.view(w));
  }

  /** The owner's watch, or a 404 (a foreign id is answered exactly like an unknown one). */
  async own(owner: string, id: string): Promise<WatchRow> {
    const w = /^wch_[0-9a-f]{24}$/.test(id) ? await this.deps.store.watch(id) : null;
    if (!w || w.wallet !== owner) throw notFound('Watch not found', { hint: 'List your watches with GET /api/watches.' });
    return w;
  }

  async get(owner: string, id: string) {
    return this.view(await this.own(owner, id));
  }

  async remove(owner: string, id: string): Promise<void> {
    await this.own(owner, id);
    if (!(await this.deps.store.remove(id, owner))) throw notFound('Watch not found', { hint: 'List your watches with GET /api/watches.' });
    this.deps.log.info('watch ended', { event: 'watch_deleted', watchId: id });
    await this.changed();
    this.wake(id);
  }

  /** Events after the cursor, oldest first; with `waitSeconds`, held until there is one or the wait ends. */
  async events(owner: string, id: string, after: number, limit: number, waitSeconds: number, signal?: AbortSignal) {
    await this.own(owner, id);
    const read = () => this.deps.store.eventsAfter(id, after, limit);
    let rows = await read();
    const until = Date.now() + waitSeconds * 1000;
    while (rows.length === 0 && Date.now() < until && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          off();
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, until - Date.now()));
        const off = this.listen(id, done);
        signal?.addEventListener('abort', done);
      });
      rows = await read();
    }
    const events = rows.map((r) => JSON.parse(r.body) as WatchEvent);
    const next = rows.length ? rows[rows.length - 1]!.seq : after;
    return { watchId: id, events, nextCursor: String(next), retentionHours: this.deps.config.watchEventRetentionHours };
  }

  /** Sends the webhook again from after `from` (a cursor of the events route). */
  async replay(owner: string, id: string, from: number) {
    const w = await this.own(owner, id);
    if (!w.webhookUrl) throw badRequest('No webhook', 'This watch has no webhookUrl: read its events with GET /api/watches/{id}/events?after=<cursor> instead.');
    await this.deps.store.rewind(id, Math.min(from, w.lastSeq));
    this.deps.bus.publish({ kind: 'events', watchId: id });
    return this.view((await this.deps.store.watch(id))!);
  }

  /** What a watch looks like to its owner (never its secret). */
  view(w: WatchRow) {
    const now = Date.now();
    const pending = w.webhookUrl ? Math.max(0, w.lastSeq - w.deliveredSeq) : 0;
    return {
      id: w.id,
      wallets: w.wallets,
      network: w.network,
      commitment: w.commitment,
      webhookUrl: w.webhookUrl,
      status: shownStatus(w, this.deps.config.webhookFailingAfterSeconds * 1000, now),
      createdAt: Math.floor(w.createdAt / 1000),
      eventPriceLamports: this.price,
      lastCursor: String(w.lastSeq),
      eventsResource: eventsUri(w.network, w.id),
      ...(w.status === 'paused_no_credit' ? { pausedAt: Math.floor((w.pausedAt ?? now) / 1000) } : {}),
      skippedEvents: w.skippedEvents,
      ...(w.endedReason ? { endedReason: w.endedReason } : {}),
      ...(w.webhookUrl
        ? {
            delivery: {
              pending,
              deliveredCursor: String(w.deliveredSeq),
              attempts: w.attempts,
              lastError: w.lastError,
              nextAttemptAt: w.nextAttemptAt === null ? null : Math.floor(w.nextAttemptAt / 1000),
              failingSince: w.firstFailureAt === null ? null : Math.floor(w.firstFailureAt / 1000),
            },
          }
        : {}),
    };
  }
}
