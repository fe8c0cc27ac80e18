// What the access log and request metrics cost: the same app served two ways, each in its own
// process with the sandbox chain as upstream:
//   bare      app.listen(): Elysia's own listener, no access log, no request metrics
//   unlogged  src/serve.ts with a silent logger: the wrapper and request metrics, no log line
//   observed  src/serve.ts: the wrapper main.ts uses, JSON access line per request (to stderr,
//             discarded by the OS) + request counter and histogram + upstream-call context
// The load generator runs in this process. The machine is shared, so besides req/s the bench
// reports what noise hurts least: the server process's own CPU time per request (from /proc).
// Run: bun bench/observe.ts [requests] [concurrency]
import { cpus, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { defaultConfig, type Config } from '../src/config.ts';
import { createLogger, silentLogger } from '../src/log.ts';
import { serve } from '../src/serve.ts';
import { createServices } from '../src/services.ts';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { waitFor } from './wire.ts';
import { freePort } from '../tests/support/process.ts';

const [, , first] = process.argv;

if (first === '--serve') {
  // Child: serve one way until killed.
  const [mode, port, rpc, dbPath] = process.argv.slice(3) as [string, string, string, string];
  const config: Config = { ...defaultConfig(), host: '127.0.0.1', port: Number(port), databasePath: dbPath, mainnetRpcUrls: [rpc], devnetRpcUrls: [rpc], rateLimitRps: 0, depositPollSeconds: 0, logFormat: 'json' };
  const log = mode === 'observed' ? createLogger('info', [], undefined, 'json') : silentLogger;
  const app = buildApp(await createServices(config, log));
  if (mode !== 'bare') serve(app, log, { port: config.port, hostname: config.host });
  else app.listen({ port: config.port, hostname: config.host });
} else {
  const requests = Number(first ?? 20_000);
  const concurrency = Number(process.argv[3] ?? 32);
  const chain = await startSandbox();
  const dir = mkdtempSync(join(tmpdir(), 'cig-bench-observe-'));

  /** utime + stime of a process, in microseconds. */
  const cpuMicros = async (pid: number) => {
    const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // USER_HZ is 100 on Linux
  };

  async function load(base: string, path: string, pid: number) {
    const latencies: number[] = [];
    let errors = 0;
    let left = requests;
    const cpu0 = await cpuMicros(pid);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) {
          const t = performance.now();
          const res = await fetch(base + path);
          await res.arrayBuffer();
          if (res.status !== 200) errors++;
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpuPerRequest = ((await cpuMicros(pid)) - cpu0) / latencies.length;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
    return { rps: latencies.length / seconds, cpu: cpuPerRequest, p50: q(50), p99: q(99), errors };
  }

  const results: [string, string, Awaited<ReturnType<typeof load>>][] = [];
  try {
    // Alternate the modes twice so a noisy neighbour hurts both alike.
    for (const mode of ['bare', 'unlogged', 'observed', 'bare', 'unlogged', 'observed']) {
      const port = freePort();
      const child = Bun.spawn(['bun', import.meta.path, '--serve', mode, String(port), chain.url, join(dir, `${mode}-${port}.sqlite`)], { stdout: 'ignore', stderr: 'ignore' });
      const base = `http://127.0.0.1:${port}`;
      await waitFor(base + '/healthz');
      await load(base, '/api/chain/blockhash', child.pid); // warm-up
      for (const path of ['/healthz', '/api/chain/blockhash']) results.push([mode, path, await load(base, path, child.pid)]);
      child.kill('SIGKILL');
      await child.exited;
    }
  } finally {
    await chain.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`command: bun bench/observe.ts ${requests} ${concurrency}`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}; load generator on the same machine`);
  console.log(`${'mode'.padEnd(10)} ${'route'.padEnd(22)} ${'req/s'.padStart(8)} ${'server CPU µs/req'.padStart(18)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} errors`);
  for (const [mode, path, r] of results) {
    console.log(`${mode.padEnd(10)} ${path.padEnd(22)} ${r.rps.toFixed(0).padStart(8)} ${r.cpu.toFixed(1).padStart(18)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${r.errors}`);
  }
  for (const path of ['/healthz', '/api/chain/blockhash']) {
    const best = (mode: string) => Math.min(...results.filter(([m, p]) => m === mode && p === path).map(([, , r]) => r.cpu));
    console.log(`${path}: least server CPU per request: bare ${best('bare').toFixed(1)} µs, unlogged ${best('unlogged').toFixed(1)} µs, observed ${best('observed').toFixed(1)} µs`);
  }
}
