// The MCP endpoints attacked as a hostile client would: foreign origins and hosts (DNS rebinding),
// someone else's session id, one address holding every session, floods of cheap messages, huge
// batches and calls before initialize. Real server on loopback, real SQLite, the sandbox chain;
// a second client address is a real second loopback source address (127.0.0.2).
import { beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import type { TestGateway } from '../support/gateway.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { Config } from '../../src/config.ts';
import { fundedKey } from '../support/agent.ts';
import { connectMcp, eventually, fetchFrom, openRawSse, TRANSPORTS } from '../support/mcp.ts';

const PRICE = 2_200_000;
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const HTTP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

const sandbox = sandboxGateways(async () => ({ gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_mcp_security', freeCalls: 0 }));
const gateway = (overrides?: Partial<Config>) => sandbox.gateway(overrides);
let mint: Address;
/** Every session id a test saw: none may appear in any log line. */
const seenSessionIds = new Set<string>();

beforeAll(async () => {
  mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
});

/** Opens a raw legacy SSE session; returns the stream and its messages URL. */
async function rawSse(gw: TestGateway, headers: Record<string, string> = {}) {
  const sse = await openRawSse(`${gw.url}/mcp/sse`, headers);
  expect(sse.response.status).toBe(200);
  const endpoint = (await sse.next())!.data;
  seenSessionIds.add(new URL(endpoint, gw.url).searchParams.get('sessionId')!);
  const post = (body: unknown, h: Record<string, string> = {}, via: typeof fetch = fetch) =>
    via(`${gw.url}${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, ...h }, body: JSON.stringify(body) });
  return { sse, endpoint, post };
}

/** Opens a raw Streamable HTTP session; returns its id and a poster. */
async function rawHttp(gw: TestGateway, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, ...headers }, body: JSON.stringify(INIT) });
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id')!;
  seenSessionIds.add(id);
  const post = (body: unknown, h: Record<string, string> = {}) =>
    fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18', ...headers, ...h }, body: JSON.stringify(body) });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { id, post };
}

const credit = async (gw: TestGateway, key: string) => (await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports as number;

describe('Origin and Host (DNS rebinding)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway({ mcpAllowedOrigins: ['agent.example.org'] });
  });

  test('a foreign Origin gets 403 with a clear JSON body on all three endpoints, and opens no session', async () => {
    const evil = { origin: 'http://evil.example.com' };
    const sse = await fetch(`${gw.url}/mcp/sse`, { headers: evil });
    const init = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, ...evil }, body: JSON.stringify(INIT) });
    const { endpoint, sse: stream } = await rawSse(gw);
    const msg = await fetch(`${gw.url}${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', ...evil }, body: JSON.stringify(INIT) });
    try {
      for (const res of [sse, init, msg]) {
        expect(res.status).toBe(403);
        const body = (await res.json()) as any;
        expect(body).toMatchObject({ error: 'Origin not allowed', live_status: 'FAILED' });
        expect(body.hint).toContain('MCP_ALLOWED_ORIGINS');
      }
      expect(gw.services.mcp.size()).toBe(1); // only the clean one
      // Nothing reached the clean session's stream either.
      await expect(stream.nextEvent(300)).rejects.toThrow('no SSE event');
    } finally {
      stream.close();
    }
    // The server drops the clean session when it sees the disconnect; the next test counts from zero.
    expect(await eventually(() => gw.services.mcp.size() === 0)).toBe(true);
  });

  test('a foreign Host on a loopback-bound gateway gets 403 too', async () => {
    const { hostname, port } = new URL(gw.url);
    const res = await rawRequest(hostname, Number(port), `POST /mcp HTTP/1.1\r\nHost: evil.example.com:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${JSON.stringify(INIT).length}\r\nConnection: close\r\n\r\n${JSON.stringify(INIT)}`);
    expect(res).toStartWith('HTTP/1.1 403');
    expect(res).toContain('Host not allowed');
    expect(gw.services.mcp.size()).toBe(0);
  });

  test('localhost origins (any port), the listen address and the allow-list are accepted', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'https://agent.example.org']) {
      const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, origin }, body: JSON.stringify(INIT) });
      expect(res.status).toBe(200);
      await res.text();
      seenSessionIds.add(res.headers.get('mcp-session-id')!);
    }
  });

  test('bound to all interfaces, any Host is served but a foreign Origin is still refused', async () => {
    const open = await gateway({ host: '0.0.0.0' });
    const { hostname, port } = new URL(open.url);
    const body = JSON.stringify(INIT);
    const ok = await rawRequest(hostname, Number(port), `POST /mcp HTTP/1.1\r\nHost: gateway.example.net\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(ok).toStartWith('HTTP/1.1 200');
    const bad = await fetch(`${open.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, origin: 'https://evil.example.com' }, body });
    expect(bad.status).toBe(403);
  });
});

