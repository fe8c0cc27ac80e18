// Paid-call throughput with one SQLite gateway, and with 1, 2 and 3 gateways on one PostgreSQL
// (durable settings: fsync on, like SQLite's synchronous=FULL), the load spread round robin as a
// balancer would. Also: the same 3 replicas with the shared Postgres rate limit switched on (set
// high enough never to refuse), to see what one limiter round trip per call costs; and each
// replica's memory and CPU (cores busy during the run), for the per-replica cost. Eight agents
// with a key each share the load. Gateways run as processes on loopback with
// the sandbox chain as upstream; the route is served from the upstream cache.
// Run: bun bench/replicas.ts [seconds] [concurrency]
import { cpus, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { claimWhenSeen, deposit, heliusPayload } from '../tests/support/agent.ts';
import { freshDatabase, startPostgres } from '../tests/support/postgres.ts';
import { clientOf, http, startReplica, type Replica } from '../tests/support/replicas.ts';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 32);
const SECRET = 'bench-secret';
const ROUTE = '/api/chain/optimal-fee';

const chain = await startSandbox();
const pg = await startPostgres({ durable: true });
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-'));

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Agents calling at once, each with its own key: one wallet alone would serialize on its row. */
const AGENTS = 8;

async function fundedKey(replicas: Replica[], gatewayAddress: Address): Promise<string> {
  const agent = await chain.newWallet(2_000_000_000_000n);
  const lamports = 1_000_000_000_000n;
  const sig = await deposit(chain, agent, gatewayAddress, lamports);
  await http(replicas[0]!.url, '/api/payments/webhook', { method: 'POST', body: heliusPayload(sig, agent.address, gatewayAddress, lamports), headers: { authorization: SECRET } });
  return claimWhenSeen(clientOf(replicas[0]!.url), agent, 0);
}

async function load(urls: string[], keys: string[]) {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      const key = keys[worker % keys.length]!;
      while (performance.now() < until) {
        const url = urls[next++ % urls.length]!;
        const t = performance.now();
        const res = await fetch(url + ROUTE, { headers: { 'x-api-key': key } });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { calls: latencies.length, rps: latencies.length / seconds, p50: q(50), p99: q(99), errors };
}

const runs: { name: string; replicas: number; env: (i: number) => Promise<Record<string, string>> | Record<string, string> }[] = [
  { name: 'SQLite, 1 gateway', replicas: 1, env: () => ({ DATABASE_PATH: join(dir, `gw-${Date.now()}.sqlite`) }) },
  ...[1, 2, 3].map((n) => ({ name: `Postgres, ${n} gateway${n > 1 ? 's' : ''}`, replicas: n, env: () => ({}) })),
  { name: 'Postgres, 3 gateways, shared rate limit on', replicas: 3, env: () => ({ RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000' }) },
];

const rows: string[] = [];
try {
  for (const run of runs) {
    const gatewayAddress = (await generateKeyPairSigner()).address;
    const databaseUrl = run.name.startsWith('Postgres') ? await freshDatabase(pg.url) : undefined;
    const envs = await Promise.all(Array.from({ length: run.replicas }, (_, i) => run.env(i)));
    const replicas = await Promise.all(
      envs.map((e) =>
        startReplica({
          MAINNET_RPC_URLS: chain.url,
          DEVNET_RPC_URLS: chain.url,
          GATEWAY_ADDRESS: gatewayAddress,
          WEBHOOK_SECRET: SECRET,
          DEPOSIT_POLL_SECONDS: '0',
          RATE_LIMIT_RPS: '0',
          FREE_CALLS: '0',
          LOG_LEVEL: 'error',
          ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
          ...e,
        }),
      ),
    );
    try {
      const keys: string[] = [];
      // One after another: the sandbox refuses identical funding transactions sent together.
      for (let i = 0; i < AGENTS; i++) keys.push(await fundedKey(replicas, gatewayAddress));
      const urls = replicas.map((r) => r.url);
      await load(urls, keys); // warm-up
      const cpuBefore = replicas.map((r) => cpuSeconds(r.pid));
      const r = await load(urls, keys);
      const cpu = replicas.map((rep, i) => (cpuSeconds(rep.pid) - cpuBefore[i]!) / seconds);
      const rss = replicas.map((rep) => rssMiB(rep.pid));
      rows.push(
        `${run.name.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(6)} ${cpu.map((c) => c.toFixed(2)).join('/').padStart(16)} ${rss.map((m) => m.toFixed(0)).join('/').padStart(12)}`,
      );
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  }
  console.log(`command: bun bench/replicas.ts ${seconds} ${concurrency}`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}; load generator, Postgres and every gateway on the same machine`);
  console.log(`${'setup'.padEnd(44)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(6)} ${'CPU cores each'.padStart(16)} ${'RSS MiB each'.padStart(12)}`);
  for (const row of rows) console.log(row);
} finally {
  await chain.stop();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
