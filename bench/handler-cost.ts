// What the gateway's own code costs per call, without sockets: requests go straight into the
// Elysia app (app.handle) in this process, 64 at a time, and the process's CPU time is divided by
// the calls made. Steadier than req/s on a shared machine, and the number each hot-path change
// moves. The sandbox chain (same process) answers the few upstream calls the caches let through.
// Run: bun bench/handler-cost.ts [calls per route] [concurrency] [rounds, best kept]; BENCH_ONLY=<part of a name> for one route;
// BENCH_PG=1 for the PostgreSQL backend (a durable server started here; its own CPU is not this process's, so not counted).
import { cpus } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { buildApp } from '../src/app.ts';
import { defaultConfig, type Config } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { createServices } from '../src/services.ts';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { freshDatabase, startPostgres, stopPostgres } from '../tests/support/postgres.ts';
import { claimWhenSeen, deposit, heliusPayload, httpClient } from '../tests/support/agent.ts';

const calls = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 64);
const rounds = Number(process.argv[4] ?? 3);
process.env.NODE_ENV ??= 'production';

const chain = await startSandbox();
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-'));
const gatewayAddress = (await generateKeyPairSigner()).address;
const config: Config = {
  ...defaultConfig(),
  databasePath: join(dir, 'gw.sqlite'),
  databaseUrl: process.env.BENCH_PG ? await freshDatabase((await startPostgres({ durable: true })).url) : undefined,
  mainnetRpcUrls: [chain.url],
  devnetRpcUrls: [chain.url],
  gatewayAddress,
  webhookSecret: 'bench',
  depositPollSeconds: 0,
  rateLimitRps: 0,
  freeCalls: 0,
  priceLamports: 1000,
  logLevel: 'error',
};
const services = await createServices(config, createLogger('error', []));
const app = buildApp(services);
const BASE = 'http://gateway.local';
const send = (path: string, init?: RequestInit) => app.handle(new Request(BASE + path, init));
const http = httpClient(BASE, (url, init) => app.handle(new Request(url, init)));

try {
  const agent = await chain.newWallet(2_000_000_000_000n);
  const sig = await deposit(chain, agent, gatewayAddress, 1_000_000_000_000n);
  await http.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, 1_000_000_000_000n), { authorization: 'bench' });
  const key = await claimWhenSeen(http, agent, 0);
  const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
  // The agent holds the token, so its ATA exists: the answer an agent asks about again and again.
  await chain.mintTo(mint, chain.payer, agent.address, 1_000_000n);
  const paid = { 'x-api-key': key };
  const routes: [string, string, Record<string, string>][] = [
    ['healthz', '/healthz', {}],
    ['free blockhash', '/api/chain/blockhash', {}],
    ['paid find-ata', `/api/chain/find-ata?wallet=${agent.address}&mint=${mint}`, paid],
    ['paid optimal-fee', '/api/chain/optimal-fee', paid],
    ['GET /api/keys/me', '/api/keys/me', paid],
  ];

  // One Streamable HTTP session, opened by hand: initialize, then the initialized notification.
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...paid };
  const init = await send('/mcp', {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  await init.text();
  const session = { ...mcpHeaders, 'mcp-session-id': init.headers.get('mcp-session-id')! };
  await (await send('/mcp', { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  let rpcId = 1;
  const toolCall = () => ({ method: 'POST', headers: session, body: `{"jsonrpc":"2.0","id":${rpcId++},"method":"tools/call","params":{"name":"optimal_fee","arguments":{}}}` });
  routes.push(['paid MCP optimal_fee', '/mcp', session]);
  // The same call on the stateless 2026-07-28 revision, as the official v2 client sends it.
  const stateless = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'optimal_fee', ...paid };
  const envelope = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}';
  const statelessCall = () => ({ method: 'POST', headers: stateless, body: `{"jsonrpc":"2.0","id":${rpcId++},"method":"tools/call","params":{"name":"optimal_fee","arguments":{},${envelope}}}` });
  routes.push(['paid MCP 2026 optimal_fee', '/mcp?stateless', stateless]);

  async function measure(path: string, headers: Record<string, string>, n: number) {
    let next = 0;
    let bad = 0;
    const cpu = process.cpuUsage();
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) {
          const res = await send(path, path === '/mcp' ? toolCall() : path === '/mcp?stateless' ? statelessCall() : { headers });
          await res.arrayBuffer();
          if (res.status !== 200) bad++;
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / n, wallUs: ((performance.now() - t) * 1000) / n, bad };
  }

  console.log(`command: bun bench/handler-cost.ts ${calls} ${concurrency} ${rounds}`);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, bun ${Bun.version}`);
  const chosen = routes.filter(([name]) => name.includes(process.env.BENCH_ONLY ?? ''));
  for (const [, path, headers] of chosen) await measure(path, headers, Math.min(calls, 2000)); // warm-up
  // Rounds go through the routes in turn, and each route keeps its least disturbed round.
  const best = new Map<string, Awaited<ReturnType<typeof measure>>>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, path, headers] of chosen) {
      const r = await measure(path, headers, calls);
      if (!best.has(name) || r.cpuUs < best.get(name)!.cpuUs) best.set(name, r);
    }
  }
  for (const [name, r] of best) {
    console.log(`${name.padEnd(22)} ${r.cpuUs.toFixed(1).padStart(7)} µs CPU/call ${r.wallUs.toFixed(1).padStart(7)} µs wall/call${r.bad ? `  (${r.bad} not 200)` : ''}`);
  }
} finally {
  await services.close();
  await chain.stop();
  await stopPostgres();
  rmSync(dir, { recursive: true, force: true });
}
