// One network's watch ingestion. For each watched wallet this replica holds the lease of, it follows
// the wallet and its token accounts (as decoded history finds them) with logsSubscribe, and reads what
// is new in their signature lists (getSignaturesForAddress until the cursor) when a notification
// comes, when a subscription is acknowledged (at start and after every reconnect) and on a slow
// interval: the socket only says when to look, the lists say what happened, so a dropped socket or a
// restart loses nothing. Each new transaction is decoded from the wallet's side exactly as
// `transactions?decode=true` decodes it and handed to the watches (WatchSink), oldest first; the
// cursors move only once it is recorded.
import { decodeItem, historyItem, tokenAccountsOf, type DecodedItem, type FoundVia, type SignatureInfo } from '../../capabilities/decoded-history.ts';
import { mapBounded } from '../../bounded.ts';
import type { Rpc } from '../../chain/upstream.ts';
import type { Network } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { watchIngested, watchLagSlots, watchSockets, watchSubscriptions } from '../../metrics.ts';
import type { Commitment, WatchSink } from '../sink.ts';
import type { Cursor, CursorRow, IngestStore, Scope } from './store.ts';
import { Subscriptions } from './subscriptions.ts';

export interface IngesterOptions {
  network: Network;
  rpc: Rpc;
  wsUrls: readonly string[];
  commitment: Commitment;
  perSocket: number;
  fillEveryMs: number;
  store: IngestStore;
  /** The wallets to ingest now (the watched set's, at this commitment). */
  wallets(): string[];
  /** Registers `cb` for changes of the watched set; returns an unsubscribe. */
  onChange(cb: (network: Network) => void): () => void;
  sink: WatchSink;
  log: Logger;
  /** This replica's name in the leases. */
  owner: string;
  /** A lease lasts this long unless renewed; renewed every third of it (a killed replica's wallets move within it). */
  leaseMs?: number;
}

/** Signatures per getSignaturesForAddress page (the node's maximum). */
const PAGE = 1000;
/** Pages read back for one address in one fill at most. */
const MAX_PAGES = 10;
/** Fills running at once: each mostly waits on the node, so the rate a node answering in 200 ms allows is 64 / 0.2 s. */
const FILLS_AT_ONCE = 64;
const DECODES_AT_ONCE = 8;
/** A transaction the node cannot give yet (not found, node away) is tried this often before it is recorded with its decodeError. */
const DECODE_TRIES = 4;
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
/**
 * How often moved cursors are written. What is handed over is recorded by the watches before the cursor
 * moves, and the watches record a transaction once however often it comes: a kill -9 costs at most this
 * long of transactions handed over again, never one lost.
 */
const CURSOR_FLUSH_MS = 1000;
/** Signatures remembered per wallet so that a fill overlapping another's does not hand one over twice. */
const RECENT = 512;
const DEFAULT_LEASE_MS = 6000;
/**
 * Token accounts are listed again on every this many interval fills (two getTokenAccountsByOwner per
 * wallet), besides after each transaction that moved a token for the wallet: one opened with no token
 * moving to the wallet is followed from then, and its first transfer found by the fill that follows it.
 */
const TOKEN_ACCOUNTS_EVERY = 10;

interface WalletState {
  tokenAccounts: string[];
  /** List the token accounts again before the next fill (never listed, the interval passed, or a transaction may have made one). */
  tokenAccountsStale: boolean;
  running: boolean;
  again: boolean;
  /** What asked for the fill now pending (the metric's `via`). */
  via: 'notification' | 'fill';
  failures: number;
  retry?: ReturnType<typeof setTimeout>;
  recent: Set<string>;
  decodeTries: Map<string, number>;
  /** The cursors of the wallet's addresses, and which addresses' were read from the database. */
  cursors: Map<string, Cursor>;
  looked: Set<string>;
}

/** What one address's list says is new since its cursor, and where the cursor goes once it is handled. */
interface Read {
  address: string;
  fresh: SignatureInfo[];
  newest: SignatureInfo | undefined;
}

export class Ingester {
  private readonly wallets = new Map<string, WalletState>();
  /** Each followed address (a wallet or one of its token accounts) -> its wallet. */
  private readonly owners = new Map<string, string>();
  private readonly subs: Subscriptions;
  private readonly leaseMs: number;
  private readonly scope: Scope;
  private nodeSlot: number | undefined;
  private leaseHeldAt = 0;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private timers: ReturnType<typeof setInterval>[] = [];
  /** Cursors moved and not yet written: written together every CURSOR_FLUSH_MS (one commit, not one per transaction). */
  private unsaved = new Map<string, CursorRow>();
  private flushing: Promise<void> | undefined;
  private unwatch: () => void;
  private running = 0;
  private readonly queue: (() => void)[] = [];
  private readonly urgent: (() => void)[] = [];
  private stopped = false;
  private intervalFills = 1;

