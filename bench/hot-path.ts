// The hot path against its ceiling. Every figure is a ratio to a bare Bun.serve JSON server
// (bench/bare-server.ts) measured in the same run, run after run, so a busy machine moves both
// sides alike. The gateway runs as its own process with the sandbox chain (in this process) as
// its upstream, so cached calls measure the gateway's own work. wrk (closed loop) measures
// throughput; bench/open-loop.ts (fixed rate) measures the latency added at half the free peak.
// Run: bun run bench [seconds per run] [connections] [runs]
// BENCH_ONLY=<part of a figure's name>[,<another>...] runs just those figures ("latency" names the
// latency figure), in the usual order; BENCH_PROFILE=<dir> runs the gateway
// under `bun --cpu-prof-md` and leaves the profile there.
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { freePort, MAIN, sandboxGatewayEnv } from '../tests/support/process.ts';
import { buyKey, mcpSessionScript, mcpStatelessScript, waitFor, wrk as wrkOn, type WrkResult } from './wire.ts';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 64);
const runs = Number(process.argv[4] ?? 3);
const SECRET = 'bench-secret';
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-'));

const chain = await startSandbox();
const gatewayAddress = (await generateKeyPairSigner()).address;
const gwPort = freePort();
const barePort = freePort();
const barePostPort = freePort();
const gw = `http://127.0.0.1:${gwPort}`;
const bare = `http://127.0.0.1:${barePort}`;
const barePost = `http://127.0.0.1:${barePostPort}/mcp`;
const children = [
  Bun.spawn(['bun', ...(process.env.BENCH_PROFILE ? ['--cpu-prof-md', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []), MAIN], {
    env: {
      ...process.env,
      PORT: String(gwPort),
      HOST: '127.0.0.1',
      ...sandboxGatewayEnv({ chainUrl: chain.url, dir, gatewayAddress, webhookSecret: SECRET }),
      // A cheap call so one deposit pays for every run; the debit is the same work at any price.
      PRICE_LAMPORTS: '1000',
    },
    stdout: 'inherit',
    stderr: 'inherit',
  }),
  Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), String(barePort)], { stdout: 'ignore', stderr: 'inherit' }),
  Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), String(barePostPort), 'post'], { stdout: 'ignore', stderr: 'inherit' }),
];

function wrk(url: string, opts: { headers?: Record<string, string>; script?: string } = {}, duration = seconds): Promise<WrkResult> {
  const port = new URL(url).port;
  const pid = port === String(gwPort) ? children[0]!.pid : port === String(barePort) ? children[1]!.pid : children[2]!.pid;
  return wrkOn(url, pid, { seconds: duration, connections, ...opts });
}

/** Slices of one side of a run as one result: the mean rate of equal slices, CPU per request over all of them. */
function combined(slices: WrkResult[]): WrkResult {
  const requests = slices.reduce((n, r) => n + r.requests, 0);
  return {
    rps: slices.reduce((n, r) => n + r.rps, 0) / slices.length,
    requests,
    non2xx: slices.reduce((n, r) => n + r.non2xx, 0),
    errors: slices.reduce((n, r) => n + r.errors, 0),
    cpuUs: slices.reduce((n, r) => n + r.cpuUs * r.requests, 0) / requests,
  };
}

interface LatencyResult {
  sent: number;
  errors: number;
  p50: number;
  p99: number;
}

