// What an offline first run shows, against the real server process: one start-up warning that
// names the sandbox chain (not a line per failed probe attempt), and a /readyz that says why each
// network is not ready without quoting an RPC URL (they carry API keys).
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { freePort, spawnGateway, type GatewayProcess } from '../support/process.ts';

const RPC_SECRET = 'rpcK3yUNREACHABLE';

let chain: Sandbox;
let dir: string;
let gw: GatewayProcess;

beforeAll(async () => {
  chain = await startSandbox();
  chain.fault({ mode: 'hang' });
  dir = mkdtempSync(join(tmpdir(), 'cig-unreachable-'));
  gw = await spawnGateway({
    DATABASE_PATH: join(dir, 'gw.sqlite'),
    // Nothing listens on a port just freed: connection refused.
    MAINNET_RPC_URLS: `http://127.0.0.1:${freePort()}/?api-key=${RPC_SECRET}`,
    // Two URLs: each failure is named by position.
    DEVNET_RPC_URLS: `${chain.url}/?api-key=${RPC_SECRET},http://127.0.0.1:${freePort()}/${RPC_SECRET}`,
    RPC_TIMEOUT_MS: '400',
    READY_WINDOW_SECONDS: '3',
  });
});

afterAll(async () => {
  await gw?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function readyz() {
  const res = await fetch(gw.url + '/readyz');
  return { status: res.status, text: await res.text() };
}

test('/readyz names why each network is not ready, with no URL or key in it', async () => {
  const until = Date.now() + 10_000;
  let r = await readyz();
  while (!JSON.parse(r.text).upstreamErrors.devnet?.startsWith('#1 no answer within') && Date.now() < until) {
    await Bun.sleep(100);
    r = await readyz();
  }
  expect(r.status).toBe(503);
  const body = JSON.parse(r.text);
  expect(body.upstreams).toEqual({ 'mainnet-beta': null, devnet: null });
  expect(body.upstreamErrors).toEqual({ 'mainnet-beta': 'unreachable: connection refused', devnet: '#1 no answer within 0.4 s; #2 unreachable: connection refused' });
  expect(r.text).not.toContain(RPC_SECRET);
  expect(r.text).not.toContain('127.0.0.1');
}, 20_000);

test('start-up warns once, naming the sandbox and the settings to point at it; a network back is logged once too', async () => {
  // Three probe rounds (every second with a 3 s window) after the first one.
  await Bun.sleep(3_500);
  const warnings = gw.lines.filter((l) => l.includes('WARN'));
  const hint = warnings.filter((l) => l.includes('no upstream answers'));
  expect(hint).toHaveLength(1);
  expect(hint[0]).toContain('bun run sandbox');
  expect(hint[0]).toContain('MAINNET_RPC_URLS');
  expect(hint[0]).toContain('DEVNET_RPC_URLS');
  expect(hint[0]).toContain('mainnet-beta (unreachable: connection refused)');
  expect(hint[0]).toContain('devnet (#1 no answer within 0.4 s; #2 unreachable: connection refused)');
  // The probe's own attempts are not logged one by one.
  expect(warnings.filter((l) => l.includes('upstream attempt failed'))).toEqual([]);
  expect(gw.lines.join('\n')).not.toContain(RPC_SECRET);

  chain.fault(null);
  const until = Date.now() + 10_000;
  let r = await readyz();
  while (r.status !== 200 && Date.now() < until) {
    await Bun.sleep(100);
    r = await readyz();
  }
  expect(r.status).toBe(200);
  expect(JSON.parse(r.text).upstreamErrors).toEqual({ 'mainnet-beta': 'unreachable: connection refused' });
  await Bun.sleep(2_500);
  expect(gw.lines.filter((l) => l.includes('upstreams answer again'))).toHaveLength(1);
  expect(gw.lines.filter((l) => l.includes('no upstream answers'))).toHaveLength(1);
}, 30_000);
