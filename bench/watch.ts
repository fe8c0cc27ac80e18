// Watches at scale (issue 40): 1,000 watched wallets on the sandbox chain, SOL transfers to them at a
// steady rate, and how long from each transaction's confirmation (the moment the sandbox lands it and
// notifies its WebSocket subscribers) until it is heard of:
// - ingest: the ingester hands it to the watches (recordActivity), the ingester running as its own
//   process (tests/support/ingest-process.ts) on a SQLite file;
// - webhook: a loopback receiver gets the signed POST, from the compiled gateway (dist/gateway, the
//   shipped defaults; BENCH_SOURCE=1: `bun src/main.ts`) with watches (POST /api/watches);
// - MCP: in the same run, a subscriber (the official SDK client, Streamable HTTP) subscribed to each
//   watch's events resource reads the new events (watch_events after its cursor) each time it is
//   told (notifications/resources/updated): until it has read the event, not just been told.
// Also: events per second sustained, and the resident memory of that process with 1,000 watched
// wallets against the same process with none (the same-run baseline).
// Run: bun run bench:watch [events/s=100] [seconds=20] [wallets=1000]   (builds dist/gateway first)
import { cpus, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { startSandbox, type Sandbox } from '../tests/support/sandbox/index.ts';
import { claimWhenSeen, deposit, heliusPayload, httpClient } from '../tests/support/agent.ts';
import { eachLine, freePort, MAIN, sandboxGatewayEnv } from '../tests/support/process.ts';
import { within } from '../tests/support/poll.ts';
import { builtGateway, cpuMs, waitFor } from './wire.ts';
import { connectMcp } from '../tests/support/mcp.ts';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 20);
const walletCount = Number(process.argv[4] ?? 1000);
/** Transfers signed and not landed yet, at most. */
const IN_FLIGHT = 16;
const now = () => performance.timeOrigin + performance.now();

console.log(`command: bun bench/watch.ts ${rate} ${seconds} ${walletCount} (${process.env.BENCH_SOURCE === '1' ? 'BENCH_SOURCE=1: bun src/main.ts' : 'dist/gateway'})`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

/** CPU seconds (user + system) a process has used. */
const cpuSeconds = (pid: number) => cpuMs(pid) / 1000;
const gatewayCommand = process.env.BENCH_SOURCE === '1' ? ['bun', MAIN] : [builtGateway()];
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Waits until `cond`, or throws naming `what` after `timeoutMs`. */
async function until(cond: () => boolean, timeoutMs: number, what: string) {
  if ((await within(timeoutMs, cond, 20)) === null) throw new Error(`timed out: ${what}`);
}

/**
 * Sends `rate` transfers a second for `seconds` to the wallets in turn (from a few senders), each at
 * its due time without waiting for the one before (signing overlaps; the chain lands them one by one);
 * when each landed, by signature.
 */
async function traffic(chain: Sandbox, senders: KeyPairSigner[], wallets: string[]): Promise<Map<string, number>> {
  const landed = new Map<string, number>();
  const total = Math.round(rate * seconds);
  const start = now();
  const sent = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - now();
    if (wait > 0) await Bun.sleep(wait);
    // A transaction signed too long before it lands outlives its blockhash (150 slots, one transaction each here).
    while (sent.size >= IN_FLIGHT) await Promise.race(sent);
    const p: Promise<void> = chain.transferSol(senders[i % senders.length]!, wallets[i % wallets.length] as never, 1_000_000n + BigInt(i), { skipPreflight: true }).then((sig) => {
      landed.set(sig, now());
      sent.delete(p);
    });
    sent.add(p);
  }
  await Promise.all(sent);
  const late = now() - (start + (total * 1000) / rate);
  if (late > 1000) console.log(`  (the sandbox fell behind the rate by ${ms(late)}: the figures are at a lower rate)`);
  return landed;
}

