// What a client discovers without a key: the MCP manifest and the OpenAPI document, both generated
// from the capability registry, so they list exactly what the gateway serves.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import pkg from '../../package.json';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.stop());

test('the manifest has the SPEC fields and lists every tool of the registry, nine in all', async () => {
  const { status, body } = await gw.get('/.well-known/mcp.json');
  expect(status).toBe(200);
  expect(body).toMatchObject({ name: expect.any(String), version: pkg.version, description: expect.any(String), mcp_sse_endpoint: '/mcp/sse' });
  expect(body.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(typeof body.capabilities.tools.description).toBe('string');
  expect(body.tools.map((t: { name: string }) => t.name)).toEqual([
    'get_chain_balance',
    'get_chain_blockhash',
    'get_token_accounts',
    'get_recent_transactions',
    'find_ata',
    'token_profile',
    'optimal_fee',
    'decode_tx',
    'simulate_chain_transaction',
  ]);
  for (const tool of body.tools) expect(tool.description.length).toBeGreaterThan(40);
});

test('the OpenAPI document describes every capability route with its parameters, and not the alias', async () => {
  const { status, body } = await gw.get('/openapi.json');
  expect(status).toBe(200);
  expect(body.openapi).toBe('3.1.0');
  expect((await gw.get('/swagger/json')).body).toEqual(body);
  for (const cap of CAPABILITIES) {
    const op = body.paths[`/api/chain/${cap.name}`]?.[cap.method.toLowerCase()];
    expect(op).toBeDefined();
    expect(op.tags).toEqual([cap.paid ? 'Paid' : 'Free']);
    if (cap.method === 'GET') expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(Object.keys(cap.params).sort());
    else expect(Object.keys(op.requestBody.content['application/json'].schema.properties).sort()).toEqual(Object.keys(cap.params).sort());
    expect(body.paths[`/api/solana/${cap.name}`]).toBeUndefined();
  }
  expect(body.paths['/api/keys/claim'].post).toBeDefined();
  expect(body.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
});

test('GET / points to the reference page, llms.txt, the OpenAPI document, MCP and the claim page, and each answers', async () => {
  const { status, body, headers } = await gw.get('/');
  expect(status).toBe(200);
  expect(headers.get('content-type')).toContain('application/json');
  expect(body).toEqual({
    name: 'Chain Intelligence Gateway',
    version: pkg.version,
    docs: '/docs',
    llmsTxt: '/llms.txt',
    openapi: '/openapi.json',
    mcp: { streamableHttp: '/mcp', sse: '/mcp/sse', manifest: '/.well-known/mcp.json' },
    claim: '/claim',
  });
  for (const path of [body.docs, body.llmsTxt, body.openapi, body.mcp.manifest, body.claim]) expect((await gw.get(path)).status, path).toBe(200);
  const manifest = (await gw.get(body.mcp.manifest)).body;
  expect([manifest.mcp_streamable_http_endpoint, manifest.mcp_sse_endpoint]).toEqual([body.mcp.streamableHttp, body.mcp.sse]);
});

test('an unknown route is a JSON 404 naming /docs, /openapi.json and /llms.txt', async () => {
  const { status, body } = await gw.get('/no-such-route');
  expect(status).toBe(404);
  expect(body.hint).toContain('/docs');
  expect(body.hint).toContain('/openapi.json');
  expect(body.hint).toContain('/llms.txt');
});
