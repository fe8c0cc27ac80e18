// A soak: one gateway (the compiled binary) with the shipped defaults under a mixed load for a
// given time, its RSS sampled from /proc, every answer counted by route and status, and every
// key's credit checked against what its wallet deposited and what its paid calls cost.
//
//   bun run bench:soak -- --minutes 30 [--agents 4] [--rps 8] [--lifetime 300]
//
// The gateway runs as an operator starts it: only HOST/PORT, its upstreams (the sandbox chain, in
// this process) and GATEWAY_ADDRESS are set; the access log is on, rate limits are on (20/s, burst
// 40 per key or address), deposits are found by the watcher (every 15 s), 10 free calls per wallet,
// and the database is ./data/gateway.sqlite in a fresh working directory. The load stays inside the
// limits on purpose, so that no 429 is an expected answer: each agent (a wallet) paces its own
// requests (--rps, default 8/s), every request on the client's address (keyless calls, the key
// routes) shares one pace of 10/s, and challenges one of 8 a minute (the limit is 10).
//
// The load: --agents wallets at a time, each buying a key the real way (a SOL transfer on the
// sandbox chain, the watcher, a challenge signed with the wallet, the claim), then making paid and
// free REST calls, opening, using and closing MCP sessions (Streamable HTTP and legacy SSE, the
// official SDK client), topping its credit up once with a second deposit and claim (which rotates
// its key), and reading /api/keys/me, which must match its ledger at every read. After --lifetime
// seconds an agent retires and a new wallet takes its place. Keyless clients call free routes and
// open keyless MCP sessions. Every loop stops by itself at the deadline; traffic goes only to
// 127.0.0.1. Exits non-zero when a check fails.
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { deposit, signChallenge } from '../tests/support/agent.ts';
import { connectMcp, type McpTransportKind } from '../tests/support/mcp.ts';
import { eachLine, freePort } from '../tests/support/process.ts';
import { defaultConfig } from '../src/config.ts';
import { waitFor } from './wire.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const MINUTES = Number(arg('minutes', '30'));
const AGENTS = Number(arg('agents', '4'));
const AGENT_RPS = Number(arg('rps', '8'));
const LIFETIME_S = Number(arg('lifetime', '300'));
const SAMPLE_S = 5;
const SLOPE_BAR_MB_PER_MIN = 1;
const EXE = resolve(import.meta.dir, '../dist/gateway');
if (!existsSync(EXE)) throw new Error('dist/gateway is missing: bun run build (bun run bench:soak does it)');

const defaults = defaultConfig();
const PRICE = BigInt(defaults.priceLamports);
const FREE_CALLS = defaults.freeCalls;
// What the bench's own pacing is held under (the shipped limits), checked so a change of defaults cannot make 429s expected.
if (AGENT_RPS > defaults.rateLimitRps / 2) throw new Error(`--rps ${AGENT_RPS} is above half the shipped RATE_LIMIT_RPS (${defaults.rateLimitRps})`);
const ADDRESS_RPS = Math.min(10, defaults.rateLimitRps / 2);
const CHALLENGES_PER_MIN = Math.floor(defaults.challengesPerMinute * 0.8);

/** A client-side token bucket: waits until a request may go, so the gateway's own bucket (twice as large) never empties. */
class Pace {
  private tokens: number;
  private at = performance.now();
  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }
  async take(): Promise<void> {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
      this.at = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await Bun.sleep(((1 - this.tokens) / this.perSecond) * 1000);
    }
  }
}

// ---- answers, by route and status; what is unexpected is listed by route --------------------------------
const answers = new Map<string, Map<string, number>>();
const unexpected = new Map<string, { count: number; examples: string[] }>();
function note(route: string, status: string | number, ok: boolean, detail = '') {
  const byStatus = answers.get(route) ?? new Map<string, number>();
  answers.set(route, byStatus);
  byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
  if (ok) return;
  const u = unexpected.get(route) ?? { count: 0, examples: [] };
  unexpected.set(route, u);
  u.count++;
  if (u.examples.length < 5) u.examples.push(`${status}${detail ? ' ' + detail.slice(0, 300) : ''} (t=${((Date.now() - loadStart) / 1000).toFixed(0)} s)`);
}
const ledgerProblems: string[] = [];