function report(label: string, landed: Map<string, number>, heard: Map<string, number>) {
  const lat = [...landed].flatMap(([sig, at]) => (heard.has(sig) ? [heard.get(sig)! - at] : [])).sort((a, b) => a - b);
  const lost = landed.size - lat.length;
  const times = [...heard.values()];
  const first = Math.min(...landed.values());
  const span = (Math.max(...times) - first) / 1000;
  console.log(`  ${label}: ${lat.length} of ${landed.size} heard (${lost} missing); confirmation -> ${label}: p50 ${ms(pct(lat, 50))}, p99 ${ms(pct(lat, 99))}, max ${ms(lat[lat.length - 1]!)}; ${(lat.length / span).toFixed(1)} events/s sustained`);
  // When in the run the slowest were confirmed: a cluster at the start is warm-up, one spread out a stall.
  const slowest = [...landed].filter(([sig]) => heard.has(sig)).sort((a, b) => heard.get(b[0])! - b[1] - (heard.get(a[0])! - a[1])).slice(0, 5);
  console.log(`  its 5 slowest were confirmed at ${slowest.map(([, at]) => `${((at - first) / 1000).toFixed(1)} s`).join(', ')} into the run`);
}

const chain = await startSandbox();
const senders = await Promise.all(Array.from({ length: 8 }, () => chain.newWallet(1_000_000_000_000n)));
const wallets = (await Promise.all(Array.from({ length: walletCount }, () => generateKeyPairSigner()))).map((k) => k.address);
// Each wallet exists before it is watched (its first transfer is history, not news).
for (const w of wallets) await chain.transferSol(senders[0]!, w as never, 1_000_000n);

