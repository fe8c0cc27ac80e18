// MCP sessions over the wire: the legacy SSE protocol as raw HTTP, many sessions at once, idle
// streams, disconnects, the session cap, the Streamable HTTP idle sweep and shutdown.
import { beforeAll, describe, expect, test } from 'bun:test';
import type { TestGateway } from '../support/gateway.ts';
import type { Sandbox } from '../support/sandbox/index.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { Config } from '../../src/config.ts';
import { connectMcp, eventually, openRawSse, TRANSPORTS, type McpTestClient } from '../support/mcp.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

// These tests open many sessions from one loopback address: the per-address cap has its own tests.
const sandbox = sandboxGateways(() => ({ mcpMaxSessionsPerAddress: 10_000 }));
const gateway = (overrides?: Partial<Config>) => sandbox.gateway(overrides);

/** A keep-alive HTTP connection left silent after one request; `closed` turns true when the server drops it. */
async function silentConnection(url: string) {
  const { hostname, port } = new URL(url);
  const state = { closed: false };
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data() {},
      close() {
        state.closed = true;
      },
    },
  });
  socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\n\r\n`);
  return state;
}

const postMessage = (gw: TestGateway, query: string, body: unknown) =>
  fetch(`${gw.url}/mcp/messages${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('legacy SSE, raw HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway();
  });

  test('the first event is `endpoint` carrying /mcp/messages?sessionId=<uuid>; a POST answers 202 and the result comes on the stream', async () => {
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    try {
      expect(sse.response.status).toBe(200);
      expect(sse.response.headers.get('content-type')).toStartWith('text/event-stream');
      const first = await sse.next();
      expect(first?.event).toBe('endpoint');
      const m = /^\/mcp\/messages\?sessionId=(.+)$/.exec(first!.data);
      expect(m?.[1]).toMatch(UUID);
      const res = await postMessage(gw, `?sessionId=${m![1]}`, INIT);
      expect(res.status).toBe(202);
      const answer = await sse.nextEvent();
      expect(answer?.event).toBe('message');
      const msg = JSON.parse(answer!.data);
      expect(msg).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'chain-intelligence-gateway' } } });
      // A tools/call, as SPEC.md shows it, straight after initialize.
      await postMessage(gw, `?sessionId=${m![1]}`, { jsonrpc: '2.0', method: 'notifications/initialized' });
      const call = await postMessage(gw, `?sessionId=${m![1]}`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_chain_blockhash', arguments: {} } });
      expect(call.status).toBe(202);
      const result = JSON.parse((await sse.nextEvent())!.data);
      expect(result.id).toBe(2);
      expect(JSON.parse(result.result.content[0].text)).toMatchObject({ live_status: 'SUCCESS', network: 'mainnet-beta' });
    } finally {
      sse.close();
    }
  });

  test('POST /mcp/messages without sessionId: 400 JSON with error, hint and live_status', async () => {
    const res = await postMessage(gw, '', INIT);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: 'Missing sessionId', live_status: 'FAILED' });
    expect(body.hint).toContain('/mcp/messages?sessionId=');
  });

  test('an unknown sessionId: 404 MCP SSE Session not found', async () => {
    for (const q of [`?sessionId=${crypto.randomUUID()}`, '?sessionId=nonsense']) {
      const res = await postMessage(gw, q, INIT);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'MCP SSE Session not found' });
    }
  });

  test('a Streamable HTTP session id is not an SSE session', async () => {
    const c = await connectMcp(gw.url, 'streamable-http');
    try {
      const sid = (c.transport as { sessionId?: string }).sessionId!;
      expect(sid).toMatch(UUID);
      expect((await postMessage(gw, `?sessionId=${sid}`, INIT)).status).toBe(404);
    } finally {
      await c.close();
    }
  });

  test('a body that is not JSON-RPC: 400', async () => {
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    try {
      const id = (await sse.next())!.data.split('sessionId=')[1];
      const res = await postMessage(gw, `?sessionId=${id}`, { hello: 'world' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'Invalid JSON-RPC message', live_status: 'FAILED' });
      const malformed = await fetch(`${gw.url}/mcp/messages?sessionId=${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    } finally {
      sse.close();
    }
  });

  test('after the client disconnects, its session is removed: POST answers 404', async () => {
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    const id = (await sse.next())!.data.split('sessionId=')[1]!;
    const session = gw.services.mcp.get(id)!;
    expect((await postMessage(gw, `?sessionId=${id}`, INIT)).status).toBe(202);
    expect((await postMessage(gw, `?sessionId=${id}`, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(202);
    const live = await session.live!; // the Server made to answer tools/list
    expect(live.server.transport).toBeDefined();
    sse.close();
    expect(await eventually(() => gw.services.mcp.get(id) === undefined)).toBe(true);
    expect(live.server.transport).toBeUndefined(); // the session's Server is closed too
    const res = await postMessage(gw, `?sessionId=${id}`, INIT);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'MCP SSE Session not found' });
  });

  test('clients that hang up before their stream is answered leave no session behind', async () => {
    const { hostname, port } = new URL(gw.url);
    const before = gw.services.mcp.count('sse');
    // Half close at once, half after the request is in: the stream is made while or after the peer goes.
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const socket = await Bun.connect({ hostname, port: Number(port), socket: { data() {} } });
        socket.write(`GET /mcp/sse HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
        if (i % 2) await Bun.sleep(1);
        socket.end();
      }),
    );
    expect(await eventually(() => gw.services.mcp.count('sse') === before)).toBe(true);
  });
});

