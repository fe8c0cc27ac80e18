// Every path the gateway serves, called with a method it does not serve, is a JSON 405 naming the
// methods it does serve in Allow (not a 404 that says the path does not exist); on the real server,
// where Bun's router answers the hot routes before the app sees them.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.stop());

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods each path is registered with; a route for every method (/mcp's) has no wrong one. */
function served(): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const r of gw.app.routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.method]);
  for (const [path, methods] of byPath) if (methods.includes('ALL')) byPath.delete(path);
  return byPath;
}

test('the walk covers REST, keys, MCP, the webhook and the pages', () => {
  const paths = [...served().keys()];
  for (const path of ['/api/chain/simulate', '/api/solana/balance', '/api/keys/claim', '/api/keys/me', '/mcp/sse', '/mcp/messages', '/.well-known/mcp.json', '/api/payments/webhook', '/claim', '/docs', '/', '/metrics']) {
    expect(paths).toContain(path);
  }
});

test('every known path with a wrong method: 405, Allow, a JSON body like the other errors', async () => {
  const wrong: string[] = [];
  for (const [path, methods] of served()) {
    // HEAD is served wherever GET is (a paid GET route refuses it with its own 405).
    const others = METHODS.filter((m) => !methods.includes(m) && !(m === 'HEAD' && methods.includes('GET')));
    expect(others.length).toBeGreaterThan(0);
    for (const method of others) {
      const res = await fetch(gw.url + path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' || method === 'HEAD' ? undefined : '{}' });
      const text = await res.text();
      if (res.status !== 405 || res.headers.get('allow') !== methods.join(', ')) {
        wrong.push(`${method} ${path}: ${res.status} allow=${res.headers.get('allow')}`);
        continue;
      }
      if (method === 'HEAD') continue;
      expect(res.headers.get('content-type')).toStartWith('application/json');
      expect(JSON.parse(text)).toEqual({ error: 'Method not allowed', hint: `This path answers ${methods.join(', ')} only.` });
    }
  }
  expect(wrong).toEqual([]);
});

test('GET /api/chain/simulate says POST; a trailing slash is the same path; an unknown path is still 404', async () => {
  const simulate = await gw.get('/api/chain/simulate');
  expect([simulate.status, simulate.headers.get('allow')]).toEqual([405, 'POST']);
  const me = await gw.post('/api/keys/me/', {});
  expect([me.status, me.headers.get('allow')]).toEqual([405, 'GET']);
  const unknown = await gw.get('/api/chain/nothing');
  expect([unknown.status, unknown.headers.get('allow'), unknown.body.error]).toEqual([404, null, 'Not found']);
});
