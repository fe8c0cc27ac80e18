// Paid calls from many customers: 1,000 keys with claimed credit, each request from one of them at
// random, 64 connections (wrk, closed loop) through one gateway on SQLite (as shipped: a debit's
// commit is written but not fsynced, LEDGER_SYNC=normal; and again with LEDGER_SYNC=full, fsynced as
// Postgres's is) and through 1, 2 and 3 gateways on one PostgreSQL (durable settings: fsync on); then the
// same with 8 hot keys. For each: paid calls per second, p50/p99, and the database's commits
// (pg_stat_database.xact_commit, read- and write-transactions alike) per 1,000 paid calls.
// The gateways are the compiled binary (dist/gateway) with the shipped defaults: the access log on
// at info (kept in a file, to tell any errors at the end), rate limits on at a rate no load generator reaches, so the limiter (shared, on
// Postgres) does all its work and refuses nothing (bench/wire.ts BENCH_CONFIGS.defaults). The
// route is served from the upstream cache, so the debit is the call's work.
// Every gateway is started once and serves in turn: each round runs every setup one after the
// other (several gateways: one wrk per gateway, the connections split between them, as a
// balancer would), and the ratios are taken within a round. Postgres counts a backend's commits
// only when the backend has been idle a while, so each Postgres slice's count is read after
// BENCH_STATS_WAIT_MS (11 s) of quiet.
// BENCH_BEFORE=<another gateway binary> runs a second set of gateways from it (its own SQLite file
// and database, keys claimed the same way) beside this tree's, slice for slice: a before and after
// measured in the same rounds.
// Keys are claimed through the gateway's own store (a deposit recorded as a webhook does, then the
// claim) in the bench process before the gateways start: 1,000 claims over the wire would cost minutes.
// Run: bun run bench:customers [seconds per slice] [connections] [rounds]   (builds dist/gateway first)
// BENCH_SOURCE=1 runs `bun src/main.ts` instead of the binary; BENCH_KEYS sets the number of keys;
// BENCH_LIMITS=off turns the rate limits off; BENCH_REPLICAS=1,3 and BENCH_WORKLOADS=many|hot run only those slices;
// BENCH_WAITS=1 prints what Postgres's busy backends waited for in each slice (pg_stat_activity, sampled);
// BENCH_PG=name=value,... changes Postgres's settings (one the server reloads).
// BENCH_PAIRED=1 runs each before slice at the same moment as its after slice (each with every
// connection), so the machine's swings, which move a slice's rate by up to 2x from one minute to the
// next, hit both alike; it measures the two sharing a saturated machine, so it tells a change in CPU
// per call, not one in waiting.
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SQL } from 'bun';
import { base58 } from '@scure/base';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { freshDatabase, startPostgres } from '../tests/support/postgres.ts';
import { freePort, MAIN, sandboxGatewayEnv } from '../tests/support/process.ts';
import { openBackend } from '../src/billing/backend/open.ts';
import { defaultConfig } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import type { BillingStore } from '../src/billing/store.ts';
import { BENCH_CONFIGS, builtGateway, cpuMs, cpuMsOfAll, machineCpuMs, waitFor } from './wire.ts';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 64);
const rounds = Number(process.argv[4] ?? 3);
const KEYS = Number(process.env.BENCH_KEYS ?? 1000);
const HOT = 8;
const STATS_WAIT_MS = Number(process.env.BENCH_STATS_WAIT_MS ?? 11_000);
const SECRET = 'bench-secret';
const ROUTE = '/api/chain/optimal-fee';
const fromSource = process.env.BENCH_SOURCE === '1';
const command = fromSource ? ['bun', MAIN] : [builtGateway()];