describe('keep-alive and idle streams', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway({ idleTimeoutSeconds: 1, mcpKeepAliveSeconds: 0.25 });
  });

  test('the SSE stream carries a keep-alive comment every mcpKeepAliveSeconds', async () => {
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    try {
      expect((await sse.next())?.event).toBe('endpoint');
      const started = Date.now();
      const ka = await sse.next(1000);
      expect(ka?.comment).toBe('keep-alive');
      expect(Date.now() - started).toBeLessThan(800);
    } finally {
      sse.close();
    }
  });

  test('sessions idle for twice the server idle timeout still answer, over both transports', async () => {
    const wallet = await sandbox.chain.newWallet(777_000_000n);
    const clients = await Promise.all(TRANSPORTS.map((k) => connectMcp(gw.url, k)));
    const ids = () => gw.services.mcp.list().map((s) => s.id).sort();
    const before = ids();
    // A silent TCP connection opened now is what the idle timeout closes; Bun checks idle sockets
    // on a coarse (~4 s) tick, so wait until it has really done so, and at least twice the timeout.
    const control = await silentConnection(gw.url);
    const started = Date.now();
    try {
      expect(await eventually(() => control.closed, 8000)).toBe(true);
      const waited = Date.now() - started;
      if (waited < 2 * gw.config.idleTimeoutSeconds * 1000) await Bun.sleep(2 * gw.config.idleTimeoutSeconds * 1000 - waited);
      // The very same sessions: no stream was cut and silently re-opened by the client.
      expect(before).toHaveLength(2);
      expect(ids()).toEqual(before);
      for (const c of clients) {
        const r = await c.call('get_chain_balance', { wallet: wallet.address });
        expect(r.isError).toBe(false);
        expect(r.body.balance_lamports).toBe(777_000_000);
      }
      expect(ids()).toEqual(before);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 15_000);
});

describe('many sessions', () => {
  test('200 SSE sessions at once, each answer on its own stream; the table empties when the clients leave', async () => {
    const gw = await gateway();
    const N = 200;
    const wallets: Awaited<ReturnType<Sandbox['newWallet']>>[] = [];
    for (let i = 0; i < N; i++) wallets.push(await sandbox.chain.newWallet(1_000_000_000n + BigInt(i)));
    const clients: McpTestClient[] = await Promise.all(wallets.map(() => connectMcp(gw.url, 'sse')));
    try {
      expect(gw.services.mcp.size()).toBe(N);
      expect(gw.services.mcp.count('sse')).toBe(N);
      const answers = await Promise.all(clients.map((c, i) => c.call('get_chain_balance', { wallet: wallets[i]!.address })));
      answers.forEach((a, i) => {
        expect(a.isError).toBe(false);
        expect(a.body.wallet).toBe(wallets[i]!.address);
        expect(a.body.balance_lamports).toBe(1_000_000_000 + i);
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    expect(await eventually(() => gw.services.mcp.size() === 0, 10_000)).toBe(true);
  }, 30_000);

  test('Streamable HTTP sessions: DELETE removes one, and its id is then unknown', async () => {
    const gw = await gateway();
    const c = await connectMcp(gw.url, 'streamable-http');
    const sid = (c.transport as { sessionId?: string }).sessionId!;
    expect(gw.services.mcp.get(sid)?.kind).toBe('streamable-http');
    await (c.transport as { terminateSession(): Promise<void> }).terminateSession();
    await c.close();
    expect(gw.services.mcp.size()).toBe(0);
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: -32001 } });
  });

  test('open Streamable HTTP sessions do not keep the requests that opened them alive', async () => {
    const gw = await gateway();
    const { heapStats } = await import('bun:jsc');
    // Counted, not watched one by one: the collector scans the stack conservatively, so a stray
    // reference may keep one request or two; a session holding its own keeps all of them.
    const requests = () => {
      Bun.gc(true);
      return heapStats().objectTypeCounts.Request ?? 0;
    };
    const N = 200;
    const before = requests();
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const res = await gw.app.handle(
        new Request(`${gw.url}/mcp`, {
          method: 'POST',
          headers: { host: new URL(gw.url).host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ ...INIT, params: { ...INIT.params, protocolVersion: '2025-11-25' } }),
        }),
      );
      ids.push(res.headers.get('mcp-session-id')!);
      await res.text();
    }
    await Bun.sleep(10);
    expect(requests() - before).toBeLessThan(N / 10);
    expect(ids.every((id) => gw.services.mcp.get(id)?.kind === 'streamable-http')).toBe(true);
  });

  test('a Streamable HTTP request with neither a session nor an initialize: 400', async () => {
    const gw = await gateway();
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    expect(gw.services.mcp.size()).toBe(0);
    // An initialize the transport refuses (no text/event-stream in Accept) leaves no session behind.
    const refused = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(INIT) });
    expect(refused.status).toBe(406);
    expect(gw.services.mcp.size()).toBe(0);
  });
});