// ---- ingest: the ingester as its own process, idle and with the wallets watched ----
async function ingestRun(watched: string[]) {
  const heard = new Map<string, number>();
  let settled = false;
  const proc = Bun.spawn(['bun', join(import.meta.dir, '../tests/support/ingest-process.ts')], {
    env: { ...process.env, INGEST_RPC_URL: chain.url, INGEST_WALLETS: watched.join(',') },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  void eachLine(proc.stdout as ReadableStream<Uint8Array>, (l) => {
    if (l === 'settled') settled = true;
    const m = /^recorded \S+ (\S+) ([\d.]+)$/.exec(l);
    if (m) heard.set(m[1]!, Number(m[2]));
  });
  await until(() => settled, 180_000, 'ingestion settled');
  await Bun.sleep(3000);
  Bun.gc(true);
  return { proc, heard, rss: rssMb(proc.pid) };
}

console.log('\ningest (confirmation -> recordActivity), ingester process on SQLite:');
const idle = await ingestRun([]);
idle.proc.kill(9);
const busy = await ingestRun(wallets);
console.log(`  RSS: ${idle.rss.toFixed(1)} MB with no watched wallet, ${busy.rss.toFixed(1)} MB with ${walletCount} (+${(busy.rss - idle.rss).toFixed(1)} MB) before traffic`);
const cpuBefore = cpuSeconds(busy.proc.pid);
const landed = await traffic(chain, senders, wallets);
await until(() => [...landed.keys()].every((s) => busy.heard.has(s)), 60_000, 'every transfer recorded').catch((e) => console.log(`  ${e.message}`));
report('ingest', landed, busy.heard);
console.log(`  ingester CPU: ${(((cpuSeconds(busy.proc.pid) - cpuBefore) * 1000) / landed.size).toFixed(2)} ms per event`);
console.log(`  RSS after traffic: ${rssMb(busy.proc.pid).toFixed(1)} MB (+${(rssMb(busy.proc.pid) - idle.rss).toFixed(1)} MB over idle)`);
busy.proc.kill(9);

/**
 * One MCP client subscribed to every watch's events resource: told that one changed, it reads that
 * watch's new events after its cursor (one read at a time per watch), and notes when each arrived.
 */
async function mcpSubscriber(base: string, headers: Record<string, string>, resources: string[]) {
  const mcp = await connectMcp(base, 'streamable-http', { headers });
  const read = new Map<string, number>();
  const cursors = new Map<string, string>();
  const reading = new Map<string, Promise<void>>();
  const readNew = async (uri: string) => {
    const id = /watches\/(wch_[0-9a-f]+)\/events/.exec(uri)![1]!;
    for (;;) {
      const r = await mcp.call('watch_events', { id, after: cursors.get(id) ?? '0', limit: 100 });
      const at = now();
      for (const e of r.body.events as { signature: string }[]) if (!read.has(e.signature)) read.set(e.signature, at);
      cursors.set(id, r.body.nextCursor);
      if (r.body.events.length < 100) return;
    }
  };
  (mcp.client as any).setNotificationHandler(ResourceUpdatedNotificationSchema, (n: { params: { uri: string } }) => {
    const uri = n.params.uri;
    reading.set(uri, (reading.get(uri) ?? Promise.resolve()).then(() => readNew(uri)).catch(() => {}));
  });
  for (const uri of resources) {
    await (mcp.client as any).subscribeResource({ uri });
    await readNew(uri);
  }
  return { read, close: () => mcp.close() };
}

// ---- webhook and MCP: the whole gateway ----
async function webhookRun() {
  const SECRET = 'bench-secret';
  const dir = mkdtempSync(join(tmpdir(), 'cig-bench-watch-'));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const gateway = Bun.spawn(gatewayCommand, {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...sandboxGatewayEnv({ chainUrl: chain.url, dir, gatewayAddress, webhookSecret: SECRET }), WEBHOOK_ALLOW_PRIVATE: 'true', PRICES: '', WATCH_MAX_PER_KEY: '20' },
    stdout: 'inherit',
    stderr: 'inherit',
  });
  const heard = new Map<string, number>();
  const receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const at = now();
      const body = (await req.json()) as { signature?: string };
      if (body.signature) heard.set(body.signature, Math.min(heard.get(body.signature) ?? Infinity, at));
      return new Response(null, { status: 204 });
    },
  });
  const http = httpClient(base);
  try {
    await waitFor(base + '/healthz');
    const agent = await chain.newWallet(2_000_000_000_000n);
    const sig = await deposit(chain, agent, gatewayAddress, 1_000_000_000_000n);
    await http.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, 1_000_000_000_000n), { authorization: SECRET });
    const key = await claimWhenSeen(http, agent, 0);
    const H = { 'x-api-key': key };
    Bun.gc(true);
    const idleRss = rssMb(gateway.pid);
    const probe = await http.post('/api/watches', { wallets: [wallets[0]], webhookUrl: `http://127.0.0.1:${receiver.port}/hook` }, H);
    if (probe.status !== 201) return console.log(`  skipped: POST /api/watches answered ${probe.status} ${JSON.stringify(probe.body)}`);
    const resources = [probe.body.eventsResource as string];
    // As many watches as the per-watch limit asks for (100 wallets, the default), all with the same
    // receiver: one key's 1,000 wallets take 11, so the bench allows a key 20 (WATCH_MAX_PER_KEY).
    for (let i = 1; i < wallets.length; ) {
      let per = wallets.length - i;
      let res;
      for (;;) {
        res = await http.post('/api/watches', { wallets: wallets.slice(i, i + per), webhookUrl: `http://127.0.0.1:${receiver.port}/hook` }, H);
        if (res.status !== 400 || per === 1) break;
        per = Math.max(1, Math.floor(per / 2));
      }
      if (res.status !== 201) return console.log(`  skipped: POST /api/watches answered ${res.status} ${JSON.stringify(res.body)}`);
      resources.push(res.body.eventsResource);
      i += per;
    }
    const subscriber = await mcpSubscriber(base, H, resources);
    await Bun.sleep(5000);
    Bun.gc(true);
    const watchedRss = rssMb(gateway.pid);
    console.log(`  gateway RSS: ${idleRss.toFixed(1)} MB idle, ${watchedRss.toFixed(1)} MB with ${walletCount} watched wallets (+${(watchedRss - idleRss).toFixed(1)} MB)`);
    const sent = await traffic(chain, senders, wallets);
    await until(() => [...sent.keys()].every((s) => heard.has(s)), 60_000, 'every webhook').catch((e) => console.log(`  ${e.message}`));
    report('webhook', sent, heard);
    await until(() => [...sent.keys()].every((s) => subscriber.read.has(s)), 60_000, 'every event read over MCP').catch((e) => console.log(`  ${e.message}`));
    report('MCP read', sent, subscriber.read);
    await subscriber.close();
    console.log(`  gateway RSS after traffic: ${rssMb(gateway.pid).toFixed(1)} MB (+${(rssMb(gateway.pid) - idleRss).toFixed(1)} MB over idle)`);
  } finally {
    receiver.stop(true);
    gateway.kill();
    await gateway.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log('\nwebhook (confirmation -> the receiver has the POST) and MCP (confirmation -> a subscriber told of it has read it), the whole gateway:');
await webhookRun();
await chain.stop();
process.exit(0);
