import { Server, createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Client as Client2, StreamableHTTPClientTransport as T2 } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as T1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const tools = [{ name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false }, outputSchema: { type: 'object', properties: { x: { type: 'string' } } } }];
function factory() {
  const s = new Server({ name: 'p', version: '1' }, { capabilities: { tools: {} }, instructions: 'hi' });
  s.setRequestHandler('tools/list', () => ({ tools }) as any);
  s.setRequestHandler('tools/call', async (req: any, ctx: any) => {
    if (req.params.name !== 'echo') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool ${req.params.name}`);
    return { content: [{ type: 'text', text: JSON.stringify(req.params.arguments) }], structuredContent: { x: String(req.params.arguments?.x), auth: ctx.http?.authInfo?.token } } as any;
  });
  return s;
}
const modern = createMcpHandler(factory, { legacy: 'reject' });
const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
const srv = Bun.serve({ port: 0, async fetch(req) {
  const body = req.method === 'POST' ? await req.json() : undefined;
  const legacy = await isLegacyRequest(req, body);
  console.log('route', req.method, legacy ? 'legacy' : 'modern', JSON.stringify(body)?.slice(0, 160));
  if (!legacy) { const r = await modern.fetch(req, { parsedBody: body, authInfo: { token: 'tok', clientId: 'c', scopes: [] } }); return r; }
  const sid = req.headers.get('mcp-session-id');
  let t = sid ? sessions.get(sid) : undefined;
  if (!t) { t = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => sessions.set(id, t!) }); await factory().connect(t); }
  return t.handleRequest(req, { parsedBody: body });
}});
const url = new URL(`http://127.0.0.1:${srv.port}/mcp`);
for (const mode of [{ pin: '2026-07-28' }, 'auto'] as const) {
  const c = new Client2({ name: 'c', version: '1' }, { versionNegotiation: { mode } as any });
  await c.connect(new T2(url));
  console.log(String(JSON.stringify(mode)), 'version', (c as any).getNegotiatedProtocolVersion?.() ?? c.transport?.protocolVersion, 'server', c.getServerVersion());
  console.log('list', JSON.stringify((await c.listTools()).tools[0]).slice(0, 200));
  console.log('call', JSON.stringify(await c.callTool({ name: 'echo', arguments: { x: 'a' } })));
  try { await c.callTool({ name: 'nope', arguments: {} }); } catch (e) { console.log('err', (e as Error).message, (e as any).code); }
  await c.close();
}
const c1 = new Client1({ name: 'c', version: '1' });
await c1.connect(new T1(url));
console.log('v1 call', JSON.stringify(await c1.callTool({ name: 'echo', arguments: { x: 'b' } })));
try { await c1.callTool({ name: 'nope', arguments: {} }); } catch (e) { console.log('v1 err', (e as Error).message); }
await c1.close();
srv.stop(true);
