// One watch ingestion as its own process: a replica the lease test kills with -9, and what the
// bench measures the memory of. INGEST_RPC_URL (the sandbox), INGEST_DATABASE_URL (PostgreSQL; unset:
// a fresh SQLite file), INGEST_WALLETS (comma-separated, may be empty), INGEST_LEASE_MS. Prints
// `ready` once started, `settled` once every wallet is followed, and `recorded <wallet> <signature>
// <epoch ms>` for each record.
import { startTestIngestion } from './watch-ingest.ts';

const env = process.env;
const ing = await startTestIngestion({ rpcUrl: env.INGEST_RPC_URL!, databaseUrl: env.INGEST_DATABASE_URL || undefined, leaseMs: Number(env.INGEST_LEASE_MS ?? 6000) });
ing.sink.onRecord = (r) => console.log(`recorded ${r.wallet} ${r.signature} ${(performance.timeOrigin + r.at).toFixed(1)}`);
process.on('SIGTERM', async () => {
  await ing.stop();
  process.exit(0);
});
ing.sink.watch((env.INGEST_WALLETS ?? '').split(',').filter(Boolean));
console.log('ready');
await ing.settled(120_000);
console.log('settled');
