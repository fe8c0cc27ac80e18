// A session's SDK Server exists only while the session is in use (src/mcp/session-servers.ts):
// idle sessions hold none, a later request gets a new one that knows the session's initialize,
// a request in flight keeps its Server however long it takes, and a plain tools/call on a
// Streamable HTTP session needs none at all. Over the wire, against the real server.
import { beforeAll, describe, expect, test } from 'bun:test';
import type { TestGateway } from '../support/gateway.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { connectMcp, eventually, openRawSse, TRANSPORTS } from '../support/mcp.ts';
import { LINGER_MS } from '../../src/mcp/session-servers.ts';
import type { McpSession } from '../../src/mcp/sessions.ts';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { WATCH_TOOL_NAMES } from '../../src/watch/mcp.ts';

/** The capabilities' tools and the watch tools. */
const TOOL_COUNT = CAPABILITIES.length + WATCH_TOOL_NAMES.length;

const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const hello = (protocolVersion: string) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

const sandbox = sandboxGateways();
let gw: TestGateway;

beforeAll(async () => {
  // A slow node must answer, not time out: one test holds a call open for several lingers.
  gw = await sandbox.gateway({ mcpMaxSessionsPerAddress: 10_000, rpcTimeoutMs: 10_000 });
});

/** Waits until the session has no Server (LINGER_MS after its last request, checked every half of it). */
const serverless = (s: McpSession | undefined) => eventually(() => s !== undefined && s.live === undefined, LINGER_MS * 4);

/** Opens a Streamable HTTP session by hand; returns its id and a way to POST on it. */
async function httpSession(protocolVersion = '2025-11-25') {
  const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(hello(protocolVersion)) });
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id')!;
  const post = async (body: unknown, version = protocolVersion) => {
    const r = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...JSON_AND_SSE, 'mcp-session-id': id, 'mcp-protocol-version': version }, body: JSON.stringify(body) });
    const text = await r.text();
    // An SDK answer comes as one SSE event, a direct one as JSON.
    const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
    return { status: r.status, body: data ? JSON.parse(data) : undefined, raw: text };
  };
  return { id, session: () => gw.services.mcp.get(id), post };
}