async function openLoop(url: string, rate: number, headers: Record<string, string> = {}): Promise<LatencyResult> {
  const args = ['bun', join(import.meta.dir, 'open-loop.ts'), url, String(rate), String(seconds), ...Object.entries(headers).map(([k, v]) => `${k}:${v}`)];
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

try {
  await Promise.all([waitFor(gw + '/healthz'), waitFor(bare), waitFor(barePost)]);
  const { agent, key } = await buyKey(gw, chain, gatewayAddress, SECRET);
  const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
  // The agent holds the token, so its ATA exists: the answer an agent asks about again and again.
  await chain.mintTo(mint, chain.payer, agent.address, 1_000_000n);
  const paid = { 'x-api-key': key };

  // One Streamable HTTP session, opened with the official SDK client; wrk then posts tools/call on it.
  const mcp = await mcpSessionScript(gw, key, dir);
  const script = mcp.script;

  const modernScript = await mcpStatelessScript(gw, key, dir);

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`command: bun bench/hot-path.ts ${seconds} ${connections} ${runs}   (wrk -t1 -c${connections}; per run, ${seconds} one-second slices of the baseline and the call in turn)`);
  console.log(`machine: ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at start`);
  console.log('the load generator shares the machine; other work on it makes every figure noisy, hence ratios and medians of runs\n');


  // `goal` undefined: a figure for context, measured like the others.
  type Load = { url: string; headers?: Record<string, string>; script?: string };
  const bareGet: Load = { url: bare };
  const restFee: Load = { url: gw + '/api/chain/optimal-fee', headers: paid };
  const figures: { name: string; goal?: number; target: Load; base: Load; baseName: string }[] = [
    { name: 'cached free blockhash', goal: 0.6, target: { url: gw + '/api/chain/blockhash' }, base: bareGet, baseName: 'bare' },
    { name: 'paid find-ata', goal: 0.4, target: { url: `${gw}/api/chain/find-ata?wallet=${agent.address}&mint=${mint}`, headers: paid }, base: bareGet, baseName: 'bare' },
    { name: 'paid optimal-fee', goal: 0.4, target: restFee, base: bareGet, baseName: 'bare' },
    { name: 'GET /api/keys/me', goal: 0.5, target: { url: gw + '/api/keys/me', headers: paid }, base: bareGet, baseName: 'bare' },
    { name: 'paid MCP tools/call optimal_fee', goal: 0.8, target: { url: gw + '/mcp', script }, base: restFee, baseName: 'REST paid optimal-fee' },
    { name: 'paid MCP tools/call optimal_fee, stateless 2026-07-28', goal: 0.8, target: { url: gw + '/mcp', script: modernScript }, base: restFee, baseName: 'REST paid optimal-fee' },
    // What any MCP call pays before its own work: Streamable HTTP POSTs the message as a body, and
    // reading a body costs Bun this much even in a bare server (the REST calls are GETs).
    { name: 'bare POST reading a JSON-RPC body', target: { url: barePost, script }, base: bareGet, baseName: 'bare GET' },
  ];
  const load = ({ url, ...opts }: Load, duration?: number) => wrk(url, opts, duration);

  const only = process.env.BENCH_ONLY?.split(',');
  const chosen = figures.filter((f) => !only || only.some((part) => f.name.includes(part)));
  // Warm-up of what will be measured (JIT, upstream caches, the sandbox's first answers), and only
  // that, so a profile of one figure shows that figure's path.
  for (const f of chosen) {
    await load(f.target);
    await load(f.base);
  }

  const table: string[] = [];
  // How the paid calls' debits were grouped, from the gateway's own metrics.
  const ledgerStats = async () => {
    const text = await (await fetch(gw + '/metrics')).text();
    const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? 0);
    return { commits: value('gateway_ledger_batch_size_count'), ops: value('gateway_ledger_batch_size_sum'), seconds: value('gateway_ledger_commit_seconds_sum') };
  };
  let seenLedger = await ledgerStats();
  let blockhashPeak = 0;
  // Median CPU per request of each figure's target and baseline.
  const cpuOf = new Map<string, { target: number; base: number }>();
  for (const f of chosen) {
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const targetCpus: number[] = [];
    const baseCpus: number[] = [];
    const rates: number[] = [];
    const bases: number[] = [];
    for (let r = 0; r < runs; r++) {
      // Baseline and call alternate in one-second slices, so a machine whose speed drifts within a
      // run (this VM's did, by up to a third) moves both sides of the ratio alike.
      const baseSlices: WrkResult[] = [];
      const targetSlices: WrkResult[] = [];
      for (let i = 0; i < seconds; i++) {
        baseSlices.push(await load(f.base, 1));
        targetSlices.push(await load(f.target, 1));
      }
      const b = combined(baseSlices);
      const t = combined(targetSlices);
      if (t.non2xx || t.errors) console.log(`  ${f.name}: ${t.non2xx} non-2xx, ${t.errors} socket errors`);
      ratios.push(t.rps / b.rps);
      cpuRatios.push(b.cpuUs / t.cpuUs);
      targetCpus.push(t.cpuUs);
      baseCpus.push(b.cpuUs);
      rates.push(t.rps);
      bases.push(b.rps);
      console.log(
        `  ${f.name} run ${r + 1}: ${t.rps.toFixed(0)} req/s vs ${f.baseName} ${b.rps.toFixed(0)} req/s = ${pct(t.rps / b.rps)}; ` +
          `CPU ${t.cpuUs.toFixed(1)} vs ${b.cpuUs.toFixed(1)} µs/req = ${pct(b.cpuUs / t.cpuUs)}`,
      );
    }
    if (f.name === 'cached free blockhash') blockhashPeak = median(rates);
    cpuOf.set(f.name, { target: median(targetCpus), base: median(baseCpus) });
    const ledger = await ledgerStats();
    if (ledger.commits > seenLedger.commits) {
      const commits = ledger.commits - seenLedger.commits;
      console.log(`  ledger: ${commits} group commits, ${((ledger.ops - seenLedger.ops) / commits).toFixed(1)} operations and ${(((ledger.seconds - seenLedger.seconds) / commits) * 1e6).toFixed(0)} µs each on average`);
    }
    seenLedger = ledger;
    const m = median(ratios);
    const verdict = f.goal === undefined ? 'context' : `${pct(f.goal)} ${m >= f.goal ? 'met' : 'NOT met'}`;
    table.push(`| ${f.name} | ${median(rates).toFixed(0)} | ${f.baseName} ${median(bases).toFixed(0)} | ${ratios.map(pct).join(', ')} | ${pct(m)} | ${pct(median(cpuRatios))} | ${verdict} |`);
  }

  // Latency added over bare at half the free call's peak rate, from a fixed-rate client.
  const latencyToo = !only || only.some((part) => 'latency'.includes(part));
  if (!blockhashPeak && latencyToo) blockhashPeak = (await wrk(gw + '/api/chain/blockhash')).rps;
  const rate = Math.round(blockhashPeak / 2);
  const added: { p50: number[]; p99: number[] } = { p50: [], p99: [] };
  for (let r = 0; r < (latencyToo ? runs : 0); r++) {
    const b = await openLoop(bare, rate);
    const g = await openLoop(gw + '/api/chain/blockhash', rate);
    added.p50.push(g.p50 - b.p50);
    added.p99.push(g.p99 - b.p99);
    console.log(
      `  latency run ${r + 1} at ${rate}/s: bare p50 ${b.p50.toFixed(2)} p99 ${b.p99.toFixed(2)} ms; gateway blockhash p50 ${g.p50.toFixed(2)} p99 ${g.p99.toFixed(2)} ms (errors ${b.errors}/${g.errors})`,
    );
  }
  const p50 = latencyToo ? median(added.p50) : NaN;
  const p99 = latencyToo ? median(added.p99) : NaN;

  console.log('\n| call | req/s (median) | baseline req/s (median) | ratio per run | median ratio | CPU-per-request ratio (median) | goal (on req/s) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const row of table) console.log(row);
  const post = cpuOf.get('bare POST reading a JSON-RPC body');
  const rest = cpuOf.get('paid MCP tools/call optimal_fee')?.base;
  if (post && rest) {
    const body = post.target - post.base;
    console.log(
      `\nreading a POST body: bare ${post.target.toFixed(1)} vs ${post.base.toFixed(1)} µs of CPU per request (+${body.toFixed(1)} µs); with the REST paid call at ` +
        `${rest.toFixed(1)} µs, an MCP call doing nothing beyond reading its body would reach ${pct(rest / (rest + body))} of it (CPU per request)`,
    );
  }
  if (latencyToo) {
    console.log(`\nadded latency over bare at ${rate} req/s (half the free peak), fixed-rate client, median of ${runs} runs:`);
    console.log(`  p50 +${p50.toFixed(2)} ms (goal <= 1 ms: ${p50 <= 1 ? 'met' : 'NOT met'}), p99 +${p99.toFixed(2)} ms (goal <= 5 ms: ${p99 <= 5 ? 'met' : 'NOT met'})`);
  }
  await mcp.close();
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => c.exited));
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
}
