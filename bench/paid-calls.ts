// Throughput of paid calls against free ones on the same server, to see what the ledger's debit
// (one SQLite commit per paid call) costs. The gateway runs as its own process on loopback with
// the sandbox chain as upstream; the routes measured are served from the upstream cache, so the
// difference between them is the gateway's own work.
// Run: bun bench/paid-calls.ts [seconds] [concurrency]
import { cpus, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { claimWhenSeen, deposit, heliusPayload, httpClient } from '../tests/support/agent.ts';
import { freePort, MAIN, sandboxGatewayEnv } from '../tests/support/process.ts';
import { waitFor } from './wire.ts';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 32);
const SECRET = 'bench-secret';

const chain = await startSandbox();
const gatewayAddress = (await generateKeyPairSigner()).address;
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-'));
const port = freePort();
const base = `http://127.0.0.1:${port}`;
const gateway = Bun.spawn(['bun', MAIN], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...sandboxGatewayEnv({ chainUrl: chain.url, dir, gatewayAddress, webhookSecret: SECRET }),
  },
  stdout: 'inherit',
  stderr: 'inherit',
});

const http = httpClient(base);

try {
  await waitFor(base + '/healthz');
  // A key with credit for far more calls than the run can make, bought the real way.
  const agent = await chain.newWallet(2_000_000_000_000n);
  const lamports = 1_000_000_000_000n;
  const sig = await deposit(chain, agent, gatewayAddress, lamports);
  await http.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, lamports), { authorization: SECRET });
  const key = await claimWhenSeen(http, agent, 0);

  async function load(path: string, headers: Record<string, string> = {}) {
    const latencies: number[] = [];
    let errors = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const t = performance.now();
          const res = await fetch(base + path, { headers });
          await res.arrayBuffer();
          if (res.status !== 200) errors++;
          latencies.push(performance.now() - t);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
    return { rps: latencies.length / seconds, p50: q(50), p99: q(99), errors };
  }

  const runs: [string, string, Record<string, string>][] = [
    ['healthz (baseline: HTTP + one SELECT)', '/healthz', {}],
    ['free blockhash (cached upstream)', '/api/chain/blockhash', {}],
    ['paid optimal-fee (cached upstream + debit)', '/api/chain/optimal-fee', { 'x-api-key': key }],
  ];
  await load('/api/chain/optimal-fee', { 'x-api-key': key }); // warm-up
  const results = [];
  for (const [name, path, headers] of runs) results.push([name, await load(path, headers)] as const);
  const baseline = results[0]![1].rps;
  console.log(`command: bun bench/paid-calls.ts ${seconds} ${concurrency}`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}; load generator in the same machine`);
  console.log(`${'route'.padEnd(46)} ${'req/s'.padStart(8)} ${'vs base'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} errors`);
  for (const [name, r] of results) {
    console.log(`${name.padEnd(46)} ${r.rps.toFixed(0).padStart(8)} ${(r.rps / baseline).toFixed(2).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${r.errors}`);
  }
  const me = await http.get('/api/keys/me', { 'x-api-key': key });
  console.log(`paid calls charged: ${me.body.callsMade}; credit left ${me.body.creditLamports} lamports`);
} finally {
  gateway.kill('SIGTERM');
  await gateway.exited;
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
}