/** One raw HTTP/1.1 exchange (fetch will not send a Host header of our choosing). */
async function rawRequest(hostname: string, port: number, request: string): Promise<string> {
  let text = '';
  const { promise, resolve } = Promise.withResolvers<string>();
  const socket = await Bun.connect({
    hostname,
    port,
    socket: {
      data(_s, d) {
        text += new TextDecoder().decode(d);
      },
      close() {
        resolve(text);
      },
    },
  });
  socket.write(request);
  return promise;
}

describe('a session id is not a credential', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway();
  });

  test('legacy SSE: a foreign client posting to a keyed session spends nothing and writes nothing on its stream', async () => {
    const owner = await fundedKey(gw, sandbox.chain, 2 * PRICE);
    const thief = await fundedKey(gw, sandbox.chain, 2 * PRICE);
    const { sse, post } = await rawSse(gw, { 'x-api-key': owner.key });
    try {
      expect((await post(INIT)).status).toBe(202);
      await sse.nextEvent();
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const other = fetchFrom('127.0.0.2') as typeof fetch;
      const attempts = [
        await post(toolCall(2, 'find_ata', { wallet: owner.wallet, mint }), { 'x-api-key': '' }, other), // keyless, other address
        await post(toolCall(3, 'find_ata', { wallet: owner.wallet, mint }), { 'x-api-key': thief.key }), // another key, same address
        await post(toolCall(4, 'find_ata', { wallet: owner.wallet, mint }), { 'x-api-key': '' }), // no key at all
      ];
      for (const res of attempts) {
        expect(res.status).toBe(403);
        expect(((await res.json()) as any).error).toBe('This MCP session was opened with other credentials');
      }
      await expect(sse.nextEvent(300)).rejects.toThrow('no SSE event');
      expect(await credit(gw, owner.key)).toBe(2 * PRICE);
      expect(await credit(gw, thief.key)).toBe(2 * PRICE);
      // The owner, with its own key on the request, is served and charged once.
      expect((await post(toolCall(5, 'find_ata', { wallet: owner.wallet, mint }))).status).toBe(202);
      expect(JSON.parse((await sse.nextEvent())!.data).id).toBe(5);
      expect(await credit(gw, owner.key)).toBe(PRICE);
    } finally {
      sse.close();
    }
  });

  test('legacy SSE: a keyless session takes messages only from the address that opened it', async () => {
    const { sse, post } = await rawSse(gw);
    try {
      const res = await post(INIT, {}, fetchFrom('127.0.0.2') as typeof fetch);
      expect(res.status).toBe(403);
      await expect(sse.nextEvent(300)).rejects.toThrow('no SSE event');
      expect((await post(INIT)).status).toBe(202);
      expect(JSON.parse((await sse.nextEvent())!.data).id).toBe(1);
    } finally {
      sse.close();
    }
  });

  test('Streamable HTTP: a foreign client using a keyed session id spends nothing', async () => {
    const owner = await fundedKey(gw, sandbox.chain, 2 * PRICE);
    const { id, post } = await rawHttp(gw, { 'x-api-key': owner.key });
    const other = fetchFrom('127.0.0.2') as typeof fetch;
    const stolen = await other(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...HTTP_HEADERS, 'mcp-session-id': id },
      body: JSON.stringify(toolCall(2, 'find_ata', { wallet: owner.wallet, mint })),
    });
    expect(stolen.status).toBe(403);
    const otherKey = await post(toolCall(3, 'find_ata', { wallet: owner.wallet, mint }), { 'x-api-key': 'cig_someone_else_000000000000000000000000' });
    expect(otherKey.status).toBe(403);
    expect(await credit(gw, owner.key)).toBe(2 * PRICE);
    const own = await post(toolCall(4, 'find_ata', { wallet: owner.wallet, mint }));
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"isError":false');
    expect(await credit(gw, owner.key)).toBe(PRICE);
  });

  test('official clients: a foreign session id refused on both transports, the REST balance unchanged', async () => {
    for (const kind of TRANSPORTS) {
      const owner = await fundedKey(gw, sandbox.chain, PRICE);
      const c = await connectMcp(gw.url, kind, { headers: { 'x-api-key': owner.key } });
      try {
        const id = (c.transport as { sessionId?: string }).sessionId ?? [...gw.services.mcp.list()].at(-1)!.id;
        seenSessionIds.add(id);
        const other = fetchFrom('127.0.0.2') as typeof fetch;
        const res =
          kind === 'sse'
            ? await other(`${gw.url}/mcp/messages?sessionId=${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(toolCall(9, 'find_ata', { wallet: owner.wallet, mint })) })
            : await other(`${gw.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, 'mcp-session-id': id }, body: JSON.stringify(toolCall(9, 'find_ata', { wallet: owner.wallet, mint })) });
        expect(res.status).toBe(403);
        expect(await credit(gw, owner.key)).toBe(PRICE);
        expect((await c.call('find_ata', { wallet: owner.wallet, mint })).isError).toBe(false);
        expect(await credit(gw, owner.key)).toBe(0);
      } finally {
        await c.close();
      }
    }
  });
});

