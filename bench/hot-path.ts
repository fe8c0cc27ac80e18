// The hot path against its ceiling, as an operator runs it: the compiled binary (dist/gateway)
// with the shipped defaults (access log on at info, written to a pipe that is drained; rate limits
// on, at a rate no load generator reaches, so the limiter does all its work and refuses nothing),
// beside the same binary stripped (LOG_LEVEL=warn, limits off) as a second column (bench/wire.ts
// BENCH_CONFIGS). Every figure is a ratio to a bare Bun.serve (bench/bare-server.ts) measured in
// the same run: a GET for REST, a POST whose JSON-RPC body is read and parsed for MCP; the REST
// figures also against a second ceiling taking turns with the first, the bare GET that reads the
// peer address (server.requestIP) and one header, as the access line and the limiter must. Baseline
// and calls alternate in one-second slices, so a busy machine moves every side alike. The gateways
// have the sandbox chain (in this process) as their upstream, so cached calls measure the
// gateway's own work. wrk (closed loop) measures throughput; bench/open-loop.ts (fixed rate) the
// latency added at half the free peak.
// Run: bun run bench [seconds per run] [connections] [runs]   (builds dist/gateway first)
// BENCH_ONLY=<part of a figure's name>[,<another>...] runs just those figures ("latency" names the
// latency figure, "floor" Bun's own cost of a peer address and a header read); BENCH_PROFILE=<dir>
// runs the defaults gateway from source under `bun --cpu-prof-md` and leaves the profile there.
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { freePort, MAIN, sandboxGatewayEnv } from '../tests/support/process.ts';
import { BENCH_CONFIGS, builtGateway, buyKey, drain, mcpSessionScript, mcpStatelessScript, waitFor, wrk as wrkOn, type BenchConfig, type WrkResult } from './wire.ts';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 64);
const runs = Number(process.argv[4] ?? 3);
const SECRET = 'bench-secret';
const profile = process.env.BENCH_PROFILE;
const EXE = profile ? '' : builtGateway();
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-'));

const chain = await startSandbox();
const barePort = freePort();
const barePostPort = freePort();
const barePeerPort = freePort();
const bare = `http://127.0.0.1:${barePort}`;
const barePeer = `http://127.0.0.1:${barePeerPort}`;
const barePost = `http://127.0.0.1:${barePostPort}/mcp`;

/** One gateway per configuration, each with its own database, deposit address and key. */
const gateways = await Promise.all(
  (['defaults', 'stripped'] as BenchConfig[]).map(async (config) => {
    const port = freePort();
    const gatewayAddress = (await generateKeyPairSigner()).address;
    mkdirSync(join(dir, config));
    const command = profile && config === 'defaults' ? ['bun', '--cpu-prof-md', `--cpu-prof-dir=${profile}`, MAIN] : profile ? ['bun', MAIN] : [EXE];
    const proc = Bun.spawn(command, {
      cwd: join(dir, config),
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        ...sandboxGatewayEnv({ chainUrl: chain.url, dir: join(dir, config), gatewayAddress, webhookSecret: SECRET }),
        // A cheap call so one deposit pays for every run; the debit is the same work at any price.
        PRICE_LAMPORTS: '1000',
        ...BENCH_CONFIGS[config],
      },
      stdout: 'inherit',
      stderr: 'pipe',
    });
    drain(proc.stderr);
    return { config, url: `http://127.0.0.1:${port}`, gatewayAddress, proc };
  }),
);
const children = [
  ...gateways.map((g) => g.proc),
  Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), String(barePort)], { stdout: 'ignore', stderr: 'inherit' }),
  Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), String(barePostPort), 'post'], { stdout: 'ignore', stderr: 'inherit' }),
  Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), String(barePeerPort), 'peer'], { stdout: 'ignore', stderr: 'inherit' }),
];
const pidOf = (url: string) => {
  const port = new URL(url).port;
  const gw = gateways.find((g) => new URL(g.url).port === port);
  return gw ? gw.proc.pid : children[2 + [barePort, barePostPort, barePeerPort].map(String).indexOf(port)]!.pid;
};

