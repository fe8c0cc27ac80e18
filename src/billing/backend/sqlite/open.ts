// The embedded backend: one SQLite file, its group-committed ledger and the usage rows riding on it.
// Rate limits stay in the process (one process owns the file).
import type { Config } from '../../../config.ts';
import { BUSY_TIMEOUT_MS, openDatabase, probeWritable } from '../../../db/client.ts';
import type { Logger } from '../../../log.ts';
import type { OpenedBackend } from '../backend.ts';
import { DiskSpace } from './disk-space.ts';
import { Ledger } from './ledger.ts';
import { sqliteStore } from './store.ts';
import { UsageLog } from './usage.ts';

/** How long a write waits for a lock held elsewhere while an outage lasts. */
const OUTAGE_BUSY_TIMEOUT_MS = 250;

export function openSqlite(config: Config, log: Logger): OpenedBackend {
  const db = openDatabase(config.databasePath);
  const ledger = new Ledger(db, config.ledgerSync);
  // The disk's free space read now (a warning at start when low) and every few seconds; the WAL kept small while it is low.
  const disk = new DiskSpace(db.$client, config.databasePath, config.databaseMinFreeMb * 1024 * 1024, log);
  disk.check();
  disk.start();
  return {
    store: sqliteStore(db, ledger),
    usage: new UsageLog(db, ledger, config.usageRetentionDays, log, config.usageQueueRows),
    ready: Promise.resolve(),
    // Probed with its write lock, and with a committed write while an outage lasts (a full disk
    // still grants the lock).
    probe: (outage) => probeWritable(db.$client, outage),
    // During an outage a write waits for a lock held elsewhere only briefly, so that a paid call is
    // answered at once instead of holding the event loop for the whole busy timeout.
    onAvailability: (available) => db.$client.run(`PRAGMA busy_timeout = ${available ? BUSY_TIMEOUT_MS : OUTAGE_BUSY_TIMEOUT_MS}`),
    storeOf: (store) => store.sqlite(db),
    async close() {
      disk.stop();
      ledger.settle();
      db.$client.close();
    },
  };
}