const before = process.env.BENCH_BEFORE;
/** BENCH_PAIRED=1 (with BENCH_BEFORE): each before slice runs at the same moment as its after slice, each with all the connections. */
const paired = Boolean(before) && process.env.BENCH_PAIRED === '1';
/** BENCH_WAITS=1: sample what Postgres's busy backends wait for during each Postgres slice (costs the machine a little). */
const sampleWaits = process.env.BENCH_WAITS === '1';
/** BENCH_REPLICAS=1,3: only these Postgres setups (and SQLite), for more rounds of the slices in question. */
const REPLICAS = (process.env.BENCH_REPLICAS ?? '1,2,3').split(',').map(Number);
/** BENCH_LIMITS=off: rate limits off (the access log still on), to tell the limiter's commits from the ledger's. */
const limitsOff = process.env.BENCH_LIMITS === 'off';

const dir = mkdtempSync(join(tmpdir(), 'cig-customers-'));
const chain = await startSandbox();
const pg = await startPostgres({ durable: true });
/** BENCH_PG="commit_delay=200,commit_siblings=2": server settings other than Postgres's defaults, for an operator's tuning. */
const pgSettings = (process.env.BENCH_PG ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]);
if (pgSettings.length) {
  const server = new SQL(pg.url, { max: 1 });
  for (const [name, value] of pgSettings) await server.unsafe(`ALTER SYSTEM SET ${name} = '${value}'`);
  await server.unsafe('SELECT pg_reload_conf()');
  await server.close();
}
const gatewayAddress = (await generateKeyPairSigner()).address;

/** `count` wallets with a deposit each and a key claimed, through the store the gateway uses. */
async function claimKeys(store: BillingStore, count: number): Promise<string[]> {
  const keys: string[] = [];
  const random = (n: number) => base58.encode(crypto.getRandomValues(new Uint8Array(n)));
  for (let i = 0; i < count; i++) {
    const wallet = random(32);
    const now = Date.now();
    await store.recordDeposit({ signature: random(64), network: 'mainnet-beta', wallet, lamports: 1_000_000_000_000n, source: 'webhook' }, 1n, now);
    const claimed = await store.claim(wallet, 0, now);
    if (!claimed) throw new Error('claim found no deposit');
    keys.push(claimed.apiKey);
  }
  return keys;
}

interface Gateway {
  url: string;
  pid: number;
  /** Its stderr: the access log and any warning. */
  log: string;
  stop(): Promise<void>;
}

