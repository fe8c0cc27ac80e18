// Two versions of the gateway side by side on the wire: this working tree against a git revision
// (checked out in a temporary worktree), each as its own process on the same sandbox chain. wrk
// alternates between them in short slices, round after round, so both meet the same machine in
// the same minute; each side's CPU time per request is summed over its slices. Run it against
// HEAD first to see the machine's noise: on the 2-vCPU VM of docs/performance.md, HEAD against itself
// gave 97.6 % for the cached blockhash and 93.7-109.6 % for the MCP call (8 rounds), so only
// differences well beyond that mean anything.
// Run: bun bench/ab.ts <revision> [figure: blockhash|find-ata|optimal-fee|keys-me|mcp|mcp-stateless] [rounds] [seconds per slice]
// Both sides run with the shipped defaults (bench/wire.ts BENCH_CONFIGS; BENCH_CONFIG=stripped for
// the stripped configuration), stderr drained by a pipe. With `configs` in place of a revision the
// two sides are this working tree with the defaults and stripped: what the access line and the
// limiter cost per request; AB_CONFIGS=defaults,access-log,limits,stripped puts more sides in turn,
// each against the last, and AB_EXE=dist/gateway runs the compiled binary in place of the source.
import { cpus } from 'node:os';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { freePort, sandboxGatewayEnv } from '../tests/support/process.ts';
import { BENCH_CONFIGS, buyKey, drain, mcpSessionScript, mcpStatelessScript, waitFor, wrk, type BenchConfig } from './wire.ts';

const [revision, figure = 'blockhash', roundsArg = '8', sliceArg = '1'] = process.argv.slice(2);
if (!revision) throw new Error('usage: bun bench/ab.ts <revision> [blockhash|find-ata|optimal-fee|keys-me|mcp|mcp-stateless] [rounds] [seconds per slice]');
const FIGURES = ['blockhash', 'find-ata', 'optimal-fee', 'keys-me', 'mcp', 'mcp-stateless'];
if (!FIGURES.includes(figure)) throw new Error(`figure must be one of ${FIGURES.join(', ')}`);
const rounds = Number(roundsArg);
const slice = Number(sliceArg);
const root = resolve(import.meta.dir, '..');
const dir = mkdtempSync(join(tmpdir(), 'cig-ab-'));
const SECRET = 'ab-secret';

const configs = revision === 'configs';
const config = (process.env.BENCH_CONFIG ?? 'defaults') as BenchConfig;
const pair = (process.env.AB_CONFIGS ?? 'defaults,stripped').split(',') as BenchConfig[];
for (const c of [config, ...pair]) if (!BENCH_CONFIGS[c]) throw new Error(`a configuration is one of ${Object.keys(BENCH_CONFIGS).join(', ')}`);

const git = (...args: string[]) => {
  const r = Bun.spawnSync(['git', '-C', root, ...args], { stderr: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};
const other = join(dir, 'other');
if (!configs) {
  git('worktree', 'add', '--detach', other, revision);
  symlinkSync(join(root, 'node_modules'), join(other, 'node_modules'));
}

const chain = await startSandbox();
const sides = await Promise.all(
  (configs
    ? [
        ...pair.map((c) => ({ name: c, main: join(root, 'src/main.ts'), env: BENCH_CONFIGS[c] })),
      ]
    : [
        { name: `working tree`, main: join(root, 'src/main.ts'), env: BENCH_CONFIGS[config] },
        { name: `${revision} (${git('rev-parse', '--short', revision)})`, main: join(other, 'src/main.ts'), env: BENCH_CONFIGS[config] },
      ]
  ).map(async (side, i) => {
    const port = freePort();
    mkdirSync(join(dir, `db${i}`));
    const gatewayAddress = (await generateKeyPairSigner()).address;
    const proc = Bun.spawn(configs && process.env.AB_EXE ? [resolve(process.env.AB_EXE)] : ['bun', side.main], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PRICE_LAMPORTS: '1000', ...sandboxGatewayEnv({ chainUrl: chain.url, dir: join(dir, `db${i}`), gatewayAddress, webhookSecret: SECRET }), ...side.env },
      stdout: 'inherit',
      stderr: 'pipe',
    });
    drain(proc.stderr);
    return { ...side, base: `http://127.0.0.1:${port}`, proc, gatewayAddress, requests: 0, cpuUs: 0, rates: [] as number[] };
  }),
);