describe('Streamable HTTP', () => {
  test('an idle session holds no Server; a request that needs one gets the same answers as before', async () => {
    const s = await httpSession();
    const before = await s.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(before.status).toBe(200);
    expect(before.body.result.tools.length).toBe(TOOL_COUNT);
    expect(await serverless(s.session())).toBe(true);

    const after = await s.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(after).toEqual(before);
    const prompts = await s.post({ jsonrpc: '2.0', id: 3, method: 'prompts/list' });
    expect(prompts.body.result.prompts.length).toBeGreaterThan(0);
    // The new Server checks the session's headers as the first one did.
    const wrongVersion = await s.post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, '1999-01-01');
    expect(wrongVersion.status).toBe(400);
  });

  test('a plain tools/call on an idle session is answered without making a Server', async () => {
    const s = await httpSession();
    expect(await serverless(s.session())).toBe(true);
    const call = await s.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_chain_blockhash', arguments: {} } });
    expect(call.status).toBe(200);
    expect(call.body.result.structuredContent.blockhash).toBeString();
    expect(s.session()!.live).toBeUndefined();
  });

  test('a request the SDK serves, slower than the linger, keeps its Server until its answer is out', async () => {
    const s = await httpSession();
    expect(await serverless(s.session())).toBe(true);
    sandbox.chain.fault({ mode: 'slow', delayMs: LINGER_MS * 3 }, { methods: ['getBalance'] });
    try {
      // `_meta` takes the call off the direct path: the SDK answers it, on an event stream.
      const pending = s.post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_chain_balance', arguments: { wallet: '11111111111111111111111111111111' }, _meta: { progressToken: 5 } } });
      await Bun.sleep(LINGER_MS * 2.5);
      expect(s.session()!.live).toBeDefined();
      const call = await pending;
      expect(call.status).toBe(200);
      expect(call.body.id).toBe(5);
      expect(call.body.result.isError).toBe(false);
      expect(await serverless(s.session())).toBe(true);
    } finally {
      sandbox.chain.fault(null);
    }
  });

  test('DELETE on an idle session ends it', async () => {
    const s = await httpSession();
    expect(await serverless(s.session())).toBe(true);
    const res = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': s.id, 'mcp-protocol-version': '2025-11-25' } });
    expect(res.status).toBe(200);
    expect(await eventually(() => s.session() === undefined)).toBe(true);
    expect((await s.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(404);
  });

  test('a GET stream is served without a Server, stays open past the linger, and ends with the session', async () => {
    const s = await httpSession();
    const stream = await openRawSse(`${gw.url}/mcp`, { 'mcp-session-id': s.id, 'mcp-protocol-version': '2025-11-25' });
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toStartWith('text/event-stream');
      expect(await serverless(s.session())).toBe(true);
      expect(s.session()!.streams).toBe(1);
      // Requests go on beside it, and leave no Server behind.
      expect((await s.post({ jsonrpc: '2.0', id: 2, method: 'ping' })).body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
      expect(await serverless(s.session())).toBe(true);
      const res = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': s.id, 'mcp-protocol-version': '2025-11-25' } });
      expect(res.status).toBe(200);
      // The stream ends with the session: the reader sees its end, after the opening comment.
      let e = await stream.next();
      while (e !== null) e = await stream.next();
      expect(s.session()).toBeUndefined();
    } finally {
      stream.close();
    }
  });

  test('a GET stream the SDK would refuse is refused alike: wrong Accept 406, unknown revision 400; a second GET replaces the first', async () => {
    const s = await httpSession();
    const get = (headers: Record<string, string>) => fetch(`${gw.url}/mcp`, { headers: { 'mcp-session-id': s.id, ...headers } });
    const wrongAccept = await get({ accept: 'application/json' });
    expect(wrongAccept.status).toBe(406);
    expect(await wrongAccept.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Not Acceptable: Client must accept text/event-stream' }, id: null });
    const wrongVersion = await get({ accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' });
    expect(wrongVersion.status).toBe(400);
    expect((await wrongVersion.json()).error.message).toStartWith('Bad Request: Unsupported protocol version: 1999-01-01');
    const first = await openRawSse(`${gw.url}/mcp`, { 'mcp-session-id': s.id });
    const second = await openRawSse(`${gw.url}/mcp`, { 'mcp-session-id': s.id });
    try {
      expect(second.response.status).toBe(200);
      let e = await first.next();
      while (e !== null) e = await first.next(); // the first stream was ended
      expect(s.session()!.streams).toBe(1);
    } finally {
      first.close();
      second.close();
    }
    expect(await eventually(() => s.session()!.streams === 0)).toBe(true);
  });

  test.each(SUPPORTED_PROTOCOL_VERSIONS)('a plain initialize of %s opens a session without a Server, answered byte for byte as a Server answers it', async (version) => {
    const open = async (capabilities: Record<string, unknown>) => {
      const body = { jsonrpc: '2.0', id: 'init-1', method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'raw', version: '1' } } };
      const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(body) });
      const id = res.headers.get('mcp-session-id')!;
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text(), session: gw.services.mcp.get(id) };
    };
    const direct = await open({});
    expect(direct.session?.live).toBeUndefined(); // no Server was made for it
    // Asking for a capability takes the initialize to the SDK, which answers the same result.
    const viaServer = await open({ roots: { listChanged: true } });
    expect(viaServer.session?.live).toBeDefined();
    expect(direct.status).toBe(200);
    expect(direct).toMatchObject({ status: viaServer.status, type: viaServer.type, text: viaServer.text });
    expect(direct.session!.id).not.toBe(viaServer.session!.id);
  });

  test('notifications/initialized after a plain initialize needs no Server: 202 with no body, as the SDK answers it', async () => {
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const direct = await httpSession();
    const viaServer = await httpSession();
    // A Server for the second session, which then answers the notification itself.
    expect((await viaServer.post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(200);
    expect(viaServer.session()!.live).toBeDefined();
    const fromServer = await viaServer.post(initialized);
    const fromRecord = await direct.post(initialized);
    expect(fromRecord).toEqual(fromServer);
    expect(fromRecord.status).toBe(202);
    expect(direct.session()!.live).toBeUndefined();
    // The session goes on as any other.
    const call = await direct.post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_chain_blockhash', arguments: {} } });
    expect(call.body.result.structuredContent.blockhash).toBeString();
  });

  test('a refused initialize leaves no session behind', async () => {
    const before = gw.services.mcp.size();
    const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(hello('2025-11-25')) });
    expect(res.status).toBe(406);
    expect(await eventually(() => gw.services.mcp.size() === before)).toBe(true);
  });
});