function wrk(url: string, opts: { headers?: Record<string, string>; script?: string } = {}, duration = seconds): Promise<WrkResult> {
  return wrkOn(url, pidOf(url), { seconds: duration, connections, ...opts });
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
  await Promise.all([...gateways.map((g) => waitFor(g.url + '/healthz')), waitFor(bare), waitFor(barePost), waitFor(barePeer)]);
  type Load = { url: string; headers?: Record<string, string>; script?: string };
  const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
  const closers: (() => Promise<void>)[] = [];
  /** What each figure asks of one gateway, with that gateway's own key. */
  const loads = await Promise.all(
    gateways.map(async (g) => {
      const { agent, key } = await buyKey(g.url, chain, g.gatewayAddress, SECRET);
      // The agent holds the token, so its ATA exists: the answer an agent asks about again and again.
      await chain.mintTo(mint, chain.payer, agent.address, 1_000_000n);
      const paid = { 'x-api-key': key };
      // One Streamable HTTP session, opened with the official SDK client; wrk then posts tools/call on it.
      const mcp = await mcpSessionScript(g.url, key, dir, `mcp-${g.config}.lua`);
      closers.push(mcp.close);
      const loads: Record<string, Load> = {
        blockhash: { url: g.url + '/api/chain/blockhash' },
        findAta: { url: `${g.url}/api/chain/find-ata?wallet=${agent.address}&mint=${mint}`, headers: paid },
        fee: { url: g.url + '/api/chain/optimal-fee', headers: paid },
        me: { url: g.url + '/api/keys/me', headers: paid },
        mcp: { url: g.url + '/mcp', script: mcp.script },
        mcpStateless: { url: g.url + '/mcp', script: await mcpStatelessScript(g.url, key, dir, `mcp-modern-${g.config}.lua`) },
      };
      return loads;
    }),
  );
  const [defaults, stripped] = loads as [Record<string, Load>, Record<string, Load>];

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`command: bun run bench ${seconds} ${connections} ${runs}   (bun bench/hot-path.ts; wrk -t1 -c${connections}; per run, ${seconds} one-second slices of the baseline and each configuration in turn)`);
  console.log(`machine: ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at start`);
  console.log(`gateway: ${profile ? 'bun src/main.ts (profiling)' : 'dist/gateway'}; defaults = ${JSON.stringify(BENCH_CONFIGS.defaults)}, stderr drained by a pipe; stripped = ${JSON.stringify(BENCH_CONFIGS.stripped)}`);
  console.log('baseline: bare Bun.serve answering a small JSON object (bench/bare-server.ts): a GET for REST, a POST whose JSON-RPC body it reads and parses for MCP');
  console.log('the load generator shares the machine; other work on it makes every figure noisy, hence ratios and medians of runs\n');

  const bareGet: Load = { url: bare };
  // The ceiling of any handler that names its client and reads its key, as the access line and the limiter must.
  const peerGet: Load = { url: barePeer };
  const barePostLoad: Load = { url: barePost, script: defaults.mcp!.script };
  // `goal` undefined: a figure for context, measured like the others.
  // `ceiling`: a second baseline taking turns with the first, the bare GET that also reads the peer address and a header.
  const figures: { name: string; goal?: number; load: string; base: Load; baseName: string; ceiling?: Load }[] = [
    { name: 'cached free blockhash', goal: 0.6, load: 'blockhash', base: bareGet, baseName: 'bare GET', ceiling: peerGet },
    { name: 'paid find-ata', goal: 0.35, load: 'findAta', base: bareGet, baseName: 'bare GET', ceiling: peerGet },
    { name: 'paid optimal-fee', load: 'fee', base: bareGet, baseName: 'bare GET', ceiling: peerGet },
    { name: 'GET /api/keys/me', load: 'me', base: bareGet, baseName: 'bare GET', ceiling: peerGet },
    { name: 'paid MCP tools/call optimal_fee', goal: 0.35, load: 'mcp', base: barePostLoad, baseName: 'bare POST' },
    { name: 'paid MCP tools/call optimal_fee, stateless 2026-07-28', goal: 0.35, load: 'mcpStateless', base: barePostLoad, baseName: 'bare POST' },
  ];
  const run = ({ url, ...opts }: Load, duration?: number) => wrk(url, opts, duration);

  const only = process.env.BENCH_ONLY?.split(',');
  const chosen = figures.filter((f) => !only || only.some((part) => f.name.includes(part)));
  // Warm-up of what will be measured (JIT, upstream caches, the sandbox's first answers), and only
  // that, so a profile of one figure shows that figure's path.
  for (const f of chosen) for (const load of [f.base, ...(f.ceiling ? [f.ceiling] : []), defaults[f.load]!, stripped[f.load]!]) await run(load);

  const table: string[] = [];
  const costs: string[] = [];
  let blockhashPeak = 0;
  for (const f of chosen) {
    const sides = { defaults: defaults[f.load]!, stripped: stripped[f.load]! };
    const per = { defaults: { ratios: [] as number[], rates: [] as number[], cpus: [] as number[] }, stripped: { ratios: [] as number[], rates: [] as number[], cpus: [] as number[] } };
    const bases: number[] = [];
    /** The defaults against the peer-reading ceiling, per run. */
    const toCeiling: number[] = [];
    for (let r = 0; r < runs; r++) {
      // Baseline and both configurations alternate in one-second slices, so a machine whose speed
      // drifts within a run (this VM's did, by up to a third) moves every side alike.
      const slices: Record<'base' | 'ceiling' | 'defaults' | 'stripped', WrkResult[]> = { base: [], ceiling: [], defaults: [], stripped: [] };
      for (let i = 0; i < seconds; i++) {
        slices.base.push(await run(f.base, 1));
        if (f.ceiling) slices.ceiling.push(await run(f.ceiling, 1));
        slices.defaults.push(await run(sides.defaults, 1));
        slices.stripped.push(await run(sides.stripped, 1));
      }
      const b = combined(slices.base);
      bases.push(b.rps);
      const line: string[] = [];
      for (const config of ['defaults', 'stripped'] as const) {
        const t = combined(slices[config]);
        if (t.non2xx || t.errors) console.log(`  ${f.name} (${config}): ${t.non2xx} non-2xx, ${t.errors} socket errors`);
        per[config].ratios.push(t.rps / b.rps);
        per[config].rates.push(t.rps);
        per[config].cpus.push(t.cpuUs);
        line.push(`${config} ${t.rps.toFixed(0)} req/s = ${pct(t.rps / b.rps)}, ${t.cpuUs.toFixed(1)} µs CPU`);
      }
      let ceilingNote = '';
      if (f.ceiling) {
        const c = combined(slices.ceiling);
        toCeiling.push(combined(slices.defaults).rps / c.rps);
        ceilingNote = `; with requestIP and a header read ${c.rps.toFixed(0)} req/s (defaults = ${pct(toCeiling.at(-1)!)} of it)`;
      }
      console.log(`  ${f.name} run ${r + 1}: ${line.join('; ')}; ${f.baseName} ${b.rps.toFixed(0)} req/s, ${b.cpuUs.toFixed(1)} µs CPU${ceilingNote}`);
    }
    if (f.name === 'cached free blockhash') blockhashPeak = median(per.defaults.rates);
    const m = median(per.defaults.ratios);
    const verdict = f.goal === undefined ? 'context' : `${pct(f.goal)} ${m >= f.goal ? 'met' : 'NOT met'}`;
    table.push(
      `| ${f.name} | ${median(per.defaults.rates).toFixed(0)} | ${per.defaults.ratios.map(pct).join(', ')} | ${pct(m)} | ${toCeiling.length ? pct(median(toCeiling)) : '-'} | ${pct(median(per.stripped.ratios))} | ${f.baseName} ${median(bases).toFixed(0)} | ${verdict} |`,
    );
    const d = median(per.defaults.cpus);
    const st = median(per.stripped.cpus);
    costs.push(`| ${f.name} | ${d.toFixed(1)} | ${st.toFixed(1)} | ${(d - st).toFixed(1)} |`);
  }

  // What Bun itself charges for what the access line and the limiter must read: the bare GET with
  // the peer's address and one header read, against without, alternating like the figures.
  const floorToo = !only || only.some((part) => 'floor'.includes(part));
  const floors: number[] = [];
  for (let r = 0; r < (floorToo ? runs : 0); r++) {
    const slices: Record<'base' | 'peer', WrkResult[]> = { base: [], peer: [] };
    for (let i = 0; i < seconds; i++) {
      slices.base.push(await run({ url: bare }, 1));
      slices.peer.push(await run({ url: barePeer }, 1));
    }
    const b = combined(slices.base);
    const p = combined(slices.peer);
    floors.push(p.cpuUs - b.cpuUs);
    console.log(`  floor run ${r + 1}: bare GET ${b.cpuUs.toFixed(1)} µs CPU, with requestIP and a header read ${p.cpuUs.toFixed(1)} µs CPU`);
  }

  // Latency added over bare at half the free call's peak rate, from a fixed-rate client, with the defaults.
  const latencyToo = !only || only.some((part) => 'latency'.includes(part));
  if (!blockhashPeak && latencyToo) blockhashPeak = (await wrk(defaults.blockhash!.url)).rps;
  const rate = Math.round(blockhashPeak / 2);
  const added: { p50: number[]; p99: number[] } = { p50: [], p99: [] };
  for (let r = 0; r < (latencyToo ? runs : 0); r++) {
    const b = await openLoop(bare, rate);
    const g = await openLoop(defaults.blockhash!.url, rate);
    added.p50.push(g.p50 - b.p50);
    added.p99.push(g.p99 - b.p99);
    console.log(
      `  latency run ${r + 1} at ${rate}/s: bare p50 ${b.p50.toFixed(2)} p99 ${b.p99.toFixed(2)} ms; gateway blockhash p50 ${g.p50.toFixed(2)} p99 ${g.p99.toFixed(2)} ms (errors ${b.errors}/${g.errors})`,
    );
  }

  console.log('\n| call | req/s with the defaults (median) | ratio per run, defaults | median ratio, defaults | median ratio to the bare GET with requestIP and a header read, defaults | median ratio, stripped | baseline req/s (median) | goal (defaults) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of table) console.log(row);
  console.log('\nCPU per request (µs, medians of runs): what the access line and the limiter cost (goal: at most 3 µs)');
  console.log('| call | defaults | stripped | difference |');
  console.log('|---|---|---|---|');
  for (const row of costs) console.log(row);
  if (floorToo) console.log(`floor: Bun's own cost of reading the peer's address (server.requestIP, a system call) and one header, which the line and the limiter need: ${median(floors).toFixed(1)} µs (median of ${runs} runs)`);
  if (latencyToo) {
    const p50 = median(added.p50);
    const p99 = median(added.p99);
    console.log(`\nadded latency over bare at ${rate} req/s (half the free peak with the defaults), fixed-rate client, median of ${runs} runs:`);
    console.log(`  p50 +${p50.toFixed(2)} ms (goal <= 1 ms: ${p50 <= 1 ? 'met' : 'NOT met'}), p99 +${p99.toFixed(2)} ms (goal <= 5 ms: ${p99 <= 5 ? 'met' : 'NOT met'})`);
  }
  await Promise.all(closers.map((close) => close()));
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => c.exited));
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
}