/** A route's name for the tables: method and path, the query and session ids left out. */
const routeOf = (method: string, url: string) => `${method} ${new URL(url).pathname}`;
/** What an MCP transport may answer: 2xx, or 405 to a GET /mcp (the standalone stream is optional). */
const transportOk = (method: string, path: string, status: number) => (status >= 200 && status < 300) || (method === 'GET' && path === '/mcp' && status === 405);

// ---- the chain and the gateway ---------------------------------------------------------------------------
const chain = await startSandbox();
const gatewayAddress = (await generateKeyPairSigner()).address;
const cwd = mkdtempSync(join(tmpdir(), 'cig-soak-'));
const port = freePort();
const base = `http://127.0.0.1:${port}`;
const gatewayEnv = { HOST: '127.0.0.1', PORT: String(port), MAINNET_RPC_URLS: chain.url, DEVNET_RPC_URLS: chain.url, GATEWAY_ADDRESS: gatewayAddress };
const gateway = Bun.spawn([EXE], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...gatewayEnv }, stdout: 'ignore', stderr: 'pipe' });

// The access log and everything else the gateway says, read as fast as it comes, counted by level.
const logLevels = new Map<string, number>();
const logProblems = new Map<string, number>();
void eachLine(gateway.stderr as ReadableStream<Uint8Array>, (line) => {
  const m = /^\S+ (DEBUG|INFO|WARN|ERROR|FATAL)\s+(.*)$/.exec(line);
  const level = m?.[1] ?? 'other';
  logLevels.set(level, (logLevels.get(level) ?? 0) + 1);
  if (level !== 'INFO' && level !== 'DEBUG') {
    // One entry per message, without the fields that change from line to line.
    const what = (m?.[2] ?? line).replace(/\s\w+=.*$/, '').slice(0, 160);
    logProblems.set(`${level} ${what}`, (logProblems.get(`${level} ${what}`) ?? 0) + 1);
  }
});

const rss = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
};

await waitFor(base + '/healthz');
await Bun.sleep(2000);
const idle = rss(gateway.pid);

const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
const loadStart = Date.now();
const deadline = loadStart + MINUTES * 60_000;
const timeLeft = () => deadline - Date.now();
const addressPace = new Pace(ADDRESS_RPS, ADDRESS_RPS);
const challengePace = new Pace(CHALLENGES_PER_MIN / 60, CHALLENGES_PER_MIN);