describe('legacy SSE', () => {
  /** An SSE session by hand, initialized; its messages answered on the stream. */
  async function sseSession() {
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    const endpoint = (await sse.nextEvent())!.data;
    const id = endpoint.split('sessionId=')[1]!;
    const send = async (body: unknown) => {
      const r = await fetch(`${gw.url}${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(r.status).toBe(202);
    };
    await send(hello('2024-11-05'));
    const init = JSON.parse((await sse.nextEvent())!.data);
    expect(init.result.protocolVersion).toBe('2024-11-05');
    return { sse, id, session: () => gw.services.mcp.get(id), send, answer: async () => JSON.parse((await sse.nextEvent())!.data) };
  }

  test('an idle session holds no Server and keeps its stream; the next request is answered on it, once', async () => {
    const s = await sseSession();
    try {
      await s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const before = await s.answer();
      expect(before.result.tools.length).toBe(TOOL_COUNT);
      expect(await serverless(s.session())).toBe(true);

      await s.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      const after = await s.answer();
      // The replayed initialize was answered to nobody: the next event is this request's answer.
      expect(after.id).toBe(3);
      expect(after.result).toEqual(before.result);
      await s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_chain_blockhash', arguments: {} } });
      const call = await s.answer();
      expect(call.id).toBe(4);
      expect(call.result.structuredContent.blockhash).toBeString();
      // Nothing else came: the next thing on the stream is a keep-alive or nothing at all.
      await expect(s.sse.nextEvent(300)).rejects.toThrow();
    } finally {
      s.sse.close();
    }
  });

  test('a request slower than the linger keeps its Server until it is answered', async () => {
    const s = await sseSession();
    try {
      sandbox.chain.fault({ mode: 'slow', delayMs: LINGER_MS * 3 }, { methods: ['getBalance'] });
      await s.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_chain_balance', arguments: { wallet: '11111111111111111111111111111111' } } });
      await Bun.sleep(LINGER_MS * 2.5);
      expect(s.session()!.live).toBeDefined(); // still answering
      const call = await s.answer();
      expect(call.id).toBe(9);
      expect(call.result.isError).toBe(false);
      expect(await serverless(s.session())).toBe(true);
    } finally {
      sandbox.chain.fault(null);
      s.sse.close();
    }
  });

  test.each(SUPPORTED_PROTOCOL_VERSIONS)('a plain initialize of %s and notifications/initialized open a session without a Server, answered as a Server answers', async (version) => {
    const open = async (capabilities: Record<string, unknown>) => {
      const sse = await openRawSse(`${gw.url}/mcp/sse`);
      const endpoint = (await sse.nextEvent())!.data;
      const session = gw.services.mcp.get(endpoint.split('sessionId=')[1]!)!;
      const post = (body: unknown) => fetch(`${gw.url}${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const init = await post({ jsonrpc: '2.0', id: 'init-1', method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'raw', version: '1' } } });
      const answer = JSON.parse((await sse.nextEvent())!.data);
      const done = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return { sse, session, statuses: [init.status, done.status], answer };
    };
    const direct = await open({});
    const viaServer = await open({ roots: { listChanged: true } });
    try {
      expect(direct.session.live).toBeUndefined(); // no Server was made for it
      expect(viaServer.session.live).toBeDefined();
      expect(direct.statuses).toEqual([202, 202]);
      expect(direct.statuses).toEqual(viaServer.statuses);
      expect(direct.answer).toEqual(viaServer.answer);
      expect(direct.answer.result.protocolVersion).toBe(version);
      // The session goes on as any other: the Server made now knows its initialize.
      const send = (body: unknown) => fetch(`${gw.url}/mcp/messages?sessionId=${direct.session.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(202);
      const list = JSON.parse((await direct.sse.nextEvent())!.data);
      expect(list.id).toBe(2);
      expect(list.result.tools.length).toBe(TOOL_COUNT);
    } finally {
      direct.sse.close();
      viaServer.sse.close();
    }
  });

  test('the client going away ends the session and its Server', async () => {
    const s = await sseSession();
    await s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const live = await s.session()!.live!; // the Server woken to answer it
    s.sse.close();
    expect(await eventually(() => s.session() === undefined)).toBe(true);
    expect(live.server.transport).toBeUndefined();
  });
});

test.each(TRANSPORTS)('%s: 200 idle official clients hold no Server, and go on after the idle time', async (kind) => {
  const clients = await Promise.all(Array.from({ length: 200 }, () => connectMcp(gw.url, kind)));
  try {
    const ids = new Set(clients.map((c) => (c.transport as { sessionId?: string }).sessionId));
    const mine = () => gw.services.mcp.list().filter((s) => s.kind === kind && (kind === 'sse' || ids.has(s.id)));
    expect(mine().length).toBeGreaterThanOrEqual(200);
    // The Streamable HTTP client holds a GET stream open on each session: that needs no Server either.
    expect(await eventually(() => mine().every((s) => s.live === undefined), LINGER_MS * 4)).toBe(true);
    for (const c of clients.slice(0, 5)) {
      const { tools } = await c.client.listTools();
      expect(tools.length).toBe(TOOL_COUNT);
      const { isError, body } = await c.call('get_chain_blockhash');
      expect(isError).toBe(false);
      expect(body.blockhash).toBeString();
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
});

test('200 idle Streamable HTTP sessions hold no Server, and each still answers', async () => {
  const sessions = await Promise.all(Array.from({ length: 200 }, () => httpSession()));
  expect(await eventually(() => sessions.every((s) => s.session()?.live === undefined), LINGER_MS * 4)).toBe(true);
  for (const s of sessions.slice(0, 5)) expect((await s.post({ jsonrpc: '2.0', id: 2, method: 'ping' })).body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
});
