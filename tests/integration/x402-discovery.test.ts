// How catalogues find a gateway that settles its own x402 payments: GET /discovery/resources in a
// facilitator's discovery shape (read here by @x402/extensions' own bazaar client), every entry
// accepted by the bazaar validators; the MCP server card and catalogs, valid against the
// server-card extension's schema; and the manifest and llms.txt linking them.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, withBazaar, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { restPath } from '../../src/capabilities/capability.ts';
import { VERSION } from '../../src/version.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { x402World, USDC_MINT } from '../support/x402.ts';
import type { TestGateway } from '../support/gateway.ts';

const PRICE = 10_000;
const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-discovery-'));
const PAID = CAPABILITIES.filter((c) => c.paid);
let gw: TestGateway;
let payTo: string;

const cardSchema = JSON.parse(readFileSync(join(import.meta.dir, '../fixtures/mcp/server-card.schema.json'), 'utf8'));
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const validCard = ajv.compile({ ...cardSchema, $ref: '#/$defs/ServerCard' });

describe('discovery', () => {
  test('setup', async () => {
    const world = await x402World(sandbox.chain, dir, PRICE);
    payTo = world.payTo;
    gw = await sandbox.gateway({ ...world.settings, x402Prices: { 'decode-tx': 20_000 }, serviceIconUrl: 'https://cdn.example.org/gateway.svg' });
  });

  test("the bazaar client's listResources reads every paid route and tool, each entry accepted by the bazaar validators, with prices per capability", async () => {
    const client = withBazaar(new HTTPFacilitatorClient({ url: gw.url }));
    const listed = await client.extensions.bazaar.listResources({ limit: 100 });
    expect(listed.x402Version).toBe(2);
    expect(listed.pagination).toMatchObject({ limit: 100, offset: 0, total: 2 * PAID.length });
    const items = listed.items as (typeof listed.items[number] & { capability: string; priceLamports: number })[];
    const http = items.filter((i) => i.type === 'http');
    const mcp = items.filter((i) => i.type === 'mcp');
    expect(http.map((i) => i.resource).sort()).toEqual(PAID.map((c) => `${gw.url}${restPath(c)}`).sort());
    expect(mcp.map((i) => (i.extensions!.bazaar as DiscoveryExtension).info.input).map((input) => (input as { toolName: string }).toolName).sort()).toEqual(PAID.map((c) => c.tool).sort());
    expect(new Set(mcp.map((i) => i.resource))).toEqual(new Set([`${gw.url}/mcp`]));
    for (const item of items) {
      const bazaar = item.extensions!.bazaar as DiscoveryExtension;
      expect([item.resource, validateDiscoveryExtension(bazaar)]).toEqual([item.resource, { valid: true }]);
      expect([item.resource, validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)]).toEqual([item.resource, { valid: true }]);
      expect(item).toMatchObject({ serviceName: 'Chain Intelligence Gateway', tags: gw.config.serviceTags, iconUrl: 'https://cdn.example.org/gateway.svg', mimeType: 'application/json' });
      const units = item.capability === 'decode-tx' ? 20_000 : PRICE;
      expect(item.accepts).toEqual([expect.objectContaining({ scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', amount: String(units), asset: USDC_MINT, payTo })]);
      expect(item.priceLamports).toBe(gw.config.priceLamports);
    }
  });

  test('paging with cursor walks every entry once; filters; bad paging is a 400 with a hint', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await gw.get(`/discovery/resources?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      seen.push(...res.body.items.map((i: { resource: string; capability: string; type: string }) => `${i.type} ${i.capability}`));
      cursor = res.body.pagination.cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil((2 * PAID.length) / 5));
    expect(new Set(seen).size).toBe(2 * PAID.length);
    expect(seen).toHaveLength(2 * PAID.length);
    expect((await gw.get('/discovery/resources?type=mcp')).body.pagination.total).toBe(PAID.length);
    expect((await gw.get(`/discovery/resources?payTo=${payTo}`)).body.pagination.total).toBe(2 * PAID.length);
    expect((await gw.get('/discovery/resources?network=solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1')).body.pagination.total).toBe(0);
    expect((await gw.get('/discovery/resources?extensions=bazaar')).body.pagination.total).toBe(2 * PAID.length);
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'cursor=%%%', 'cursor=LTE', 'offset=-1', 'type=grpc']) {
      const res = await gw.get(`/discovery/resources?${bad}`);
      expect([bad, res.status, typeof res.body.hint, res.body.live_status]).toEqual([bad, 400, 'string', 'FAILED']);
    }
  });

  test('the MCP server card at the Streamable HTTP endpoint, valid against the extension schema, and the catalogs that point at it', async () => {
    const res = await fetch(`${gw.url}/mcp/server-card`, { headers: { accept: 'application/mcp-server-card+json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('application/mcp-server-card+json');
    const card = (await res.json()) as Record<string, any>;
    expect([validCard(card), validCard.errors]).toEqual([true, null]);
    expect(card).toMatchObject({ name: '1.0.0.127/chain-intelligence-gateway', version: VERSION, title: 'Chain Intelligence Gateway', websiteUrl: `${gw.url}/docs` });
    expect(card.remotes).toEqual([
      expect.objectContaining({ type: 'streamable-http', url: `${gw.url}/mcp` }),
      expect.objectContaining({ type: 'sse', url: `${gw.url}/mcp/sse` }),
    ]);
    expect(card.icons).toEqual([{ src: 'https://cdn.example.org/gateway.svg', mimeType: 'image/svg+xml', sizes: ['any'] }]);
    for (const [path, specVersion] of [['/.well-known/mcp/catalog.json', 'draft'], ['/.well-known/ai-catalog.json', '1.0']] as const) {
      const cat = await gw.get(path);
      expect(cat.status).toBe(200);
      expect(cat.body).toEqual({
        specVersion,
        entries: [{ identifier: 'urn:air:127.0.0.1:mcp:chain-intelligence-gateway', displayName: 'Chain Intelligence Gateway', type: 'application/mcp-server-card+json', url: `${gw.url}/mcp/server-card` }],
      });
    }
    // A tampered card fails the same schema: the check can fail.
    expect(validCard({ ...card, name: 'no slash' })).toBe(false);
  });

  test('the manifest and llms.txt link the listing, the card, the catalogs and the receipt key; the icon is served', async () => {
    const manifest = (await gw.get('/.well-known/mcp.json')).body;
    expect(manifest.discovery).toEqual({ resources: '/discovery/resources', server_card: '/mcp/server-card', mcp_catalog: '/.well-known/mcp/catalog.json', ai_catalog: '/.well-known/ai-catalog.json', x402_receipt_keys: '/.well-known/jwks.json' });
    for (const path of Object.values(manifest.discovery) as string[]) expect([path, (await gw.get(path)).status]).toEqual([path, 200]);
    const llms = (await gw.get('/llms.txt')).body as string;
    for (const path of ['/discovery/resources', '/mcp/server-card', '/.well-known/mcp/catalog.json', '/.well-known/jwks.json', 'SIGN-IN-WITH-X']) expect(llms).toContain(path);
    const icon = await fetch(`${gw.url}/icon.svg`);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toStartWith('<svg');
  });
});