async function startGateway(name: string, command: string[], env: Record<string, string>): Promise<Gateway> {
  const port = freePort();
  const cwd = join(dir, name);
  mkdirSync(cwd);
  const proc = Bun.spawn(command, {
    cwd,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...sandboxGatewayEnv({ chainUrl: chain.url, dir: cwd, gatewayAddress, webhookSecret: SECRET }),
      // A cheap call so the credit lasts every round; the debit is the same work at any price.
      PRICE_LAMPORTS: '1000',
      ...BENCH_CONFIGS[limitsOff ? 'access-log' : 'defaults'],
      ...env,
    },
    stdout: 'ignore',
    // Kept, so a slice's errors can be told (see the end).
    stderr: Bun.file(join(cwd, 'gateway.log')),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url + '/healthz');
  return {
    url,
    pid: proc.pid,
    log: join(cwd, 'gateway.log'),
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/** Two gateways on SQLite (shipped, and LEDGER_SYNC=full) and three on one Postgres database, run by `command`, each database with KEYS keys claimed. */
async function gatewaySet(label: string, command: string[]) {
  /** A database opened as the gateway would open it, with KEYS keys claimed in it. */
  const seeded = async (where: { databasePath: string } | { databaseUrl: string }) => {
    const seeding = await openBackend({ ...defaultConfig(), ...where }, silentLogger);
    const keys = await claimKeys(seeding.store, KEYS);
    await seeding.close();
    return keys;
  };
  const sqlitePath = join(dir, `${label}.sqlite`);
  const sqliteKeys = await seeded({ databasePath: sqlitePath });
  // A gateway that fsyncs every debit's commit (LEDGER_SYNC=full), as Postgres does, on a file of its own.
  const fullPath = join(dir, `${label}-full.sqlite`);
  const fullKeys = await seeded({ databasePath: fullPath });
  const databaseUrl = await freshDatabase(pg.url);
  const pgKeys = await seeded({ databaseUrl });
  const sqlite = await startGateway(`${label}-sqlite`, command, { DATABASE_PATH: sqlitePath });
  const sqliteFull = await startGateway(`${label}-sqlite-full`, command, { DATABASE_PATH: fullPath, LEDGER_SYNC: 'full' });
  const replicas: Gateway[] = [];
  for (const i of [1, 2, 3]) replicas.push(await startGateway(`${label}-pg-${i}`, command, { DATABASE_URL: databaseUrl }));
  const admin = new SQL(databaseUrl, { max: 1 });
  /** One wrk script per database for a workload: its first `count` keys, each request one at random. */
  const scripts = (workload: string, count: number) => ({
    sqlite: script(`${label}-${workload}-sqlite`, sqliteKeys.slice(0, count)),
    full: script(`${label}-${workload}-full`, fullKeys.slice(0, count)),
    pg: script(`${label}-${workload}-pg`, pgKeys.slice(0, count)),
  });
  const lua = { [`${KEYS} keys`]: scripts('many', KEYS), [`${HOT} hot keys`]: scripts('hot', HOT) };
  return { label, sqlite, sqliteFull, replicas, admin, lua, gateways: [sqlite, sqliteFull, ...replicas] };
}

/** A wrk script calling the paid route with one of `keys` at random per request; prints its count and latency quantiles. */
function script(name: string, keys: string[]): string {
  const path = join(dir, `${name}.lua`);
  writeFileSync(
    path,
    `local keys = {${keys.map((k) => `"${k}"`).join(',')}}
local n = #keys
local headers = {}
init = function(args) math.randomseed(os.time() * 1000 + os.clock() * 1e6) end
request = function()
  headers["x-api-key"] = keys[math.random(n)]
  return wrk.format("GET", "${ROUTE}", headers)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d %d %d %d\\n", summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99), latency.max))
end
`,
  );
  return path;
}

interface Slice {
  calls: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Gateway CPU cores busy, summed over the gateways used. */
  cores: number;
  commitsPer1000?: number;
  /** CPU per paid call (µs): the gateways', Postgres's (every postgres process), and the whole machine's (wrk included). */
  us: { gateways: number; postgres: number; machine: number };
  /** Cores the whole machine kept busy. */
  machineCores: number;
  /** The ledger's batches (gateway_ledger_batch_size, _commit_seconds): debits and refunds each, and milliseconds each from sending to answered. */
  batchCalls: number;
  batchMs: number;
  /** BENCH_WAITS=1: what the database's busy backends were doing, as shares of the samples. */
  waits?: string;
}

/**
 * Samples pg_stat_activity every few ms while `going()`: each busy backend of the bench's database
 * (the gateways' statements) counted by its wait event, or CPU when it waits for nothing.
 */
async function sampleWaitsOf(admin: SQL, going: () => boolean): Promise<{ text: string; queries: number }> {
  const tally = new Map<string, number>();
  let total = 0;
  let queries = 0;
  for (; going(); queries++) {
    const rows = await admin<{ w: string }[]>`
      SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w FROM pg_stat_activity
      WHERE datname = current_database() AND state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`;
    for (const r of rows) tally.set(r.w, (tally.get(r.w) ?? 0) + 1);
    total += rows.length;
    await Bun.sleep(3);
  }
  const shares = [...tally].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([w, n]) => `${w} ${((n / Math.max(1, total)) * 100).toFixed(0)} %`);
  return { text: shares.join(', '), queries };
}

async function wrkOne(url: string, conns: number, lua: string, duration: number) {
  const proc = Bun.spawn(['wrk', '-t1', `-c${conns}`, `-d${duration}s`, '-s', lua, url + ROUTE], { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const m = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out);
  if (!m) throw new Error(`wrk printed no result:\n${out}`);
  const [requests = 0, durationUs = 0, non2xx = 0, connect = 0, read = 0, write = 0, timeout = 0, p50 = 0, p99 = 0, max = 0] = m.slice(1).map(Number);
  const errors = non2xx + connect + read + write + timeout;
  // What the errors were: the gateways' log tells any answer other than 200 at the end, but not a socket error or a wrk timeout (2 s).
  if (errors) console.error(`wrk ${url}: ${non2xx} answers not 2xx, socket errors: connect ${connect}, read ${read}, write ${write}, timeout ${timeout}; slowest answer ${(max / 1000).toFixed(0)} ms`);
  return { requests, durationUs, errors, p50: p50 / 1000, p99: p99 / 1000 };
}

const xactCommit = async (admin: SQL) => Number((await admin`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)[0].xact_commit);

/** Each database's commit count as last read, after a quiet wait: where its next slice's count starts. */
const lastCommits = new Map<SQL, number>();

/** The gateways' ledger batches so far, from /metrics: how many, the calls they carried, and their seconds. */
async function ledgerBatches(gateways: Gateway[]) {
  const total = { batches: 0, calls: 0, seconds: 0 };
  for (const g of gateways) {
    const text = await (await fetch(`${g.url}/metrics`)).text();
    const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? 0);
    total.batches += value('gateway_ledger_batch_size_count');
    total.calls += value('gateway_ledger_batch_size_sum');
    total.seconds += value('gateway_ledger_commit_seconds_sum');
  }
  return total;
}

/** The connections split between the gateways, as evenly as they go. `admin`: the Postgres database whose commits to count. */
async function slice(gateways: Gateway[], lua: string, admin?: SQL, duration = seconds): Promise<Slice> {
  const batchesBefore = await ledgerBatches(gateways);
  const cpuBefore = gateways.map((g) => cpuMs(g.pid));
  const pgBefore = cpuMsOfAll('postgres');
  const machineBefore = machineCpuMs();
  let sampling = true;
  const waits = admin && sampleWaits ? sampleWaitsOf(admin, () => sampling) : undefined;
  const parts = await Promise.all(gateways.map((g, i) => wrkOne(g.url, Math.floor(connections / gateways.length) + (i < connections % gateways.length ? 1 : 0), lua, duration)));
  sampling = false;
  const waited = await waits;
  const gatewayMs = gateways.reduce((sum, g, i) => sum + cpuMs(g.pid) - cpuBefore[i]!, 0);
  const postgresMs = cpuMsOfAll('postgres') - pgBefore;
  const machineMs = machineCpuMs() - machineBefore;
  const cores = gatewayMs / (duration * 1000);
  const batchesAfter = await ledgerBatches(gateways);
  const batches = batchesAfter.batches - batchesBefore.batches;
  let commits: number | undefined;
  if (admin) {
    await Bun.sleep(STATS_WAIT_MS);
    const now = await xactCommit(admin);
    // Less the reads of this bench.
    commits = now - lastCommits.get(admin)! - 1 - (waited?.queries ?? 0);
    lastCommits.set(admin, now);
  }
  const calls = parts.reduce((s, p) => s + p.requests, 0);
  const errors = parts.reduce((s, p) => s + p.errors, 0);
  const rps = parts.reduce((s, p) => s + p.requests / (p.durationUs / 1e6), 0);
  // Request-weighted p50; the worst gateway's p99 (each wrk knows only its own latencies).
  const p50 = parts.reduce((s, p) => s + p.p50 * p.requests, 0) / Math.max(1, calls);
  const p99 = Math.max(...parts.map((p) => p.p99));
  const paid = calls - errors;
  const perCall = (ms: number) => (ms * 1000) / Math.max(1, paid);
  return {
    calls,
    rps,
    p50,
    p99,
    errors,
    cores,
    commitsPer1000: commits === undefined ? undefined : (commits / Math.max(1, paid)) * 1000,
    us: { gateways: perCall(gatewayMs), postgres: perCall(postgresMs), machine: perCall(machineMs) },
    machineCores: machineMs / (duration * 1000),
    batchCalls: (batchesAfter.calls - batchesBefore.calls) / Math.max(1, batches),
    batchMs: ((batchesAfter.seconds - batchesBefore.seconds) * 1000) / Math.max(1, batches),
    waits: waited?.text,
  };
}

const sets = [...(before ? [await gatewaySet('before', [before])] : []), await gatewaySet(before ? 'after' : 'this', command)];
const setups = sets.flatMap((set) => {
  const prefix = !before ? '' : set === sets[0] ? 'before: ' : 'after: ';
  return [
    { name: `${prefix}SQLite, 1 gateway`, set, gateways: [set.sqlite], keys: 'sqlite' as const },
    { name: `${prefix}SQLite, sync full`, set, gateways: [set.sqliteFull], keys: 'full' as const },
    ...REPLICAS.map((n) => ({ name: `${prefix}Postgres, ${n} gateway${n > 1 ? 's' : ''}`, set, gateways: set.replicas.slice(0, n), keys: 'pg' as const })),
  ];
});
const workloads = [`${KEYS} keys`, `${HOT} hot keys`].filter((_, i) => !process.env.BENCH_WORKLOADS || process.env.BENCH_WORKLOADS.split(',').includes(['many', 'hot'][i]!));

const results = new Map<string, Slice[]>();
const load = loadavg()[0]!.toFixed(1);
try {
  // Warm-up: JIT, the upstream cache, every connection pool.
  for (const s of setups) await slice(s.gateways, s.set.lua[workloads[0]!]![s.keys], undefined, 2);
  await Bun.sleep(STATS_WAIT_MS);
  for (const set of sets) lastCommits.set(set.admin, await xactCommit(set.admin));
  for (let round = 1; round <= rounds; round++) {
    for (const w of workloads) {
      // Paired: the before's slice and the after's run at the same moment, so the machine's swings hit both.
      const turns = paired ? setups.slice(0, setups.length / 2).map((s, i) => [s, setups[setups.length / 2 + i]!]) : setups.map((s) => [s]);
      for (const turn of turns) {
        const rs = await Promise.all(turn.map((s) => slice(s.gateways, s.set.lua[w]![s.keys], s.keys === 'pg' ? s.set.admin : undefined)));
        turn.forEach((s, i) => {
          const r = rs[i]!;
          const key = `${w} | ${s.name}`;
          results.set(key, [...(results.get(key) ?? []), r]);
          console.error(`round ${round}: ${key}: ${r.rps.toFixed(0)}/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors}, commits/1000 ${r.commitsPer1000?.toFixed(1) ?? '-'}, ledger batches of ${r.batchCalls.toFixed(1)} calls in ${r.batchMs.toFixed(1)} ms${r.waits ? `; Postgres busy: ${r.waits}` : ''}`);
        });
      }
    }
  }
} finally {
  for (const set of sets) await set.admin.close();
  await Promise.all(sets.flatMap((set) => set.gateways).map((g) => g.stop()));
  await chain.stop();
  await pg.stop();
  tellErrors(sets.flatMap((set) => set.gateways));
  rmSync(dir, { recursive: true, force: true });
}

/** What any answer other than 200, and any warning, was: counted by gateway, level, status, code and message. */
function tellErrors(gateways: Gateway[]) {
  const seen = new Map<string, number>();
  for (const g of gateways) {
    for (const line of readFileSync(g.log, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const e = JSON.parse(line) as { level?: string; status?: number; code?: string; message?: string };
      if (e.level !== 'warn' && e.level !== 'error' && (e.status === undefined || e.status === 200)) continue;
      const what = `${basename(dirname(g.log))}: ${e.level} ${e.status ?? ''} ${e.code ?? ''} ${e.message ?? ''}`;
      seen.set(what, (seen.get(what) ?? 0) + 1);
    }
  }
  for (const [what, n] of [...seen].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.error(`gateway log: ${n} x ${what}`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(' / ');

console.log(`command: ${pgSettings.length ? `BENCH_PG=${process.env.BENCH_PG} ` : ''}${paired ? 'BENCH_PAIRED=1 ' : ''}${process.env.BENCH_REPLICAS ? `BENCH_REPLICAS=${process.env.BENCH_REPLICAS} ` : ''}${process.env.BENCH_WORKLOADS ? `BENCH_WORKLOADS=${process.env.BENCH_WORKLOADS} ` : ''}${before ? `BENCH_BEFORE=${before} ` : ''}${limitsOff ? 'BENCH_LIMITS=off ' : ''}bun bench/many-customers.ts ${seconds} ${connections} ${rounds}${fromSource ? ' (BENCH_SOURCE=1: from source)' : ' (dist/gateway)'}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, load average ${load} at start; wrk, Postgres and every gateway on the same machine`);
console.log('each cell: the rounds in order (r1 / r2 / ...); ratios are taken within a round, then the median of the rounds');
for (const w of workloads) {
  console.log(`\n${w}, ${connections} connections`);
  console.log(`${'setup'.padEnd(22)} ${'paid calls/s'.padEnd(22)} ${'p50 ms'.padEnd(20)} ${'p99 ms'.padEnd(22)} ${'errors'.padEnd(8)} ${'gateway cores'.padEnd(18)} ${'commits per 1,000 paid calls'.padEnd(30)} CPU µs per call: gateways + postgres of machine (machine cores)`);
  for (const s of setups) {
    const rs = results.get(`${w} | ${s.name}`) ?? [];
    const commits = rs.map((r) => r.commitsPer1000).filter((c): c is number => c !== undefined);
    console.log(
      `${s.name.padEnd(22)} ${fmt(rs.map((r) => r.rps)).padEnd(22)} ${fmt(rs.map((r) => r.p50), 1).padEnd(20)} ${fmt(rs.map((r) => r.p99), 1).padEnd(22)} ${String(rs.reduce((a, r) => a + r.errors, 0)).padEnd(8)} ${fmt(rs.map((r) => r.cores), 2).padEnd(18)} ${(commits.length ? fmt(commits, 1) : '-').padEnd(30)} ${rs.map((r) => `${r.us.gateways.toFixed(0)} + ${r.us.postgres.toFixed(0)} of ${r.us.machine.toFixed(0)} (${r.machineCores.toFixed(2)})`).join(' / ')}`,
    );
  }
  const rate = (name: string) => (results.get(`${w} | ${name}`) ?? []).map((r) => r.rps);
  const ratio = (a: string, b: string) => median(rate(a).map((x, i) => x / rate(b)[i]!));
  const pct = (x: number) => (Number.isNaN(x) ? '-' : `${(x * 100).toFixed(0)} %`);
  for (const prefix of before ? ['before: ', 'after: '] : ['']) {
    console.log(
      `${prefix}ratios (median of rounds): Postgres 1 / SQLite ${pct(ratio(`${prefix}Postgres, 1 gateway`, `${prefix}SQLite, 1 gateway`))} (/ SQLite with sync full ${pct(ratio(`${prefix}Postgres, 1 gateway`, `${prefix}SQLite, sync full`))}); Postgres 2 / 1 ${pct(ratio(`${prefix}Postgres, 2 gateways`, `${prefix}Postgres, 1 gateway`))}; Postgres 3 / 1 ${pct(ratio(`${prefix}Postgres, 3 gateways`, `${prefix}Postgres, 1 gateway`))}`,
    );
  }
  if (before) {
    console.log(
      `after / before (median of rounds): SQLite ${pct(ratio('after: SQLite, 1 gateway', 'before: SQLite, 1 gateway'))}; Postgres 1 ${pct(ratio('after: Postgres, 1 gateway', 'before: Postgres, 1 gateway'))}; 2 ${pct(ratio('after: Postgres, 2 gateways', 'before: Postgres, 2 gateways'))}; 3 ${pct(ratio('after: Postgres, 3 gateways', 'before: Postgres, 3 gateways'))}`,
    );
  }
}
