// /llms.txt is generated from the registry and the settings; here it is held in step with what the
// gateway actually serves: the MCP manifest's tools and endpoints and the OpenAPI document's routes.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';

const GATEWAY = '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H';
let gw: TestGateway;
let text: string;
let manifest: any;
let openapi: any;

beforeAll(async () => {
  gw = await startGateway({ gatewayAddress: GATEWAY, priceLamports: 1_234_567, minDepositLamports: 3_000_000_001, freeCalls: 7 });
  const res = await fetch(`${gw.url}/llms.txt`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toStartWith('text/plain');
  text = await res.text();
  manifest = (await gw.get('/.well-known/mcp.json')).body;
  openapi = (await gw.get('/openapi.json')).body;
});
afterAll(() => gw.stop());

/** One capability line per MCP tool: `METHOD /path…` · MCP tool `name` · Free|Paid (…). */
const LINE = new RegExp('^- `(GET|POST) (/api/chain/[a-z-]+)[^`]*` · MCP tool `([a-z_]+)` · (Free|Paid)', 'gm');
const lines = () => [...text.matchAll(LINE)].map((m) => ({ method: m[1]!, path: m[2]!, tool: m[3]!, paid: m[4] === 'Paid' }));

test('it lists exactly the manifest tools, each with its paid flag', () => {
  expect(lines().map((l) => [l.tool, l.paid])).toEqual(manifest.tools.map((t: any) => [t.name, t.paid]));
  for (const t of manifest.tools) expect(text).toContain(`\`${t.name}\``);
});

test('every capability line names a route the OpenAPI document serves with that method', () => {
  const chainPaths = Object.keys(openapi.paths).filter((p) => p.startsWith('/api/chain/'));
  expect(lines().map((l) => l.path).sort()).toEqual(chainPaths.sort());
  for (const l of lines()) expect(openapi.paths[l.path][l.method.toLowerCase()]).toBeDefined();
});

test('the MCP endpoints are the manifest ones, and the key routes are documented', () => {
  expect(text).toContain(`Streamable HTTP: \`${manifest.mcp_streamable_http_endpoint}\``);
  expect(text).toContain(`\`GET ${manifest.mcp_sse_endpoint}\``);
  for (const route of ['/api/keys/challenge', '/api/keys/claim', '/api/keys/me', '/api/keys/me/usage', '/api/keys/deposit']) {
    expect(text).toContain(route);
    expect(openapi.paths[route]).toBeDefined();
  }
  for (const page of ['/claim', '/docs']) expect(text).toContain(`](${page})`);
});

test('prices, free calls and the deposit address come from the settings, in exact SOL', () => {
  expect(text).toContain('1234567 lamports (0.001234567 SOL) per call');
  expect(text).toContain('after 7 free calls');
  expect(text).toContain(`Send at least 3000000001 lamports (3.000000001 SOL) to \`${GATEWAY}\``);
});

test('without a deposit address it says keys cannot be bought here', async () => {
  const bare = await startGateway();
  try {
    const body = await (await fetch(`${bare.url}/llms.txt`)).text();
    expect(body).toContain('Deposits are not configured on this gateway');
    expect(body).not.toContain(GATEWAY);
  } finally {
    await bare.stop();
  }
});

test('a gateway that grants no free calls says nothing of free calls, in llms.txt, a 402 nor the tool descriptions', async () => {
  const none = await startGateway({ gatewayAddress: GATEWAY, freeCalls: 0 });
  try {
    const llms = await (await fetch(`${none.url}/llms.txt`)).text();
    const refusal = await none.get('/api/chain/find-ata?wallet=' + GATEWAY + '&mint=' + GATEWAY);
    expect(refusal.status).toBe(402);
    const manifest = (await (await fetch(`${none.url}/.well-known/mcp.json`)).json()) as { tools: { description: string; paid: boolean }[] };
    const paidTool = manifest.tools.find((t) => t.paid)!.description;
    expect(paidTool).not.toContain('free-call allowance');
    for (const said of [llms, refusal.body.instructions, paidTool]) {
      expect(said).not.toContain('0 free call');
      expect(said).toContain('lamports');
    }
    expect(refusal.body.instructions).toContain('SOL) per call. Send at least');
  } finally {
    await none.stop();
  }
});