describe('sessions per client', () => {
  test('one address at its cap: its next session gets 429, while a second client still opens one and calls a tool', async () => {
    const gw = await gateway({ mcpMaxSessionsPerAddress: 3 });
    const held = [await rawSse(gw), await rawSse(gw), await rawHttp(gw)];
    try {
      const sse = await fetch(`${gw.url}/mcp/sse`);
      expect(sse.status).toBe(429);
      expect(((await sse.json()) as any).error).toBe('Too many MCP sessions for this client');
      const init = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: HTTP_HEADERS, body: JSON.stringify(INIT) });
      expect(init.status).toBe(429);
      expect(gw.services.mcp.size()).toBe(3);
      for (const kind of TRANSPORTS) {
        const second = await connectMcp(gw.url, kind, { fetch: fetchFrom('127.0.0.2') });
        try {
          expect((await second.call('get_chain_blockhash')).isError).toBe(false);
        } finally {
          await second.close();
        }
      }
      // A client with a valid key counts against its key, not the crowded address.
      const { key } = await fundedKey(gw, sandbox.chain, PRICE);
      const keyed = await connectMcp(gw.url, 'streamable-http', { headers: { 'x-api-key': key } });
      expect((await keyed.call('get_chain_blockhash')).isError).toBe(false);
      await keyed.close();
      // An invented key does not escape the address cap.
      expect((await fetch(`${gw.url}/mcp/sse`, { headers: { 'x-api-key': 'cig_invented_0000000000000000000000000000' } })).status).toBe(429);
    } finally {
      for (const h of held) if ('sse' in h) h.sse.close();
    }
  });

  test('one key at its cap: 429, room again after a close', async () => {
    const gw = await gateway({ mcpMaxSessionsPerKey: 2 });
    const { key } = await fundedKey(gw, sandbox.chain, PRICE);
    const a = await connectMcp(gw.url, 'sse', { headers: { 'x-api-key': key } });
    const b = await connectMcp(gw.url, 'streamable-http', { headers: { 'x-api-key': key } });
    try {
      const third = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...HTTP_HEADERS, 'x-api-key': key }, body: JSON.stringify(INIT) });
      expect(third.status).toBe(429);
      expect(((await third.json()) as any).hint).toContain('One API key');
      await a.close();
      expect(await eventually(() => gw.services.mcp.size() === 1)).toBe(true);
      const again = await connectMcp(gw.url, 'sse', { headers: { 'x-api-key': key } });
      await again.close();
    } finally {
      await b.close();
    }
  });
});