  constructor(private readonly o: IngesterOptions) {
    this.leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
    this.scope = { network: o.network, commitment: o.commitment };
    const network = o.network;
    this.subs = new Subscriptions({
      label: network,
      urls: o.wsUrls,
      commitment: o.commitment,
      perSocket: o.perSocket,
      log: o.log,
      onLogs: (address) => this.wake(address, 'notification'),
      onSubscribed: (address) => this.wake(address, 'fill'),
      onSlot: (slot) => void (this.nodeSlot = slot),
      onCount: (subscriptions, sockets) => {
        watchSubscriptions.set({ network, commitment: o.commitment }, subscriptions);
        watchSockets.set({ network, commitment: o.commitment }, sockets);
      },
    });
    this.unwatch = o.onChange((n) => void (n === network && this.tick()));
    this.timers.push(setInterval(() => this.tick(), this.leaseMs / 3));
    this.timers.push(setInterval(() => this.fillAll(), o.fillEveryMs));
    this.timers.push(setInterval(() => void this.flush(), CURSOR_FLUSH_MS));
    this.tick();
  }

  /** What this ingester follows now (tests and the bench wait on it). */
  stats(): { wallets: number; addresses: number; filling: number; queued: number } {
    return { wallets: this.wallets.size, addresses: this.owners.size, filling: this.running, queued: this.queue.length + this.urgent.length };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch();
    for (const t of this.timers) clearInterval(t);
    for (const st of this.wallets.values()) clearTimeout(st.retry);
    this.subs.close();
    await this.ticking;
    while (this.running > 0) await Bun.sleep(10);
    for (let i = 0; i < 3 && (this.flushing || this.unsaved.size > 0); i++) await this.flush();
    await this.o.store.release(this.scope, this.o.owner).catch(() => {});
  }

