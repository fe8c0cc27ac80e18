// What one gateway on PostgreSQL could reach if the ledger cost nothing but its round trips: the
// least a paid call can be (bench/pg-floor-server.ts: `work` µs of JS a request, then its row
// committed in a group before the answer) through wrk with 64 connections, beside the same server
// writing nothing (the baseline, in the same run), with the database's time per batch made longer
// (0, 3.5, 7 ms) and one or two batches in flight. It shows how a replica's rate falls as its batch
// takes longer when the batch's time and the gateway's work for the calls run one after the other.
// Run: bun bench/pg-floor.ts [rounds] [work µs, comma separated] [delays ms] [batches in flight]
import { cpus, loadavg } from 'node:os';
import { SQL } from 'bun';
import { startPostgres } from '../tests/support/postgres.ts';
import { freePort } from '../tests/support/process.ts';
import { waitFor, wrk } from './wire.ts';
import { busiestStatement } from './pg-statements.ts';

const rounds = Number(process.argv[2] ?? 3);
const works = (process.argv[3] ?? '120').split(',').map(Number);
const delays = (process.argv[4] ?? '0,3.5,7').split(',').map(Number);
const inFlights = (process.argv[5] ?? '1,2').split(',').map(Number);
const SECONDS = 5;
const CONNECTIONS = 64;

const pg = await startPostgres({ durable: true });
const statement = await busiestStatement(pg, pg.url);
const admin = new SQL(pg.url, { max: 1 });
await admin`CREATE TABLE floor_accounts (wallet text PRIMARY KEY, lamports bigint NOT NULL CHECK (lamports >= 0))`;
await admin`CREATE TABLE floor_records (call_id text PRIMARY KEY, wallet text NOT NULL, at bigint NOT NULL)`;
await admin`CREATE INDEX floor_records_wallet ON floor_records (wallet, at)`;
await admin`INSERT INTO floor_accounts SELECT 'w' || g, 1000000000000 FROM generate_series(0, 999) AS g`;

async function slice(work: number, url: string, inFlight: number, delay: number) {
  const port = freePort();
  const server = Bun.spawn(['bun', `${import.meta.dir}/pg-floor-server.ts`, String(port), String(work), url, String(inFlight), String(delay)], { stdout: 'ignore', stderr: 'inherit' });
  try {
    await waitFor(`http://127.0.0.1:${port}/`);
    const target = `http://127.0.0.1:${port}/`;
    await wrk(target, server.pid, { seconds: 1, connections: CONNECTIONS });
    await statement.since();
    const measured = await wrk(target, server.pid, { seconds: SECONDS, connections: CONNECTIONS });
    return { ...measured, statement: url === 'none' ? null : await statement.since() };
  } finally {
    server.kill();
    await server.exited;
  }
}

console.log(`command: bun bench/pg-floor.ts ${rounds} ${works.join(',')} ${delays.join(',')} ${inFlights.join(',')}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model.trim()}, bun ${Bun.version}, load average ${loadavg()[0]!.toFixed(1)} at start; wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, Postgres (fsync on) on the same machine`);
console.log('each cell: req/s (µs of the server\'s CPU per request, and its batch statement\'s own time in Postgres), then % of the baseline of its round');
const table: Map<string, string[]> = new Map();
for (let round = 1; round <= rounds; round++) {
  for (const work of works) {
    const base = await slice(work, 'none', 1, 0);
    const put = (label: string, r: Awaited<ReturnType<typeof slice>>) => {
      const inPg = r.statement ? `, ${r.statement.ms.toFixed(2)} ms in Postgres` : '';
      const cell = `${r.rps.toFixed(0)} (${r.cpuUs.toFixed(0)} µs${inPg}) ${((100 * r.rps) / base.rps).toFixed(0)} %${r.non2xx + r.errors ? ` ${r.non2xx + r.errors} errors` : ''}`;
      table.set(label, [...(table.get(label) ?? []), cell]);
    };
    put(`${work} µs: baseline, no database`, base);
    for (const inFlight of inFlights) for (const delay of delays) put(`${work} µs: ${inFlight} in flight, +${delay} ms a batch`, await slice(work, pg.url, inFlight, delay));
  }
}
for (const [label, cells] of table) console.log(`${label.padEnd(40)} ${cells.join(' | ')}`);
await admin.close();
await statement.close();
await pg.stop();
