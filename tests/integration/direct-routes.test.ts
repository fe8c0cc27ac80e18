// The hot routes Bun's router answers directly (src/direct-route.ts) must answer exactly as the
// Elysia routes they shadow: the same statuses, bodies and money for the same requests, hostile
// ones included, with the same metrics; and what a direct handler throws is a JSON 500, not Bun's page.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { serve } from '../../src/serve.ts';
import { createServices } from '../../src/services.ts';
import { fundedKey } from '../support/agent.ts';
import type { TestGateway } from '../support/gateway.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';

const PRICE = 1000;
// Enough for the gateway address to hold it (rent), a whole number of calls.
const DEPOSIT = 10_000 * PRICE;
const sandbox = sandboxGateways(async () => ({
  gatewayAddress: (await generateKeyPairSigner()).address,
  webhookSecret: 'direct-secret',
  priceLamports: PRICE,
  freeCalls: 0,
}));

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** The same request over the wire (Bun's router) and in process (app.handle: Elysia's route), as status, type and body text. */
async function bothWays(gw: TestGateway, path: string, init: RequestInit = {}) {
  const text = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), body: await res.text() });
  const wire = await text(await fetch(gw.url + path, init));
  // The Host a client on the wire sends, which the MCP route checks on a loopback gateway.
  const headers = { ...(init.headers as Record<string, string> | undefined), host: new URL(gw.url).host };
  const elysia = await text(await gw.app.handle(new Request(gw.url + path, { ...init, headers })));
  return { wire, elysia };
}

