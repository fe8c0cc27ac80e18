// One watch ingestion as its own process, for the lease tests: a replica that can be killed with -9.
// INGEST_RPC_URL (the sandbox), INGEST_DATABASE_URL (PostgreSQL), INGEST_WALLETS (comma-separated),
// INGEST_LEASE_MS. Prints `ready` once started and `recorded <wallet> <signature>` for each record.
import { startTestIngestion } from './watch-ingest.ts';

const env = process.env;
const ing = await startTestIngestion({ rpcUrl: env.INGEST_RPC_URL!, databaseUrl: env.INGEST_DATABASE_URL!, leaseMs: Number(env.INGEST_LEASE_MS ?? 6000) });
ing.sink.onRecord = (r) => console.log(`recorded ${r.wallet} ${r.signature}`);
ing.sink.watch(env.INGEST_WALLETS!.split(','));
console.log('ready');
process.on('SIGTERM', async () => {
  await ing.stop();
  process.exit(0);
});
