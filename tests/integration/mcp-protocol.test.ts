// MCP protocol details over raw HTTP, where official clients would hide them: malformed requests,
// the standalone GET stream of a Streamable HTTP session, and 2026-07-28 stateless requests.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { rpcAnswers } from '../support/mcp.ts';

const HTTP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let chain: Sandbox;
let gw: TestGateway;

beforeAll(async () => {
  chain = await startSandbox();
  gw = await startGateway({ mainnetRpcUrls: [chain.url], devnetRpcUrls: [chain.url], mcpKeepAliveSeconds: 15 });
});
afterAll(async () => {
  await gw.stop();
  await chain.stop();
});

async function session() {
  const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: HTTP_HEADERS, body: JSON.stringify(INIT) });
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id')!;
  const headers = { ...HTTP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  await fetch(`${gw.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const post = async (body: unknown) => rpcAnswers(await fetch(`${gw.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) }));
  return { id, headers, post };
}

describe('a body that is not JSON', () => {
  const PARSE_ERROR = { jsonrpc: '2.0', error: { code: -32700, message: expect.stringMatching(/^Parse error/) }, id: null };

  test('is JSON-RPC -32700 on /mcp and /mcp/messages, served or in process, with a length or chunked; REST keeps its 400', async () => {
    const sse = await fetch(`${gw.url}/mcp/sse`);
    const reader = sse.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const messages = /data: (\S+)/.exec(first)![1]!;
    try {
      const chunked = () => new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new TextEncoder().encode('{"jsonrpc":')), c.close()) });
      for (const path of ['/mcp', messages]) {
        for (const body of ['{"jsonrpc":', ' ', chunked()]) {
          const res = await fetch(gw.url + path, { method: 'POST', headers: HTTP_HEADERS, body, duplex: 'half' } as RequestInit);
          expect(res.status).toBe(400);
          expect(await res.json()).toMatchObject(PARSE_ERROR);
        }
        // In process, Elysia's own route (the direct one is Bun's router's) answers alike.
        const inProcess = await gw.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: HTTP_HEADERS, body: '[{' }));
        expect(inProcess.status).toBe(400);
        expect(await inProcess.json()).toMatchObject(PARSE_ERROR);
      }
      const rest = await gw.post('/api/chain/simulate', '{"transaction":');
      expect(rest).toMatchObject({ status: 400, body: { error: 'Malformed request body' } });
    } finally {
      await reader.cancel();
    }
  });
});

describe('malformed tools/call', () => {
  test.each([
    ['arguments that are not an object', { name: 'get_chain_balance', arguments: 'wallet=abc' }],
    ['a name that is not a string', { name: 42, arguments: {} }],
    ['no params at all', undefined],
  ])('%s: -32602 with a short message, no internals', async (_what, params) => {
    const { post } = await session();
    const [answer] = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', ...(params === undefined ? {} : { params }) });
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message.length).toBeLessThan(300);
    expect(JSON.stringify(answer.error)).not.toMatch(/"path"|"expected"|ZodError|\n\s+at /);
  });
});

describe('the standalone GET stream', () => {
  test('GET /mcp sends its headers at once, not at the first keep-alive', async () => {
    const { headers } = await session();
    const started = performance.now();
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(res.headers.get('content-type')).toStartWith('text/event-stream');
    abort.abort();
  });

  test('a second GET replaces the first instead of a 409; the session keeps one stream', async () => {
    const { id, headers } = await session();
    const first = new AbortController();
    const a = await fetch(`${gw.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' }, signal: first.signal });
    const b = await fetch(`${gw.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const s = gw.services.mcp.get(id)!;
    // The first stream was ended by the server.
    const reader = a.body!.getReader();
    let ended = false;
    for (let i = 0; i < 5 && !ended; i++) ended = (await reader.read()).done;
    expect(ended).toBe(true);
    expect(s.streams).toBe(1);
    await b.body!.cancel();
  });
});

describe('2026-07-28: stateless requests', () => {
  test('server/discover names the revisions and the tools capability; no session is created', async () => {
    const before = gw.services.mcp.size();
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...HTTP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'd1', method: 'server/discover', params: { _meta: MODERN_META } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const [answer] = await rpcAnswers(res);
    expect(answer.result.supportedVersions).toContain('2026-07-28');
    expect(answer.result.capabilities.tools).toBeDefined();
    expect(gw.services.mcp.size()).toBe(before);
  });

  test('tools/call without any handshake answers at once', async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...HTTP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_chain_blockhash' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_chain_blockhash', arguments: {}, _meta: MODERN_META } }),
    });
    expect(res.status).toBe(200);
    const [answer] = await rpcAnswers(res);
    expect(JSON.parse(answer.result.content[0].text)).toMatchObject({ live_status: 'SUCCESS' });
  });
});