describe('direct routes', () => {
  test('answer every request as the Elysia route does, refusals included', async () => {
    const gw = await sandbox.gateway();
    const { key, wallet } = await fundedKey(gw, sandbox.chain, DEPOSIT);
    const paid = { 'x-api-key': key };
    // Answers the callers get right: the query read alike (the last of a repeated name wins, escapes decoded).
    for (const [path, network] of [
      ['/api/chain/blockhash?network=devnet&network=mainnet-beta', 'mainnet-beta'],
      ['/api/solana/blockhash?network=%64evnet', 'devnet'],
    ]) {
      const { wire, elysia } = await bothWays(gw, path!);
      expect([wire.status, JSON.parse(wire.body).network]).toEqual([200, network]);
      expect([elysia.status, JSON.parse(elysia.body).network]).toEqual([200, network]);
    }
    // Refusals, to the byte.
    const refused: [string, RequestInit?][] = [
      ['/api/chain/blockhash?network=bogus'],
      ['/api/chain/find-ata?wallet=nope&mint=nope', { headers: paid }],
      [`/api/chain/find-ata?wallet=${wallet}`, { headers: paid }],
      ['/api/chain/optimal-fee?computeUnits=0', { headers: paid }],
      ['/api/chain/token-accounts?wallet=' + wallet], // paid, without a key: 402
      ['/api/keys/me'],
      ['/api/keys/me', { headers: { 'x-api-key': 'cig_not-a-key' } }],
      ['/mcp', { method: 'POST', headers: MCP_HEADERS, body: '{not json' }],
      ['/mcp', { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ x: 'a'.repeat(70_000) }) }],
      ['/mcp', { method: 'POST', headers: MCP_HEADERS, body: 'null' }],
      ['/mcp', { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-session-id': 'stolen-or-made-up' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }],
      ['/mcp', { method: 'POST', headers: { ...MCP_HEADERS, origin: 'https://evil.example' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }],
    ];
    for (const [path, init] of refused) {
      const { wire, elysia } = await bothWays(gw, path, init);
      expect({ path, ...wire }).toEqual({ path, ...elysia });
      expect(wire.status).toBeGreaterThanOrEqual(400);
    }
    // Refusals cost nothing on either path.
    expect((await gw.get('/api/keys/me', paid)).body.creditLamports).toBe(DEPOSIT);
  });

  test('a paid call is debited once per call on either path, and the balance it reports is exact', async () => {
    const gw = await sandbox.gateway();
    const { key } = await fundedKey(gw, sandbox.chain, DEPOSIT);
    const paid = { 'x-api-key': key };
    const wire = await fetch(`${gw.url}/api/chain/optimal-fee`, { headers: paid });
    expect(wire.status).toBe(200);
    expect(wire.headers.get('x-credits-remaining')).toBe(String(DEPOSIT - PRICE));
    const inProcess = await gw.app.handle(new Request('http://127.0.0.1/api/chain/optimal-fee', { headers: paid }));
    expect(inProcess.status).toBe(200);
    expect(inProcess.headers.get('x-credits-remaining')).toBe(String(DEPOSIT - 2 * PRICE));
    const me = await gw.get('/api/keys/me', paid);
    expect(me.body).toMatchObject({ creditLamports: DEPOSIT - 2 * PRICE, callsMade: 2, paidCallsAvailable: DEPOSIT / PRICE - 2 });
  });

  test('HEAD on a paid route is refused and costs nothing, on either path; on a free route it is answered', async () => {
    const gw = await sandbox.gateway();
    const { key, wallet } = await fundedKey(gw, sandbox.chain, DEPOSIT);
    const paid = { 'x-api-key': key };
    for (const path of ['/api/chain/optimal-fee', `/api/solana/token-accounts?wallet=${wallet}`, `/api/chain/transactions?wallet=${wallet}`]) {
      const wire = await fetch(gw.url + path, { method: 'HEAD', headers: paid });
      const inProcess = await gw.app.handle(new Request(gw.url + path, { method: 'HEAD', headers: paid }));
      for (const res of [wire, inProcess]) {
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('GET');
      }
    }
    const me = await gw.get('/api/keys/me', paid);
    expect(me.body).toMatchObject({ creditLamports: DEPOSIT, callsMade: 0 });
    expect((await gw.get('/api/keys/me/usage', paid)).body.calls).toEqual([]);
    expect((await fetch(`${gw.url}/api/chain/blockhash`, { method: 'HEAD' })).status).toBe(200);
  });

  test('are counted in the metrics under their route and face, by method and status', async () => {
    const gw = await sandbox.gateway();
    const metric = async (labels: string) => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      return Number(text.match(new RegExp(`^gateway_http_requests_total\\{${labels}\\} (\\d+)$`, 'm'))?.[1] ?? 0);
    };
    // The registry is the process's: other gateways of this file count into it too, so counts are compared as deltas.
    const series = [
      'route="/api/chain/blockhash",method="GET",status="200",face="rest"',
      'route="/api/chain/blockhash",method="GET",status="400",face="rest"',
      'route="/mcp",method="POST",status="400",face="mcp"',
    ];
    const before = await Promise.all(series.map(metric));
    for (let i = 0; i < 3; i++) expect((await fetch(`${gw.url}/api/chain/blockhash`)).status).toBe(200);
    expect((await fetch(`${gw.url}/api/chain/blockhash?network=bogus`)).status).toBe(400);
    expect((await fetch(`${gw.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: '{bad' })).status).toBe(400);
    // The trailing-slash form reaches the Elysia route: counted under the same template.
    expect((await fetch(`${gw.url}/api/chain/blockhash/`)).status).toBe(200);
    const after = await Promise.all(series.map(metric));
    expect(after.map((n, i) => n - before[i]!)).toEqual([4, 1, 1]);
  });
});

describe('a direct handler that throws', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cig-direct-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('is answered with the JSON 500 and logged, and the server keeps serving', async () => {
    const lines: string[] = [];
    const config = { ...defaultConfig(), host: '127.0.0.1', port: 0, databasePath: join(dir, 'gw.sqlite'), depositPollSeconds: 0, rateLimitRps: 0 };
    const log = createLogger('debug', [], (line) => lines.push(line));
    const services = await createServices(config, log);
    const app = buildApp(services);
    // A fault no real handler produces on demand: one that throws.
    app.direct.push({ method: 'GET', path: '/api/chain/broken', handle: () => Promise.reject(new Error('boom at the bottom')) });
    const listening = serve(app, log, { port: 0, hostname: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${listening.port}`;
      const res = await fetch(`${url}/api/chain/broken`);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await res.json()).toEqual({ error: 'Internal server error', live_status: 'FAILED' });
      expect(lines.some((l) => l.includes('unhandled error') && l.includes('boom at the bottom'))).toBe(true);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await listening.server.stop(true);
      await services.close();
    }
  });
});