const closers: (() => Promise<void>)[] = [];
try {
  const targets = await Promise.all(
    sides.map(async (side, i) => {
      await waitFor(side.base + '/healthz');
      const { agent, key } = await buyKey(side.base, chain, side.gatewayAddress, SECRET);
      const paid = { 'x-api-key': key };
      if (figure === 'blockhash') return { url: side.base + '/api/chain/blockhash' };
      if (figure === 'optimal-fee') return { url: side.base + '/api/chain/optimal-fee', headers: paid };
      if (figure === 'keys-me') return { url: side.base + '/api/keys/me', headers: paid };
      if (figure === 'mcp') {
        const session = await mcpSessionScript(side.base, key, dir, `mcp-${i}.lua`);
        closers.push(session.close);
        return { url: side.base + '/mcp', script: session.script };
      }
      if (figure === 'mcp-stateless') return { url: side.base + '/mcp', script: await mcpStatelessScript(side.base, key, dir, `mcp-modern-${i}.lua`) };
      const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
      await chain.mintTo(mint, chain.payer, agent.address, 1_000_000n);
      return { url: `${side.base}/api/chain/find-ata?wallet=${agent.address}&mint=${mint}`, headers: paid };
    }),
  );
  console.log(`command: ${configs ? `AB_CONFIGS=${pair.join(',')} ` : `BENCH_CONFIG=${config} `}bun bench/ab.ts ${revision} ${figure} ${rounds} ${slice}   (wrk -t1 -c64, ${rounds} rounds of one ${slice} s slice per side)`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, bun ${Bun.version}\n`);
  const run = (i: number, seconds: number) => wrk(targets[i]!.url, sides[i]!.proc.pid, { seconds, connections: 64, ...targets[i]! });
  for (let i = 0; i < sides.length; i++) await run(i, 1); // warm-up
  for (let r = 0; r < rounds; r++) {
    // Rotating which side goes first, so none always follows another.
    for (const i of sides.map((_, k) => (k + r) % sides.length)) {
      const result = await run(i, slice);
      if (result.non2xx || result.errors) console.log(`  ${sides[i]!.name}: ${result.non2xx} non-2xx, ${result.errors} socket errors`);
      sides[i]!.requests += result.requests;
      sides[i]!.cpuUs += result.cpuUs * result.requests;
      sides[i]!.rates.push(result.rps);
    }
  }
  const cpuPerRequest = sides.map((s) => s.cpuUs / s.requests);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [i, s] of sides.entries()) {
    console.log(`${s.name.padEnd(28)} ${cpuPerRequest[i]!.toFixed(2)} µs CPU per request, median ${median(s.rates).toFixed(0)} req/s`);
  }
  // Every side against the last (e.g. AB_CONFIGS=defaults,access-log,limits,stripped).
  const last = sides.length - 1;
  console.log();
  for (let i = 0; i < last; i++) console.log(`${sides[i]!.name} / ${sides[last]!.name}, CPU per request: ${((100 * cpuPerRequest[i]!) / cpuPerRequest[last]!).toFixed(1)} %, ${(cpuPerRequest[i]! - cpuPerRequest[last]!).toFixed(2)} µs`);
} finally {
  await Promise.all(closers.map((close) => close()));
  for (const s of sides) s.proc.kill('SIGTERM');
  await Promise.all(sides.map((s) => s.proc.exited));
  await chain.stop();
  if (!configs) git('worktree', 'remove', '--force', other);
  rmSync(dir, { recursive: true, force: true });
}