describe('the session cap', () => {
  test('mcpMaxSessions caps both transports together: 503 JSON beyond it, room again after a close', async () => {
    const gw = await gateway({ mcpMaxSessions: 3 });
    const open = [await connectMcp(gw.url, 'sse'), await connectMcp(gw.url, 'streamable-http'), await connectMcp(gw.url, 'sse')];
    try {
      expect(gw.services.mcp.size()).toBe(3);
      const sse = await fetch(`${gw.url}/mcp/sse`, { headers: { accept: 'text/event-stream' } });
      expect(sse.status).toBe(503);
      expect(await sse.json()).toMatchObject({ error: 'Too many MCP sessions', live_status: 'FAILED' });
      expect(sse.headers.get('retry-after')).toBe('5');
      const http = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(INIT),
      });
      expect(http.status).toBe(503);
      expect(((await http.json()) as any).error).toBe('Too many MCP sessions');
      // Concurrent opens cannot overshoot the cap either.
      const burst = await Promise.all(Array.from({ length: 10 }, () => fetch(`${gw.url}/mcp/sse`).then((r) => (r.body?.cancel(), r.status))));
      expect(burst.every((s) => s === 503)).toBe(true);
      expect(gw.services.mcp.size()).toBe(3);

      await open.shift()!.close();
      expect(await eventually(() => gw.services.mcp.size() === 2)).toBe(true);
      const again = await connectMcp(gw.url, 'streamable-http');
      open.push(again);
      expect((await again.call('get_chain_blockhash')).isError).toBe(false);
    } finally {
      await Promise.all(open.map((c) => c.close()));
    }
  });

  test('concurrent opens on a nearly full table: exactly the free slots are granted', async () => {
    const gw = await gateway({ mcpMaxSessions: 5 });
    const streams = await Promise.all(Array.from({ length: 12 }, () => openRawSse(`${gw.url}/mcp/sse`)));
    try {
      const statuses = streams.map((s) => s.response.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 503)).toHaveLength(7);
      expect(gw.services.mcp.size()).toBe(5);
    } finally {
      for (const s of streams) s.close();
    }
    expect(await eventually(() => gw.services.mcp.size() === 0)).toBe(true);
  });
});

describe('Streamable HTTP idle sweep', () => {
  test('a session whose client left without DELETE is closed after the idle TTL; an attached one stays', async () => {
    const gw = await gateway({ mcpSessionTtlSeconds: 0.3 });
    const held = await connectMcp(gw.url, 'streamable-http'); // keeps its GET stream open
    const left = await connectMcp(gw.url, 'streamable-http');
    const leftId = (left.transport as { sessionId?: string }).sessionId!;
    const heldId = (held.transport as { sessionId?: string }).sessionId!;
    try {
      await left.close(); // no DELETE: the SDK client only drops its streams
      expect(gw.services.mcp.get(leftId)).toBeDefined();
      expect(await eventually(() => gw.services.mcp.get(leftId) === undefined, 2000)).toBe(true);
      expect(gw.services.mcp.get(heldId)).toBeDefined();
      expect((await held.call('get_chain_blockhash')).isError).toBe(false);
    } finally {
      await held.close();
    }
    expect(await eventually(() => gw.services.mcp.size() === 0, 2000)).toBe(true);
  });
});

describe('streams that carry only keep-alives', () => {
  test('an SSE session that gets no request for mcpStreamIdleSeconds is closed, keep-alives or not', async () => {
    const gw = await gateway({ mcpStreamIdleSeconds: 0.4, mcpKeepAliveSeconds: 0.1 });
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    expect((await sse.next())?.event).toBe('endpoint');
    let end: unknown;
    for (let i = 0; i < 50 && end !== null; i++) end = await sse.next(2000);
    expect(end).toBeNull(); // the server ended the stream
    expect(await eventually(() => gw.services.mcp.size() === 0)).toBe(true);
  });
});

describe('shutdown', () => {
  test('closeAll() ends every session on both transports and refuses new ones with 503', async () => {
    const gw = await gateway();
    const clients = await Promise.all([connectMcp(gw.url, 'sse'), connectMcp(gw.url, 'streamable-http'), connectMcp(gw.url, 'sse')]);
    const sse = await openRawSse(`${gw.url}/mcp/sse`);
    await sse.next();
    expect(gw.services.mcp.size()).toBe(4);
    await gw.services.mcp.closeAll();
    expect(gw.services.mcp.size()).toBe(0);
    // The raw stream ends (after any queued events).
    for (;;) {
      const e = await sse.next(2000);
      if (e === null) break;
    }
    const res = await fetch(`${gw.url}/mcp/sse`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as any).error).toBe('MCP is shutting down');
    await Promise.all(clients.map((c) => c.close()));
  });
});