/** One HTTP request, paced, timed out, its answer noted; returns the status and the parsed body (null when not JSON). */
async function request(pace: Pace, method: string, path: string, o: { headers?: Record<string, string>; body?: unknown; ok?: (status: number) => boolean } = {}) {
  await pace.take();
  const route = routeOf(method, base + path);
  try {
    const res = await fetch(base + path, {
      method,
      headers: { ...(o.body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {}
    const ok = (o.ok ?? ((s) => s === 200))(res.status);
    note(route, res.status, ok, ok ? '' : text);
    return { status: res.status, body, ok };
  } catch (e) {
    note(route, 'error', false, (e as Error).message);
    return { status: 0, body: null, ok: false };
  }
}

/** A fetch for an MCP client: paced like the agent's other requests, every answer noted by route. */
function mcpFetch(pace: Pace, kind: McpTransportKind): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    await pace.take();
    const method = (init?.method ?? 'GET').toUpperCase();
    const route = `${routeOf(method, String(url))} (${kind})`;
    try {
      const res = await fetch(url, init);
      const ok = transportOk(method, new URL(String(url)).pathname, res.status);
      note(route, res.status, ok, ok ? '' : await res.clone().text());
      return res;
    } catch (e) {
      // The client's own abort of a stream it closes is not an answer.
      if ((e as Error).name !== 'AbortError') note(route, 'error', false, (e as Error).message);
      throw e;
    }
  }) as typeof fetch;
}

// ---- agents: wallets that buy a key, use it, top up, and retire -------------------------------------------
interface Wallet {
  signer: KeyPairSigner;
  key: string;
  deposited: bigint;
  /** Paid calls answered 2xx (REST 200, MCP results without isError). */
  paid: number;
  depositSig: string;
}
const wallets: Wallet[] = [];

/** What /api/keys/me must say of a wallet: its deposits, less the price of each paid call beyond the free ones. */
function expected(w: Wallet) {
  const charged = BigInt(Math.max(0, w.paid - FREE_CALLS));
  return { creditLamports: String(w.deposited - charged * PRICE), freeCallsRemaining: Math.max(0, FREE_CALLS - w.paid), callsMade: w.paid };
}

async function checkLedger(w: Wallet, when: string) {
  const me = await request(addressPace, 'GET', '/api/keys/me', { headers: { 'x-api-key': w.key } });
  if (!me.ok) return;
  const want = expected(w);
  const got = { creditLamports: String(me.body.creditLamports), freeCallsRemaining: me.body.freeCallsRemaining, callsMade: me.body.callsMade };
  if (JSON.stringify(got) !== JSON.stringify(want)) ledgerProblems.push(`${w.signer.address} ${when}: /api/keys/me ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}

/** Waits until the watcher has seen the wallet's deposit, then claims it with a signed challenge. Returns the new key. */
async function claimDeposit(signer: KeyPairSigner): Promise<string | undefined> {
  const until = Date.now() + 4 * defaults.depositPollSeconds * 1000;
  for (;;) {
    const seen = await request(addressPace, 'GET', `/api/keys/deposit?wallet=${signer.address}`);
    if (seen.ok && seen.body.status === 'claimable') break;
    if (Date.now() > until) {
      note('watcher: deposit seen', 'late', false, `${signer.address} not claimable after ${(4 * defaults.depositPollSeconds).toFixed(0)} s`);
      return undefined;
    }
    await Bun.sleep(2000);
  }
  await challengePace.take();
  const challenge = await request(addressPace, 'GET', `/api/keys/challenge?wallet=${signer.address}`);
  if (!challenge.ok) return undefined;
  const signature = await signChallenge(signer, challenge.body.challenge);
  const claimed = await request(addressPace, 'POST', '/api/keys/claim', { body: { wallet: signer.address, signature, challenge: challenge.body.challenge } });
  return claimed.ok ? (claimed.body.apiKey as string) : undefined;
}

const PAID_REST = (w: Wallet) => [
  '/api/chain/optimal-fee',
  `/api/chain/find-ata?wallet=${w.signer.address}&mint=${mint}`,
  `/api/chain/token-accounts?wallet=${w.signer.address}`,
  `/api/chain/decode-tx?signature=${w.depositSig}`,
];
const FREE_REST = (w: Wallet) => ['/api/chain/blockhash', `/api/chain/balance?wallet=${w.signer.address}`];

/** One MCP session opened with the official SDK client, two paid tools and a free one called, then closed. */
async function mcpSession(pace: Pace, kind: McpTransportKind, w: Wallet | undefined) {
  const calls: [string, Record<string, unknown>, boolean][] = w
    ? [
        ['optimal_fee', {}, true],
        ['get_chain_balance', { wallet: w.signer.address }, false],
        ['find_ata', { wallet: w.signer.address, mint }, true],
      ]
    : [
        ['get_chain_blockhash', {}, false],
        ['get_chain_balance', { wallet: gatewayAddress }, false],
      ];
  let client: Awaited<ReturnType<typeof connectMcp>>;
  try {
    client = await connectMcp(base, kind, { headers: w ? { 'x-api-key': w.key } : undefined, fetch: mcpFetch(pace, kind) });
  } catch (e) {
    note(`MCP connect (${kind})`, 'error', false, (e as Error).message);
    return;
  }
  note(`MCP connect (${kind})`, 'ok', true);
  for (const [tool, args, paid] of calls) {
    const route = `MCP tools/call ${tool} (${kind})`;
    try {
      const r = await client.call(tool, args);
      note(route, r.isError ? 'isError' : 'ok', !r.isError, r.isError ? r.text : '');
      if (!r.isError && paid && w) w.paid++;
    } catch (e) {
      note(route, 'error', false, (e as Error).message);
    }
  }
  try {
    // Streamable HTTP: the session is ended with DELETE, as a client that is done should; legacy SSE: closing the stream ends it.
    if (kind === 'streamable-http') await (client.transport as { terminateSession(): Promise<void> }).terminateSession();
    await client.close();
    note(`MCP close (${kind})`, 'ok', true);
  } catch (e) {
    note(`MCP close (${kind})`, 'error', false, (e as Error).message);
  }
}

async function agent(lifetimeS: number) {
  const pace = new Pace(AGENT_RPS, AGENT_RPS);
  const signer = await chain.newWallet(100_000_000_000n);
  await chain.mintTo(mint, chain.payer, signer.address, 1_000_000n);
  const first = 10_000_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  const depositSig = await deposit(chain, signer, gatewayAddress, first);
  const key = await claimDeposit(signer);
  if (!key) return;
  const w: Wallet = { signer, key, deposited: first, paid: 0, depositSig };
  wallets.push(w);
  const born = Date.now();
  const retire = born + lifetimeS * 1000;
  let topUp: { lamports: bigint } | undefined;
  let toppedUp = false;
  for (let i = 0; Date.now() < Math.min(retire, deadline); i++) {
    const headers = { 'x-api-key': w.key };
    const paid = PAID_REST(w);
    const free = FREE_REST(w);
    if ((await request(pace, 'GET', paid[i % paid.length]!, { headers })).ok) w.paid++;
    await request(pace, 'GET', free[i % free.length]!, { headers });
    if (i % 20 === 10) await mcpSession(pace, 'streamable-http', w);
    if (i % 20 === 0) await mcpSession(pace, 'sse', w);
    if (i % 25 === 5) await checkLedger(w, `after ${w.paid} paid calls`);
    // Half-way through its life, a second deposit; its claim rotates the key.
    if (!toppedUp && Date.now() > born + (lifetimeS * 1000) / 2 && timeLeft() > 90_000) {
      toppedUp = true;
      topUp = { lamports: 1_000_000_000n + BigInt(Math.floor(Math.random() * 1_000_000)) };
      await deposit(chain, w.signer, gatewayAddress, topUp.lamports);
      const newKey = await claimDeposit(w.signer);
      if (newKey) {
        w.key = newKey;
        w.deposited += topUp.lamports;
        await checkLedger(w, 'after its top-up');
      }
    }
  }
  await checkLedger(w, 'at retirement');
}

/** A slot keeps one agent alive until the deadline: when one retires, a new wallet takes its place. */
async function slot(i: number) {
  // Staggered first lives, so retirements and new claims spread over the run.
  let life = (LIFETIME_S * (i + 1)) / AGENTS;
  while (timeLeft() > 60_000) {
    try {
      await agent(life);
    } catch (e) {
      note('agent (bench side)', 'error', false, (e as Error).stack ?? String(e));
      await Bun.sleep(1000);
    }
    life = LIFETIME_S;
  }
}

/** Clients without a key: free REST calls and keyless MCP sessions, all on the one address's pace. */
async function keyless() {
  for (let i = 0; timeLeft() > 0; i++) {
    await request(addressPace, 'GET', i % 2 ? '/api/chain/blockhash' : `/api/chain/balance?wallet=${gatewayAddress}`);
    if (i % 50 === 0) await request(addressPace, 'GET', '/healthz');
    if (i % 60 === 30) await mcpSession(addressPace, i % 120 === 30 ? 'sse' : 'streamable-http', undefined);
    await Bun.sleep(250);
  }
}

// ---- RSS over time ----------------------------------------------------------------------------------------
const samples: { t: number; rss: number; anon: number; file: number }[] = [];
async function sampler() {
  let next = Date.now();
  let report = loadStart + 5 * 60_000;
  while (timeLeft() > 0) {
    samples.push({ t: (Date.now() - loadStart) / 60_000, ...rss(gateway.pid) });
    if (Date.now() >= report) {
      const n = [...answers.values()].reduce((a, m) => a + [...m.values()].reduce((x, y) => x + y, 0), 0);
      const bad = [...unexpected.values()].reduce((a, u) => a + u.count, 0);
      console.log(`  t=${samples.at(-1)!.t.toFixed(0)} min: RSS ${samples.at(-1)!.rss.toFixed(1)} MB, ${n} answers, ${bad} unexpected, ${wallets.length} wallets`);
      report += 5 * 60_000;
    }
    next += SAMPLE_S * 1000;
    await Bun.sleep(Math.max(0, Math.min(next - Date.now(), timeLeft())));
  }
  samples.push({ t: (Date.now() - loadStart) / 60_000, ...rss(gateway.pid) });
}

/** Least-squares slope of y over t (per minute). */
function slope(points: { t: number; y: number }[]): number {
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const num = points.reduce((a, p) => a + (p.t - mt) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.t - mt) ** 2, 0);
  return den === 0 ? NaN : num / den;
}

const shown = `bun run bench:soak -- ${process.argv.slice(2).join(' ')}`.trim();
console.log(`command: ${shown}   (bun run build && bun bench/soak.ts; --minutes ${MINUTES} --agents ${AGENTS} --rps ${AGENT_RPS} --lifetime ${LIFETIME_S})`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at start; the load generator and the sandbox chain run on the same machine`);
console.log(`gateway: dist/gateway with the shipped defaults; set: ${Object.keys(gatewayEnv).join(', ')} (upstream = the sandbox chain); database ./data/gateway.sqlite in a fresh directory; stderr read and counted`);
console.log(`baseline: the same gateway idle after start: RSS ${idle.rss.toFixed(1)} MB (anon ${idle.anon.toFixed(1)}, file+shmem ${idle.file.toFixed(1)}); bar: RSS slope over the second half < ${SLOPE_BAR_MB_PER_MIN} MB/min, 0 unexpected answers, every key's credit exact`);
console.log(`load: ${AGENTS} wallets at a time at ${AGENT_RPS} req/s each, new wallet every ${LIFETIME_S} s per slot; keyless clients and key routes on one address at ${ADDRESS_RPS} req/s; challenges ${CHALLENGES_PER_MIN}/min`);

let exitCode = 1;
try {
  await Promise.all([sampler(), keyless(), ...Array.from({ length: AGENTS }, (_, i) => slot(i))]);
  // The final word on every key: every wallet of the run, its last key.
  for (const w of wallets) await checkLedger(w, 'at the end');
  const ranMin = (Date.now() - loadStart) / 60_000;

  const half = samples.filter((s) => s.t >= MINUTES / 2);
  const rssSlope = slope(half.map((s) => ({ t: s.t, y: s.rss })));
  const anonSlope = slope(half.map((s) => ({ t: s.t, y: s.anon })));
  const max = samples.reduce((m, s) => (s.rss > m.rss ? s : m), samples[0]!);
  console.log(`\nran ${ranMin.toFixed(1)} min (load until ${MINUTES} min, then the final ledger reads)`);
  console.log(`RSS: first ${samples[0]!.rss.toFixed(1)} MB, last ${samples.at(-1)!.rss.toFixed(1)} MB, max ${max.rss.toFixed(1)} MB at ${max.t.toFixed(1)} min; ${samples.length} samples every ${SAMPLE_S} s`);
  console.log(`RSS slope over the second half (${half.length} samples, least squares): ${rssSlope >= 0 ? '+' : ''}${rssSlope.toFixed(3)} MB/min (anon ${anonSlope >= 0 ? '+' : ''}${anonSlope.toFixed(3)}; bar < ${SLOPE_BAR_MB_PER_MIN}: ${rssSlope < SLOPE_BAR_MB_PER_MIN ? 'met' : 'NOT met'})`);
  const perMinute: string[] = [];
  for (let m = 0; m <= MINUTES; m += Math.max(1, Math.round(MINUTES / 10))) {
    const s = samples.find((x) => x.t >= m) ?? samples.at(-1)!;
    perMinute.push(`${m}: ${s.rss.toFixed(0)}`);
  }
  console.log(`RSS by minute (MB): ${perMinute.join(', ')}`);
  // Garbage waiting for a collection moves RSS up and down by several MB; what a leak cannot hide is
  // a rising floor: the lowest sample of each minute of the second half.
  const floors: { t: number; y: number }[] = [];
  for (let m = Math.floor(MINUTES / 2); m < MINUTES; m++) {
    const inMinute = half.filter((s) => s.t >= m && s.t < m + 1);
    if (inMinute.length) floors.push({ t: m + 0.5, y: Math.min(...inMinute.map((s) => s.rss)) });
  }
  const floorSlope = slope(floors);
  console.log(`slope of each minute's lowest RSS over the second half (${floors.length} minutes): ${floors.length < 2 ? 'n/a' : `${floorSlope >= 0 ? '+' : ''}${floorSlope.toFixed(3)} MB/min`}`);

  console.log('\nanswers by route and status:');
  // HTTP answers apart from what the MCP client reports of them (connects, tool results, closes), which would count them twice.
  let total = 0;
  let mcpResults = 0;
  for (const [route, byStatus] of [...answers].sort(([a], [b]) => a.localeCompare(b))) {
    const n = [...byStatus.values()].reduce((a, b) => a + b, 0);
    if (route.startsWith('MCP ')) mcpResults += n;
    else total += n;
    console.log(`  ${route.padEnd(52)} ${[...byStatus].map(([s, c]) => `${s}: ${c}`).join(', ')}`);
  }
  const unexpectedCount = [...unexpected.values()].reduce((a, u) => a + u.count, 0);
  console.log(`  ${total} HTTP answers in all (${(total / (ranMin * 60)).toFixed(1)}/s), and ${mcpResults} MCP results (connects, tool calls, closes)`);
  console.log(`\nunexpected answers: ${unexpectedCount}`);
  for (const [route, u] of unexpected) {
    console.log(`  ${route}: ${u.count}`);
    for (const ex of u.examples) console.log(`    ${ex}`);
  }

  const deposits = wallets.reduce((a, w) => a + w.deposited, 0n);
  const paid = wallets.reduce((a, w) => a + w.paid, 0);
  console.log(`\nledger: ${wallets.length} wallets (keys claimed during the run), ${deposits} lamports deposited and claimed, ${paid} paid calls answered 2xx at ${PRICE} lamports after ${FREE_CALLS} free calls per wallet`);
  console.log(`  every key's credit exact (credit, free calls left and calls made, at every read and at the end): ${ledgerProblems.length === 0 ? 'yes' : `NO, ${ledgerProblems.length} reads differ`}`);
  for (const p of ledgerProblems.slice(0, 20)) console.log(`    ${p}`);

  console.log(`\ngateway log: ${[...logLevels].map(([l, n]) => `${l} ${n}`).join(', ')} lines`);
  for (const [what, n] of logProblems) console.log(`  ${n} x ${what}`);

  const passed = rssSlope < SLOPE_BAR_MB_PER_MIN && unexpectedCount === 0 && ledgerProblems.length === 0 && wallets.length > 0;
  console.log(`\nverdict: ${passed ? 'PASS' : 'FAIL'} (slope ${rssSlope < SLOPE_BAR_MB_PER_MIN ? 'ok' : 'over'}, unexpected ${unexpectedCount}, ledger ${ledgerProblems.length === 0 ? 'exact' : 'NOT exact'})`);
  exitCode = passed ? 0 : 1;
} finally {
  gateway.kill('SIGTERM');
  const code = await Promise.race([gateway.exited, Bun.sleep(20_000).then(() => 'still running')]);
  if (code !== 0) {
    console.log(`gateway: SIGTERM answered with ${code}`);
    if (code === 'still running') gateway.kill('SIGKILL');
    exitCode = 1;
  }
  await chain.stop();
  rmSync(cwd, { recursive: true, force: true });
}
process.exit(exitCode);
