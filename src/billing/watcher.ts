// The built-in deposit watcher: polls the gateway address's history on the payment network, reads
// each new transaction itself and records the native transfers into the address.
//
// Never losing a deposit: the node lists history newest first, 1,000 signatures a page. A poll
// starts a walk at the newest signature (its head) and pages back to the persisted cursor (the
// newest signature fully processed), however far that is; progress is saved after every chunk,
// in the same transaction as the deposits it found, so a walk longer than one poll's budget
// resumes where it stopped on the next poll (which then comes at once), and a restart neither
// misses nor repeats work. When the walk reaches the cursor, its head becomes the new cursor.
import type { Network } from '../config.ts';
import type { Upstream } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { watcherScanned } from '../metrics.ts';
import { StorageUnavailable } from '../errors.ts';
import { mapBounded } from '../bounded.ts';
import { countDeposit, MAX_LAMPORTS, transfersTo, type DepositRecord, type Transfer } from './deposits.ts';
import type { DepositStore, WatcherCursor } from './store.ts';

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
}

export interface WatcherDeps {
  store: DepositStore;
  rpc: Upstream;
  network: Network;
  gateway: string;
  minDepositLamports: number;
  log: Logger;
  /**
   * Confirms a transaction's transfers to the gateway before they are credited (deposit quorum;
   * null: ask again later); by default the transfers read from `rpc` stand.
   */
  confirm?: (signature: string, transfers: Transfer[]) => Promise<Transfer[] | null>;
  now?: () => number;
}

const PAGE = 1000;
// Work per poll: at most this many pages of history (a walk longer than that resumes next poll).
const PAGES_PER_POLL = 4;
// getTransaction calls in flight at once: 100 deposits a second need more than one at a time.
const CONCURRENCY = 16;
// A listed transaction the node still cannot show after this long was dropped (a confirmed block
// that did not finalize): the walk goes past it instead of stopping there for ever.
const UNREADABLE_GRACE_MS = 10 * 60_000;
// Transactions recorded per database commit (each commit is a full sync: one per transaction was
// the watcher's bottleneck).
const CHUNK = 250;

export class DepositWatcher {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  /** The last poll ran out of budget before reaching the cursor. */
  private behind = false;
  private leading: boolean | undefined;
  /** The last poll found the storage away. */
  private paused = false;
  /** Listed transactions the node could not show yet, by when that was first seen. */
  private readonly unreadable = new Map<string, number>();

  constructor(private readonly deps: WatcherDeps) {}

  start(intervalSeconds: number): void {
    const loop = async () => {
      if (this.stopped) return;
      await this.poll().then(
        () => this.resumed(),
        (e) => this.failed(e),
      );
      if (!this.stopped) this.timer = setTimeout(loop, this.behind ? 0 : intervalSeconds * 1000);
    };
    this.timer = setTimeout(loop, 0);
  }

  /**
   * A poll that failed. The storage away pauses the watcher (one line, not one per poll): nothing
   * is lost, since the cursor moves only with the deposits it covers, in one transaction, and
   * Postgres gives up the leader lock with the lost session, to be taken again by whichever
   * replica polls first once the database answers.
   */
  private failed(e: unknown) {
    if (e instanceof StorageUnavailable) {
      if (!this.paused) this.deps.log.warn('deposit watcher paused: the database is not answering; it resumes where it stopped', { reason: e.reason });
      this.paused = true;
      this.leading = undefined;
      return;
    }
    this.deps.log.warn('deposit watcher poll failed', { error: e instanceof Error ? e.message : String(e) });
  }

  private resumed() {
    if (!this.paused) return;
    this.paused = false;
    this.deps.log.info('deposit watcher resumed');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }

  /** One bounded scan; concurrent callers share it. Resolves to the number of transfers recorded. */
  poll(): Promise<number> {
    this.running ??= this.scan().finally(() => (this.running = undefined));
    return this.running;
  }