  /** Renews the leases and follows exactly the wallets held. One at a time; a call meanwhile runs once more after it. */
  private tick(): void {
    if (this.stopped) return;
    if (this.ticking) return void (this.tickAgain = true);
    this.ticking = this.renew()
      .catch((e) => this.o.log.warn('watch ingestion: lease renewal failed', { network: this.o.network, error: (e as Error).message }))
      .finally(() => {
        this.ticking = undefined;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.tick();
        }
      });
  }

  private async renew(): Promise<void> {
    const { store, network, owner } = this.o;
    const wanted = this.o.wallets();
    let held: Set<string>;
    try {
      held = await store.lease(this.scope, owner, wanted, this.leaseMs);
      this.leaseHeldAt = Date.now();
    } catch (e) {
      // The database is away: what is held stays held until the leases would have run out, then is let go.
      held = Date.now() - this.leaseHeldAt < this.leaseMs * (2 / 3) ? new Set(this.wallets.keys()) : new Set();
      this.o.log.warn('watch ingestion: leases not renewed', { network, error: (e as Error).message, holding: held.size });
    }
    if (this.stopped) return;
    const gone = [...this.wallets.keys()].filter((w) => !held.has(w));
    for (const wallet of gone) {
      clearTimeout(this.wallets.get(wallet)!.retry);
      this.wallets.delete(wallet);
    }
    const added: string[] = [];
    for (const wallet of held) {
      if (this.wallets.has(wallet)) continue;
      this.wallets.set(wallet, { tokenAccounts: [], tokenAccountsStale: true, running: false, again: false, via: 'fill', failures: 0, recent: new Set(), decodeTries: new Map(), cursors: new Map(), looked: new Set() });
      added.push(wallet);
    }
    if (gone.length > 0 || added.length > 0) this.follow();
    const stillWanted = new Set(wanted);
    const unwanted = gone.filter((w) => !stillWanted.has(w));
    if (unwanted.length > 0) await store.release(this.scope, owner, unwanted).catch(() => {});
    for (const wallet of added) this.schedule(wallet, 'fill');
  }

  /** Subscribes exactly the held wallets and their token accounts. */
  private follow(): void {
    this.owners.clear();
    for (const [wallet, st] of this.wallets) {
      this.owners.set(wallet, wallet);
      for (const a of st.tokenAccounts) this.owners.set(a, wallet);
    }
    this.subs.set(new Set(this.owners.keys()));
  }

  private fillAll(): void {
    const relist = this.intervalFills++ % TOKEN_ACCOUNTS_EVERY === 0;
    for (const [wallet, st] of this.wallets) {
      if (relist) st.tokenAccountsStale = true;
      this.schedule(wallet, 'fill');
    }
  }

  private wake(address: string, via: 'notification' | 'fill'): void {
    const wallet = this.owners.get(address);
    if (wallet !== undefined) this.schedule(wallet, via);
  }

  /** Runs the wallet's fill now or, if one is running, once more after it: fills of one wallet never overlap. */
  private schedule(wallet: string, via: 'notification' | 'fill'): void {
    const st = this.wallets.get(wallet);
    if (!st || this.stopped) return;
    if (via === 'notification') st.via = via;
    if (st.running) return void (st.again = true);
    st.running = true;
    clearTimeout(st.retry);
    st.retry = undefined;
    void this.slot(via === 'notification', async () => {
      do {
        st.again = false;
        const reason = st.via;
        st.via = 'fill';
        try {
          await this.fill(wallet, st, reason);
          st.failures = 0;
        } catch (e) {
          st.failures++;
          const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (st.failures - 1));
          if (st.failures === 1 || st.failures % 10 === 0) this.o.log.warn('watch ingestion: fill failed; trying again', { network: this.o.network, error: (e as Error).message, retryInMs: delay });
          if (this.wallets.get(wallet) === st) st.retry = setTimeout(() => this.schedule(wallet, 'fill'), delay);
          break;
        }
      } while (st.again && !this.stopped && this.wallets.get(wallet) === st);
      st.running = false;
    });
  }

  /**
   * At most FILLS_AT_ONCE fills run at once; the others wait their turn, those a notification asked for
   * first (the interval's fill of every wallet must not hold up news).
   */
  private async slot(urgent: boolean, fn: () => Promise<void>): Promise<void> {
    if (this.running >= FILLS_AT_ONCE) await new Promise<void>((r) => (urgent ? this.urgent : this.queue).push(r));
    this.running++;
    try {
      await fn();
    } finally {
      this.running--;
      (this.urgent.shift() ?? this.queue.shift())?.();
    }
  }

  private async fill(wallet: string, st: WalletState, via: 'notification' | 'fill'): Promise<void> {
    const { rpc, store, network } = this.o;
    if (st.tokenAccountsStale) {
      const { searched } = await tokenAccountsOf(rpc, wallet, 0);
      st.tokenAccountsStale = false;
      if (searched.join() !== st.tokenAccounts.join() && this.wallets.get(wallet) === st) {
        st.tokenAccounts = searched;
        this.follow();
      }
    }
    const addresses = [...st.tokenAccounts, wallet];
    // Cursors are read from the database once per address while this replica holds the wallet; it alone moves them meanwhile.
    const unread = addresses.filter((a) => !st.looked.has(a));
    if (unread.length > 0) {
      for (const [a, c] of await store.cursors(this.scope, unread)) st.cursors.set(a, this.unsaved.get(a) ?? c);
      for (const a of unread) st.looked.add(a);
    }
    const cursors = st.cursors;
    const own = cursors.get(wallet);
    if (!own) return this.begin(wallet, st, addresses);
    // The token accounts' lists are read before the wallet's own: a transaction naming both is then
    // in the wallet's list too, and is told as found via the wallet, as decoded history tells it.
    const reads = await Promise.all(st.tokenAccounts.map((a) => this.read(a, cursors.get(a), own.sinceSlot)));
    reads.push(await this.read(wallet, own, own.sinceSlot));
    const found = new Map<string, { info: SignatureInfo; foundVia: FoundVia }>();
    for (const r of reads) for (const info of r.fresh) found.set(info.signature, { info, foundVia: r.address === wallet ? 'wallet' : (found.get(info.signature)?.foundVia ?? 'token_account') });
    const todo = [...found.values()].filter((f) => !st.recent.has(f.info.signature)).sort((a, b) => a.info.slot - b.info.slot);
    const decoded = await mapBounded(todo, DECODES_AT_ONCE, ({ info, foundVia }) => decodeItem(rpc, info, foundVia, network, wallet));
    for (const d of decoded) {
      if (d.decodeError && this.tryAgain(st, d)) throw new Error(`transaction not decoded yet (${d.decodeError.code})`);
      await this.record(wallet, st, d, via);
    }
    const moved: CursorRow[] = reads.flatMap((r) => {
      const before = r.address === wallet ? own : cursors.get(r.address);
      if (!r.newest || r.newest.signature === before?.lastSignature) return [];
      return [{ address: r.address, wallet, lastSignature: r.newest.signature, lastSlot: r.newest.slot, sinceSlot: own.sinceSlot }];
    });
    for (const row of moved) {
      this.unsaved.set(row.address, row);
      cursors.set(row.address, row);
    }
    // A token moved for the wallet: it may have a new token account, to list and follow at once.
    if (decoded.some((d) => d.walletChanges?.changes.some((c) => c.asset !== 'SOL'))) {
      st.tokenAccountsStale = true;
      st.again = true;
    }
  }

  /** Writes the moved cursors; those the database did not take are kept for the next flush. */
  private flush(): Promise<void> {
    if (this.flushing || this.unsaved.size === 0) return this.flushing ?? Promise.resolve();
    const rows = this.unsaved;
    this.unsaved = new Map();
    this.flushing = this.o.store
      .saveCursors(this.scope, [...rows.values()])
      .catch((e) => {
        for (const [a, row] of rows) if (!this.unsaved.has(a)) this.unsaved.set(a, row);
        this.o.log.warn('watch ingestion: cursors not saved; kept for the next try', { network: this.o.network, error: (e as Error).message });
      })
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** A wallet seen for the first time: its history so far is not news; each address's cursor starts at its newest signature. */
  private async begin(wallet: string, st: WalletState, addresses: string[]): Promise<void> {
    const { rpc, store, commitment } = this.o;
    const sinceSlot = Number(await rpc.call<number>('getSlot', [{ commitment }]));
    const rows = await Promise.all(
      addresses.map(async (address): Promise<CursorRow> => {
        const [newest] = await rpc.call<SignatureInfo[]>('getSignaturesForAddress', [address, { limit: 1, commitment }]);
        return { address, wallet, lastSignature: newest?.signature ?? '', lastSlot: newest?.slot ?? sinceSlot, sinceSlot };
      }),
    );
    await store.saveCursors(this.scope, rows);
    for (const row of rows) st.cursors.set(row.address, row);
  }

  /**
   * What is new in one address's list: everything after its cursor's signature; with none (an address
   * that had no signature, or a token account found after the wallet's ingestion began), what landed
   * after the cursor's slot or the wallet's start, whichever is later.
   */
  private async read(address: string, cursor: Cursor | undefined, sinceSlot: number): Promise<Read> {
    const until = cursor?.lastSignature || undefined;
    const floor = cursor ? Math.max(cursor.lastSlot, sinceSlot) : sinceSlot;
    const all: SignatureInfo[] = [];
    let before: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await this.o.rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
        address,
        { limit: PAGE, commitment: this.o.commitment, ...(until ? { until } : {}), ...(before ? { before } : {}) },
      ]);
      all.push(...list);
      if (list.length < PAGE || (!until && list[list.length - 1]!.slot <= floor)) break;
      before = list[list.length - 1]!.signature;
    }
    // Over MAX_PAGES pages behind (an address busier than any wallet a watch is for): what is older is let go, and said.
    if (until && all.length === PAGE * MAX_PAGES) this.o.log.warn('watch ingestion: an address is too far behind; older transactions skipped', { network: this.o.network, read: all.length });
    return { address, fresh: until ? all : all.filter((i) => i.slot > floor), newest: all[0] };
  }

  /** True while the transaction is worth asking for again (the node may not have it yet); its decodeError is recorded after that. */
  private tryAgain(st: WalletState, d: DecodedItem): boolean {
    const tries = (st.decodeTries.get(d.info.signature) ?? 0) + 1;
    st.decodeTries.set(d.info.signature, tries);
    if (tries < DECODE_TRIES) return true;
    st.decodeTries.delete(d.info.signature);
    return false;
  }

  private async record(wallet: string, st: WalletState, d: DecodedItem, via: 'notification' | 'fill'): Promise<void> {
    const { network, commitment } = this.o;
    const { info } = d;
    await this.o.sink.recordActivity(network, wallet, { signature: info.signature, slot: info.slot, blockTime: info.blockTime, commitment, item: historyItem(d) });
    st.recent.add(info.signature);
    if (st.recent.size > RECENT) st.recent.delete(st.recent.values().next().value!);
    st.decodeTries.delete(info.signature);
    watchIngested.inc({ network, via });
    if (this.nodeSlot !== undefined) watchLagSlots.set({ network }, Math.max(0, this.nodeSlot - info.slot));
  }
}