describe('every MCP message is rate limited like REST', () => {
  test('initialize, ping and tools/list draw tokens: beyond the bucket they get 429, and so does REST', async () => {
    const gw = await gateway({ rateLimitRps: 0.01, rateLimitBurst: 5 });
    const { sse, post } = await rawSse(gw); // 1 token
    try {
      expect((await post(INIT)).status).toBe(202); // 2
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }); // 3
      expect((await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(202); // 4
      expect((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(202); // 5
      const refused = await post({ jsonrpc: '2.0', id: 4, method: 'ping' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBeString();
      expect(((await refused.json()) as any).error).toBe('Too many requests');
      expect((await gw.get('/api/chain/blockhash')).status).toBe(429);
      expect((await fetch(`${gw.url}/mcp/sse`)).status).toBe(429); // opening a session costs a token too
      const init = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: HTTP_HEADERS, body: JSON.stringify(INIT) });
      expect(init.status).toBe(429);
      expect(gw.services.mcp.size()).toBe(1);
    } finally {
      sse.close();
    }
  });

  test('a flood of 300 POSTs from one address: no more than the bucket is served', async () => {
    const gw = await gateway({ rateLimitRps: 1, rateLimitBurst: 40 });
    const { sse, post } = await rawSse(gw);
    try {
      const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => post({ jsonrpc: '2.0', id: i, method: 'ping' }).then((r) => r.status)));
      expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(41);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(259);
    } finally {
      sse.close();
    }
  });
});

describe('batches and calls before initialize', () => {
  test('a batch beyond mcpMaxBatch is a JSON-RPC error and delivers nothing, on both transports', async () => {
    const gw = await gateway({ mcpMaxBatch: 5 });
    const batch = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/list' }));
    const { sse, post } = await rawSse(gw);
    try {
      expect((await post(INIT)).status).toBe(202);
      await sse.nextEvent();
      const res = await post(batch);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('at most 5') } });
      await expect(sse.nextEvent(300)).rejects.toThrow('no SSE event');
      expect((await post(batch.slice(0, 5))).status).toBe(202); // at the cap is fine
    } finally {
      sse.close();
    }
    const http = await rawHttp(gw);
    const res = await http.post(batch);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32600);
  });

  test('legacy SSE: tools/call before initialize is refused and costs nothing', async () => {
    const gw = await gateway();
    const { key, wallet } = await fundedKey(gw, sandbox.chain, PRICE);
    const { sse, post } = await rawSse(gw, { 'x-api-key': key });
    try {
      const res = await post(toolCall(1, 'find_ata', { wallet, mint }));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: expect.stringContaining('initialize') } });
      await expect(sse.nextEvent(300)).rejects.toThrow('no SSE event');
      expect(await credit(gw, key)).toBe(PRICE);
      expect((await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(202); // ping is allowed
    } finally {
      sse.close();
    }
  });
});

test('no session id ever reached a log line, at any level', async () => {
  expect(seenSessionIds.size).toBeGreaterThan(5);
  for (const gw of sandbox.gateways) for (const s of gw.services.mcp.list()) seenSessionIds.add(s.id);
  const lines = sandbox.gateways.flatMap((g) => g.logs);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.filter((l) => [...seenSessionIds].some((id) => l.includes(id)))).toEqual([]);
});
