// What the wire benchmarks share: wrk against a URL with the serving process's CPU time per
// request, a gateway's key bought the real way, and a Streamable HTTP session's tools/call as a
// wrk script.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Address } from '@solana/kit';
import type { Sandbox } from '../tests/support/sandbox/index.ts';
import { claimWhenSeen, deposit, heliusPayload, httpClient } from '../tests/support/agent.ts';

export interface WrkResult {
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** CPU time the serving process spent per answered request (µs): steadier than req/s on a busy machine. */
  cpuUs: number;
}

/** The compiled binary an operator runs (`bun run build` makes it): what the benches measure. */
export const EXE = resolve(import.meta.dir, '../dist/gateway');

/** EXE, or a clear stop saying to build it first. */
export function builtGateway(): string {
  if (!existsSync(EXE)) throw new Error('dist/gateway is missing: bun run build first (the bench:* scripts that measure it do)');
  return EXE;
}

const CLOCK_TICKS_PER_S = 100;
/** User plus system CPU time of a process so far, from /proc (ms). */
export function cpuMs(pid: number): number {
  return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

function cpuMsOfStat(stat: string): number {
  const fields = stat.split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

/** cpuMs() summed over every process named `name` (postgres: the server and its backends). */
export function cpuMsOfAll(name: string): number {
  let ms = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.includes(`(${name})`)) ms += cpuMsOfStat(stat);
    } catch {}
  }
  return ms;
}

/** Busy CPU time (ms) of the whole machine, every core: all but idle and waiting on I/O. */
export function machineCpuMs(): number {
  const n = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return ((n.reduce((a, b) => a + b, 0) - n[3]! - n[4]!) * 1000) / CLOCK_TICKS_PER_S;
}

/** One wrk run (one thread, closed loop) against `url`, served by process `pid`. */
export async function wrk(url: string, pid: number, o: { seconds: number; connections: number; headers?: Record<string, string>; script?: string }): Promise<WrkResult> {
  const cpuBefore = cpuMs(pid);
  const args = ['wrk', '-t1', `-c${o.connections}`, `-d${o.seconds}s`];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (o.script) args.push('-s', o.script);
  args.push(url);
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no rate:\n${out}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  return { rps, requests, non2xx, errors, cpuUs: ((cpuMs(pid) - cpuBefore) * 1000) / requests };
}

export async function waitFor(url: string) {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    if (i > 400) throw new Error(`${url} did not start`);
    await Bun.sleep(25);
  }
}

/** A key bought the real way: a deposit on the sandbox chain, the webhook, a challenge, a signature, the claim. */
export async function buyKey(base: string, chain: Sandbox, gatewayAddress: Address, secret: string, lamports = 1_000_000_000_000n) {
  const http = httpClient(base);
  const agent = await chain.newWallet(lamports * 2n);
  const sig = await deposit(chain, agent, gatewayAddress, lamports);
  await http.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, lamports), { authorization: secret });
  return { agent, key: await claimWhenSeen(http, agent, 0) };
}

/**
 * A Streamable HTTP session opened with the official SDK client, and a wrk script that POSTs
 * tools/call optimal_fee on it with ids counting up.
 */
export async function mcpSessionScript(base: string, key: string, dir: string, name = 'mcp-call.lua') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { 'x-api-key': key } } });
  await client.connect(transport);
  const probe = (await client.callTool({ name: 'optimal_fee', arguments: {} })) as { isError?: boolean; content: { text: string }[] };
  if (probe.isError) throw new Error(`MCP optimal_fee failed: ${probe.content[0]?.text}`);
  const script = join(dir, name);
  writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
wrk.headers["mcp-session-id"] = "${transport.sessionId}"
wrk.headers["mcp-protocol-version"] = "${transport.protocolVersion ?? '2025-06-18'}"
wrk.headers["x-api-key"] = "${key}"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/call","params":{"name":"optimal_fee","arguments":{}}}')
end
`,
  );
  return { script, close: () => client.close() };
}

/**
 * A wrk script posting the same call on the stateless 2026-07-28 revision: no session, the
 * per-request envelope and headers exactly as the official v2 client sends them. Checked once first.
 */
export async function mcpStatelessScript(base: string, key: string, dir: string, name = 'mcp-modern-call.lua') {
  const call = (id: number | string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"optimal_fee","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/call', 'mcp-name': 'optimal_fee', 'mcp-protocol-version': '2026-07-28', 'x-api-key': key };
  const probe = await fetch(base + '/mcp', { method: 'POST', headers, body: call(0) });
  const answer = (await probe.json()) as { result?: { isError?: boolean } };
  if (probe.status !== 200 || answer.result?.isError !== false) throw new Error(`stateless MCP optimal_fee failed: ${JSON.stringify(answer)}`);
  const script = join(dir, name);
  writeFileSync(
    script,
    `wrk.method = "POST"
${Object.entries(headers)
  .map(([k, v]) => `wrk.headers["${k}"] = "${v}"`)
  .join('\n')}
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, '${call("' .. n .. '")}')
end
`,
  );
  return script;
}

/**
 * How a bench runs the gateway. `defaults`: as shipped (access log at info, rate limits on) except
 * that the limit is set at a rate no load generator reaches, so the limiter does all its work and
 * refuses nothing. `stripped`: no access line (LOG_LEVEL=warn) and no limiter, the floor the
 * defaults are held against.
 */
export type BenchConfig = 'defaults' | 'stripped' | 'access-log' | 'limits';

const UNREACHED_LIMITS = { RATE_LIMIT_RPS: '1000000000', RATE_LIMIT_BURST: '1000000000' };
export const BENCH_CONFIGS: Record<BenchConfig, Record<string, string>> = {
  defaults: { LOG_LEVEL: 'info', ...UNREACHED_LIMITS },
  stripped: { LOG_LEVEL: 'warn', RATE_LIMIT_RPS: '0' },
  // One of the two at a time, to tell their costs apart (bench/ab.ts configs).
  'access-log': { LOG_LEVEL: 'info', RATE_LIMIT_RPS: '0' },
  limits: { LOG_LEVEL: 'warn', ...UNREACHED_LIMITS },
};

/** Reads a child's stderr as fast as it comes and drops it: a log shipper that keeps up. */
export function drain(stream: ReadableStream<Uint8Array> | number | undefined): void {
  if (!(stream instanceof ReadableStream)) return;
  void (async () => {
    for await (const _ of stream);
  })();
}
