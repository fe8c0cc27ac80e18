// Size, start-up time to the first answered request, and idle memory of dist/gateway, beside a
// baseline measured in the same run: a bare Bun.serve "hello" compiled the same way.
// Run: bun run build && bun bench/binary.ts [runs]
import { cpus, totalmem } from 'node:os';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../tests/support/process.ts';

const runs = Number(process.argv[2] ?? 7);
const gateway = join(import.meta.dir, '../dist/gateway');
const work = mkdtempSync(join(tmpdir(), 'cig-bench-'));

function rssKiB(pid: number): number {
  const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

async function measure(binary: string, path: string): Promise<{ startMs: number; rssMiB: number }> {
  const port = freePort();
  const cwd = mkdtempSync(join(work, 'run-'));
  const started = performance.now();
  const proc = Bun.spawn([binary], { cwd, env: { PORT: String(port), HOST: '127.0.0.1', MAINNET_RPC_URLS: 'http://127.0.0.1:9', LOG_LEVEL: 'error' }, stdout: 'ignore', stderr: 'ignore' });
  let startMs = NaN;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}${path}`)).ok) {
        startMs = performance.now() - started;
        break;
      }
    } catch {}
    await Bun.sleep(2);
  }
  await Bun.sleep(2000); // idle
  const rssMiB = rssKiB(proc.pid) / 1024;
  proc.kill('SIGTERM');
  await proc.exited;
  return { startMs, rssMiB };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Baseline: the smallest Bun HTTP server, compiled with the same flags.
const baseSrc = join(work, 'hello.ts');
writeFileSync(baseSrc, "Bun.serve({ port: Number(process.env.PORT), hostname: '127.0.0.1', fetch: () => new Response('ok') });\n");
const baseline = join(work, 'hello');
const build = Bun.spawnSync(['bun', 'build', '--compile', '--minify', '--bytecode', '--format=esm', baseSrc, '--outfile', baseline]);
if (build.exitCode !== 0) throw new Error(build.stderr.toString());

const results: Record<string, { startMs: number[]; rssMiB: number[] }> = { gateway: { startMs: [], rssMiB: [] }, baseline: { startMs: [], rssMiB: [] } };
for (let i = 0; i < runs; i++) {
  for (const [name, bin, path] of [['gateway', gateway, '/healthz'], ['baseline', baseline, '/']] as const) {
    const r = await measure(bin, path);
    results[name]!.startMs.push(r.startMs);
    results[name]!.rssMiB.push(r.rssMiB);
  }
}
const g = { size: statSync(gateway).size / 2 ** 20, start: median(results.gateway!.startMs), rss: median(results.gateway!.rssMiB) };
const b = { size: statSync(baseline).size / 2 ** 20, start: median(results.baseline!.startMs), rss: median(results.baseline!.rssMiB) };
console.log(`command: bun bench/binary.ts ${runs}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, ${process.platform}-${process.arch}`);
console.log(`runs: ${runs} (median)`);
console.log(`                 gateway     baseline    ratio`);
console.log(`size (MiB)       ${g.size.toFixed(1).padStart(8)}    ${b.size.toFixed(1).padStart(8)}    ${(g.size / b.size).toFixed(2)}`);
console.log(`start to 200 ms  ${g.start.toFixed(1).padStart(8)}    ${b.start.toFixed(1).padStart(8)}    ${(g.start / b.start).toFixed(2)}`);
console.log(`idle RSS (MiB)   ${g.rss.toFixed(1).padStart(8)}    ${b.rss.toFixed(1).padStart(8)}    ${(g.rss / b.rss).toFixed(2)}`);
rmSync(work, { recursive: true, force: true });
