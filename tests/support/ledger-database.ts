// A migrated PostgreSQL database of its own for tests of the ledger in process: the store on it with
// its ledger (as one gateway opens them), a second pool for another replica or the operator, and
// wallets funded with a claimed key.
import { SQL } from 'bun';
import { PgLedger } from '../../src/billing/backend/postgres/ledger.ts';
import { pgStore } from '../../src/billing/backend/postgres/store.ts';
import { hashApiKey } from '../../src/billing/keys.ts';
import type { BillingStore } from '../../src/billing/store.ts';
import { migratePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.ts';
import { freshDatabase } from './postgres.ts';

export interface LedgerDatabase {
  url: string;
  db: PgDb;
  ledger: PgLedger;
  store: BillingStore;
  /** A pool of its own on the same database. */
  other: SQL;
  /** A wallet with `lamports` of credit and no free calls, and its claimed key. */
  funded(lamports: number): Promise<{ wallet: string; apiKey: string; keyHash: string }>;
  close(): Promise<void>;
}

export async function openLedgerDatabase(): Promise<LedgerDatabase> {
  const url = await freshDatabase();
  await migratePostgres(url);
  const db = openPostgres(url, 4);
  const ledger = new PgLedger(db.$client);
  const { store, release } = pgStore(db, ledger);
  const other = new SQL(url, { max: 4 });
  return {
    url,
    db,
    ledger,
    store,
    other,
    async funded(lamports) {
      const wallet = `wallet-${crypto.randomUUID()}`;
      await store.recordDeposit({ signature: crypto.randomUUID(), network: 'mainnet-beta', wallet, lamports: BigInt(lamports), source: 'webhook' }, 1n);
      const { apiKey } = (await store.claim(wallet, 0, Date.now()))!;
      return { wallet, apiKey, keyHash: hashApiKey(apiKey) };
    },
    async close() {
      await other.close();
      await release();
      await db.$client.close();
    },
  };
}
