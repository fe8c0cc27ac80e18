// Smoke test of the built executable, run by .ci/run after `bun run build`: dist/gateway copied
// alone into an empty folder starts, creates its database, and serves real data from the sandbox.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { EXAMPLES } from '../../src/capabilities/recorded-examples.ts';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { freePort, waitForHealthy } from '../support/process.ts';

const BINARY = join(import.meta.dir, '../../dist/gateway');
const sandbox = sandboxGateways();
let dir: string;
let proc: ReturnType<typeof Bun.spawn>;
let url: string;

beforeAll(async () => {
  if (!existsSync(BINARY)) throw new Error('dist/gateway is missing: run `bun run build` first');
  dir = mkdtempSync(join(tmpdir(), 'cig-smoke-'));
  copyFileSync(BINARY, join(dir, 'gateway'));
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  // A clean environment: nothing from this checkout leaks in but what is passed here.
  proc = Bun.spawn([join(dir, 'gateway')], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: tmpdir(), PORT: String(port), HOST: '127.0.0.1', MAINNET_RPC_URLS: sandbox.chain.url, DEVNET_RPC_URLS: sandbox.chain.url },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  await waitForHealthy(url, { ms: 15_000, proc, why: () => new Response(proc.stderr as ReadableStream).text() });
});

afterAll(async () => {
  proc?.kill('SIGTERM');
  await proc?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('it created its database in the folder it runs from', () => {
  expect(existsSync(join(dir, 'data', 'gateway.sqlite'))).toBe(true);
});

test('/healthz and /.well-known/mcp.json answer', async () => {
  const health = await fetch(url + '/healthz').then((r) => r.json() as Promise<any>);
  expect(health.status).toBe('ok');
  const manifest = await fetch(url + '/.well-known/mcp.json').then((r) => r.json() as Promise<any>);
  expect(manifest.mcp_sse_endpoint).toBe('/mcp/sse');
  expect(manifest.tools.map((t: { name: string }) => t.name)).toContain('get_chain_balance');
});

test('the binary carries the OpenAPI document with its recorded examples, and /llms.txt', async () => {
  const doc = await fetch(url + '/openapi.json').then((r) => r.json() as Promise<any>);
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/api/chain/decode-tx'].get.responses['200'].content['application/json'].example).toEqual(EXAMPLES['decode-tx']!.response);
  const llms = await fetch(url + '/llms.txt').then((r) => r.text());
  expect(llms).toContain('MCP tool `decode_tx`');
});

test("a balance call returns the sandbox chain's real balance", async () => {
  const wallet = await sandbox.chain.newWallet(2_718_281_828n);
  const res = await fetch(`${url}/api/chain/balance?wallet=${wallet.address}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body.balance_lamports).toBe(2_718_281_828);
  expect(body.live_status).toBe('SUCCESS');
});

test('the lone binary serves the docs and claim pages with their scripts embedded', async () => {
  for (const page of ['/docs', '/claim']) {
    const html = await (await fetch(url + page)).text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length, page).toBe(1);
    const js = await fetch(url + scripts[0]);
    expect(js.status, page).toBe(200);
    expect((await js.text()).length, page).toBeGreaterThan(5000);
  }
});

test('/metrics parses as Prometheus text and counted the balance call; /readyz is ready', async () => {
  const { default: parse } = await import('parse-prometheus-text-format');
  const families = parse(await fetch(url + '/metrics').then((r) => r.text()));
  const requests = families.find((f) => f.name === 'gateway_http_requests_total')!;
  expect(requests.metrics.some((m) => m.labels?.route === '/api/chain/balance' && m.labels?.status === '200')).toBe(true);
  const until = Date.now() + 15_000;
  while ((await fetch(url + '/readyz')).status !== 200 && Date.now() < until) await Bun.sleep(200);
  expect((await fetch(url + '/readyz')).status).toBe(200);
});

test('gateway stats --json reads the database while the server runs; a bad setting is one line and exit 2', async () => {
  const stats = Bun.spawnSync([join(dir, 'gateway'), 'stats', '--json'], { cwd: dir, env: { PATH: '/usr/bin:/bin' } });
  expect(stats.exitCode).toBe(0);
  expect(JSON.parse(stats.stdout.toString()).keys).toEqual({ active: 0, revoked: 0, wallets: 0 });
  const bad = Bun.spawnSync([join(dir, 'gateway'), '--port', '70000'], { cwd: dir, env: { PATH: '/usr/bin:/bin' }, stderr: 'pipe' });
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr.toString().trim().split('\n')).toEqual([expect.stringContaining('PORT')]);
});
