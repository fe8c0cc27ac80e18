// A log shipper that stops reading for 30 s under load: the compiled gateway with the shipped
// defaults (bench/wire.ts) writes its stderr into a named pipe read by `cat`, which is stopped
// (SIGSTOP) for the stall and resumed after. A fixed-rate client (bench/open-loop.ts) asks for
// the cached blockhash before and during the stall; the bench prints both latencies, the RSS
// before and at the end of the stall, and the lines dropped and counted in /metrics.
// Run: bun run build && bun bench/log-stall.ts [rate per s] [stall seconds]
import { cpus } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { freePort } from '../tests/support/process.ts';
import { BENCH_CONFIGS, builtGateway, waitFor } from './wire.ts';

const rate = Number(process.argv[2] ?? 2000);
const stallS = Number(process.argv[3] ?? 30);
const EXE = builtGateway();
const dir = mkdtempSync(join(tmpdir(), 'cig-log-stall-'));
const fifo = join(dir, 'stderr');
Bun.spawnSync(['mkfifo', fifo]);

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const chain = await startSandbox();
const reader = Bun.spawn(['cat', fifo], { stdout: 'ignore' });
const port = freePort();
const gw = Bun.spawn([EXE], {
  cwd: dir,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'gw.sqlite'), MAINNET_RPC_URLS: chain.url, DEVNET_RPC_URLS: chain.url, DEPOSIT_POLL_SECONDS: '0', ...BENCH_CONFIGS.defaults },
  stdout: 'ignore',
  stderr: Bun.file(fifo),
});
const url = `http://127.0.0.1:${port}`;

async function openLoop(seconds: number): Promise<{ sent: number; errors: number; p50: number; p99: number; max: number }> {
  const proc = Bun.spawn(['bun', join(import.meta.dir, 'open-loop.ts'), `${url}/api/chain/blockhash`, String(rate), String(seconds)], { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out);
}

try {
  await waitFor(url + '/healthz');
  console.log(`command: bun bench/log-stall.ts ${rate} ${stallS}   (dist/gateway with ${JSON.stringify(BENCH_CONFIGS.defaults)}, LOG_BUFFER_BYTES default)`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, bun ${Bun.version}`);
  console.log('baseline: the same gateway and load while its stderr is read\n');
  await openLoop(5); // warm-up
  const before = await openLoop(10);
  const rssBefore = rssMb(gw.pid);
  reader.kill('SIGSTOP');
  const during = await openLoop(stallS);
  const rssDuring = rssMb(gw.pid);
  reader.kill('SIGCONT');
  await Bun.sleep(1000);
  const metrics = await (await fetch(url + '/metrics')).text();
  const dropped = Number(/^gateway_log_lines_dropped_total (\S+)$/m.exec(metrics)?.[1] ?? NaN);
  const row = (name: string, r: Awaited<ReturnType<typeof openLoop>>) =>
    `| ${name} | ${r.sent} | ${r.errors} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(1)} |`;
  console.log(`| ${rate} req/s of cached blockhash | sent | errors | p50 ms | p99 ms | max ms |`);
  console.log('|---|---|---|---|---|---|');
  console.log(row('stderr read', before));
  console.log(row(`stderr not read for ${stallS} s`, during));
  console.log(`\nRSS ${rssBefore.toFixed(0)} MB before the stall, ${rssDuring.toFixed(0)} MB at its end; ${dropped} access lines dropped and counted (gateway_log_lines_dropped_total)`);
} finally {
  gw.kill('SIGKILL');
  await gw.exited;
  reader.kill('SIGCONT');
  reader.kill('SIGTERM');
  await reader.exited;
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
}