  private async page(before: string | undefined, until: string | undefined): Promise<SignatureInfo[]> {
    return this.deps.rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
      this.deps.gateway,
      { limit: PAGE, commitment: 'confirmed', ...(until ? { until } : {}), ...(before ? { before } : {}) },
    ]);
  }

  private async scan(): Promise<number> {
    // Several replicas on one database: only the one holding the store's watcher lock scans.
    const { store, network, gateway, log } = this.deps;
    const leads = await store.leadWatcher(network, gateway);
    if (leads !== this.leading) {
      this.leading = leads;
      log.info(leads ? 'deposit watcher: this process watches deposits' : 'deposit watcher: standing by, another replica watches deposits');
    }
    if (!leads) return 0;
    const cursor = await store.watcherCursor(network, gateway);
    const until = cursor.last?.signature;
    let recorded = 0;
    this.behind = false;
    for (let pages = 0; pages < PAGES_PER_POLL; pages++) {
      const batch = await this.page(cursor.walk?.before, until);
      if (!cursor.walk) {
        if (batch.length === 0) {
          watcherScanned();
          return recorded;
        }
        cursor.walk = { head: batch[0]! };
      }
      const done = await this.process(batch, cursor);
      recorded += done.recorded;
      if (!done.complete) return recorded; // a transaction not yet readable: retry next poll
      // An address seen for the first time: only its newest pages are read (older deposits predate
      // this gateway's database).
      const firstWalkOver = !until && pages === PAGES_PER_POLL - 1;
      if (batch.length < PAGE || firstWalkOver) {
        await store.saveWatcherCursor(network, gateway, { last: cursor.walk.head });
        watcherScanned();
        return recorded;
      }
    }
    this.behind = true;
    return recorded;
  }

  /** Reads and records a page in chunks, saving the walk's progress with each chunk's deposits. */
  private async process(batch: SignatureInfo[], cursor: WatcherCursor): Promise<{ recorded: number; complete: boolean }> {
    const { store, log, network, gateway } = this.deps;
    const min = BigInt(this.deps.minDepositLamports);
    let recorded = 0;
    for (let i = 0; i < batch.length; i += CHUNK) {
      const chunk = batch.slice(i, i + CHUNK);
      const found = await this.readAll(chunk);
      // Not yet readable: stop before it, so the walk resumes there.
      const readable = found.findIndex((f) => f === null);
      const usable = readable === -1 ? chunk.length : readable;
      if (usable === 0) return { recorded, complete: false };
      const records: DepositRecord[] = [];
      for (let j = 0; j < usable; j++) {
        const info = chunk[j]!;
        for (const t of found[j]!) {
          if (t.lamports > MAX_LAMPORTS) {
            log.warn('deposit beyond any lamport supply ignored', { signature: info.signature });
            continue;
          }
          records.push({ signature: info.signature, network, wallet: t.from, lamports: t.lamports, slot: info.slot, source: 'watcher' });
        }
      }
      cursor.walk!.before = chunk[usable - 1]!.signature;
      // The chunk's deposits and the walk's progress in one transaction.
      const outcomes = await store.recordWatcherChunk(network, gateway, records, min, cursor);
      records.forEach((d, k) => {
        const outcome = outcomes[k]!;
        countDeposit(d, outcome);
        if (outcome === 'duplicate') return;
        recorded++;
        log.info('deposit recorded', { event: outcome === 'credited' ? 'deposit_credited' : 'deposit_dust', source: 'watcher', signature: d.signature, wallet: d.wallet, lamports: d.lamports, outcome });
      });
      if (usable < chunk.length) return { recorded, complete: false };
    }
    return { recorded, complete: true };
  }

  /** Transfers of each transaction (none for a failed one), CONCURRENCY reads at a time, in order. */
  private readAll(chunk: SignatureInfo[]): Promise<(Transfer[] | null)[]> {
    return mapBounded(chunk, CONCURRENCY, async (info) => (info.err === null ? await this.transfersOf(info.signature) : []));
  }

  /** The transaction's transfers to the gateway, or null when the node cannot show it yet. */
  private async transfersOf(signature: string): Promise<Transfer[] | null> {
    const tx = await this.deps.rpc.call('getTransaction', [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
    if (tx === null) {
      const now = (this.deps.now ?? Date.now)();
      const since = this.unreadable.get(signature) ?? now;
      if (now - since < UNREADABLE_GRACE_MS) {
        this.unreadable.set(signature, since);
        return null;
      }
      this.unreadable.delete(signature);
      this.deps.log.warn('listed transaction still unreadable; the watcher moves past it', { signature });
      return [];
    }
    this.unreadable.delete(signature);
    const transfers = transfersTo(tx, this.deps.gateway);
    return transfers.length && this.deps.confirm ? this.deps.confirm(signature, transfers) : transfers;
  }
}
