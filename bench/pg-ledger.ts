// The PostgreSQL ledger alone, without HTTP: `clients` loops each make paid calls' database work
// back to back (a debit, with its rate-limit draw in the same transaction or without one, and the
// usage row riding along) on 1,000 funded accounts, against a durable Postgres on this machine.
// What the database costs per paid call when nothing else is in the way: calls per second, calls
// per commit, p50, and the CPU per call of Postgres (every postgres process) and of this process;
// with pg_stat_statements (PostgreSQL's contrib), the ledger's statement's own time in Postgres per
// batch and how often it was planned.
// Run: bun run bench:pg-ledger [seconds] [clients]
import { cpus } from 'node:os';
import { freshDatabase, startPostgres } from '../tests/support/postgres.ts';
import { migratePostgres, openPostgres } from '../src/db/pg-client.ts';
import { PgLedger } from '../src/billing/backend/postgres/ledger.ts';
import { pgStore } from '../src/billing/backend/postgres/store.ts';
import { newCallId } from '../src/billing/resilience/call-id.ts';
import { usageRow } from '../src/billing/usage-history.ts';
import { cpuMs, cpuMsOfAll } from './wire.ts';
import { busiestStatement, type StatementTime } from './pg-statements.ts';

const seconds = Number(process.argv[2] ?? 5);
const clients = Number(process.argv[3] ?? 64);
/** BENCH_KEYS: how many accounts the calls are spread over (8: a few hot customers). */
const ACCOUNTS = Number(process.env.BENCH_KEYS ?? 1000);
const PRICE = 1000;

const pg = await startPostgres({ durable: true });
const url = await freshDatabase(pg.url);
await migratePostgres(url);
const statement = await busiestStatement(pg, url);
const db = openPostgres(url, 20);
// Limits no load reaches: every draw is allowed, and each still updates its bucket's row.
const ledger = new PgLedger(db.$client, { rate: 1e9, burst: 1e9 });
const { store, release } = pgStore(db, ledger);
const accounts: { wallet: string; keyHash: string }[] = [];
for (let i = 0; i < ACCOUNTS; i++) {
  const wallet = `bench-wallet-${i}`;
  await store.recordDeposit({ signature: crypto.randomUUID(), network: 'mainnet-beta', wallet, lamports: 10n ** 15n, source: 'webhook' }, 1n);
  const claimed = await store.claim(wallet, 0, Date.now());
  accounts.push({ wallet, keyHash: (await store.identify(claimed!.apiKey))!.keyHash });
}

const inPostgres = (t: StatementTime | null) => (t ? `; in Postgres its batch statement ran ${t.ms.toFixed(2)} ms each (${t.calls} runs, planned ${t.plans} times)` : '');

async function run(drawing: boolean) {
  // The statements' counts start here.
  await statement.since();
  const commitsBefore = ledger.commits;
  const pgBefore = cpuMsOfAll('postgres');
  const selfBefore = cpuMs(process.pid);
  const latencies: number[] = [];
  const rows: Promise<void>[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const { wallet, keyHash } = accounts[Math.floor(Math.random() * ACCOUNTS)]!;
        const at = performance.now();
        const callId = newCallId();
        const debit = drawing ? (await ledger.debitDrawing(wallet, PRICE, callId, keyHash, `wallet:${wallet}`)).debit : await ledger.debit(wallet, PRICE, callId, keyHash);
        if (!debit || typeof debit !== 'object') throw new Error('a funded account was refused');
        rows.push(ledger.carry([usageRow(debit, { capability: 'bench', face: 'rest', at: Date.now(), status: 200, refunded: false })]));
        latencies.push(performance.now() - at);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(rows);
  const calls = latencies.length;
  latencies.sort((a, b) => a - b);
  const perCall = (ms: number) => ((ms * 1000) / calls).toFixed(0);
  console.log(
    `${(drawing ? 'debit with its draw' : 'debit alone').padEnd(20)} ${(calls / elapsed).toFixed(0).padStart(6)}/s  ${(calls / (ledger.commits - commitsBefore)).toFixed(1).padStart(5)} calls per commit, ${ledger.atOnceCommits} at once, ${ledger.replanned} replanned` +
      `  p50 ${latencies[calls >> 1]!.toFixed(2)} ms  CPU µs per call: postgres ${perCall(cpuMsOfAll('postgres') - pgBefore)}, this process ${perCall(cpuMs(process.pid) - selfBefore)}` +
      inPostgres(await statement.since()),
  );
}

try {
  await run(true); // warm-up
  console.log(`command: bun bench/pg-ledger.ts ${seconds} ${clients}`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, bun ${Bun.version}; Postgres on the same machine, fsync on`);
  for (let round = 0; round < 3; round++) for (const drawing of [true, false]) await run(drawing);
} finally {
  await release();
  await statement.close();
  await db.$client.close();
  await pg.stop();
}
