// The built-in deposit watcher: polls the gateway address's history on the payment network, reads
// each new transaction itself and records the native transfers into the address. Its cursor (the
// newest signature fully processed) is kept in the database, so a restart neither misses nor
// repeats work; repeats would be harmless anyway (deposits are keyed by signature and sender).
import { and, eq } from 'drizzle-orm';
import type { Network } from '../config.ts';
import type { Db } from '../db/client.ts';
import { watcherCursors } from '../db/schema.ts';
import type { Upstream } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { recordDeposit, transfersTo } from './deposits.ts';

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
}

export interface WatcherDeps {
  db: Db;
  rpc: Upstream;
  network: Network;
  gateway: string;
  minDepositLamports: number;
  log: Logger;
}

const PAGE = 1000;
// The first scan of an address with a long history stops here; later scans only read what is new.
const MAX_PAGES = 10;

export class DepositWatcher {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly deps: WatcherDeps) {}

  start(intervalSeconds: number): void {
    const loop = async () => {
      if (this.stopped) return;
      await this.poll().catch((e) => this.deps.log.warn('deposit watcher poll failed', { error: e instanceof Error ? e.message : String(e) }));
      if (!this.stopped) this.timer = setTimeout(loop, intervalSeconds * 1000);
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }

  /** One scan; concurrent callers share it. Resolves to the number of deposits recorded. */
  poll(): Promise<number> {
    this.running ??= this.scan().finally(() => (this.running = undefined));
    return this.running;
  }

  private cursor(): string | undefined {
    const { db, network, gateway } = this.deps;
    return db
      .select({ sig: watcherCursors.lastSignature })
      .from(watcherCursors)
      .where(and(eq(watcherCursors.network, network), eq(watcherCursors.address, gateway)))
      .get()?.sig;
  }

  private saveCursor(sig: SignatureInfo) {
    const { db, network, gateway } = this.deps;
    const now = Date.now();
    db.insert(watcherCursors)
      .values({ network, address: gateway, lastSignature: sig.signature, lastSlot: sig.slot, updatedAt: now })
      .onConflictDoUpdate({ target: [watcherCursors.network, watcherCursors.address], set: { lastSignature: sig.signature, lastSlot: sig.slot, updatedAt: now } })
      .run();
  }

  private async scan(): Promise<number> {
    const { rpc, gateway, log } = this.deps;
    const until = this.cursor();
    // Newest first from the node; collect everything newer than the cursor, then work oldest first.
    const fresh: SignatureInfo[] = [];
    let before: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const batch = await rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
        gateway,
        { limit: PAGE, commitment: 'confirmed', ...(until ? { until } : {}), ...(before ? { before } : {}) },
      ]);
      fresh.push(...batch);
      if (batch.length < PAGE) break;
      before = batch[batch.length - 1]!.signature;
    }
    let recorded = 0;
    for (const info of fresh.reverse()) {
      if (info.err === null) {
        const tx = await rpc.call('getTransaction', [info.signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
        // Not yet readable: stop here and try again next time, without moving the cursor past it.
        if (tx === null) break;
        for (const t of transfersTo(tx, gateway)) {
          const outcome = recordDeposit(this.deps.db, { signature: info.signature, network: this.deps.network, wallet: t.from, lamports: t.lamports, slot: info.slot, source: 'watcher' }, BigInt(this.deps.minDepositLamports));
          if (outcome !== 'duplicate') {
            recorded++;
            log.info('deposit recorded', { source: 'watcher', signature: info.signature, wallet: t.from, lamports: t.lamports, outcome });
          }
        }
      }
      this.saveCursor(info);
    }
    return recorded;
  }
}
