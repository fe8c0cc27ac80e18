// The tool listing's compact schemas (src/capabilities/compact-schema.ts) are exact: every recorded decode answer
// passes decode_tx's listed output schema, as it passes the full one OpenAPI documents, and an answer of the
// wrong shape fails both. Every `$ref` resolves within its schema.
import { describe, expect, test } from 'bun:test';
import Ajv from 'ajv';
import { successSchema, plainSchema } from '../../src/capabilities/capability';
import { decodeTx } from '../../src/capabilities/decode-tx';
import { describeTransaction } from '../../src/chain/tx/describe';
import { defaultConfig } from '../../src/config';
import { parseJson, toJson } from '../../src/json';
import { compactSchema } from '../../src/capabilities/compact-schema';
import { toolList } from '../../src/mcp/tools';
import { loadRecorded, recordedTransactionFiles } from '../support/recorded-transactions';

const ajv = new Ajv({ strict: false, allErrors: true });
const listed = ajv.compile(toolList(defaultConfig()).find((t) => t.name === 'decode_tx')!.outputSchema!);
const full = ajv.compile(plainSchema(successSchema(decodeTx)));

/** A decode-tx success body as the gateway writes it. */
async function answer(file: string, wallet?: string): Promise<Record<string, any>> {
  const raw = (await loadRecorded(file)) as { transaction: { signatures?: string[] } | [string, string] };
  const signature = Array.isArray(raw.transaction) ? '1'.repeat(88) : (raw.transaction.signatures?.[0] ?? '1'.repeat(88));
  const body = describeTransaction(raw, { signature, network: 'mainnet-beta', ...(wallet ? { wallet } : {}) });
  return parseJson(toJson({ ...body, live_status: 'SUCCESS' })) as Record<string, any>;
}

describe.each(recordedTransactionFiles)('%s', (file) => {
  test("its answer passes decode_tx's listed output schema and the full one", async () => {
    const plain = await answer(file);
    const told = await answer(file, plain.ownerChanges.at(-1).owner);
    for (const body of [plain, told]) {
      expect(listed(body) ? [] : listed.errors).toEqual([]);
      expect(full(body) ? [] : full.errors).toEqual([]);
    }
  });
});

test('an answer of the wrong shape fails the listed schema as it fails the full one', async () => {
  const good = await answer('getTransaction/sol-transfer-gem-1.json');
  const broken = [
    { ...good, details: { ...good.details, fee: '5000' } },
    { ...good, category: 'Mint' },
    { ...good, categoryFit: undefined },
    { ...good, ownerChanges: [{ ...good.ownerChanges[0], feeLamports: '5000' }] },
    { ...good, accountChanges: [{ ...good.accountChanges[0], token: { mint: 'x' } }] },
    { ...good, programs: [{ programId: 'x', name: null, venue: 'casino' }] },
    { ...good, error: 'failed' },
  ].map((b) => JSON.parse(JSON.stringify(b)));
  for (const body of broken) expect([listed(body), full(body)]).toEqual([false, false]);
});

/** Every `$ref` in a schema, and whether its schema's `$defs` holds it. */
function refs(schema: unknown): string[] {
  const text = JSON.stringify(schema);
  return [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
}

test('every $ref of every listed schema points into its own $defs, and every definition is used', () => {
  for (const tool of toolList(defaultConfig())) {
    for (const schema of [tool.inputSchema, tool.outputSchema] as Record<string, any>[]) {
      const defs = Object.keys(schema.$defs ?? {});
      const used = refs(schema);
      for (const ref of used) expect(defs.map((d) => `#/$defs/${d}`)).toContain(ref);
      for (const d of defs) expect(used).toContain(`#/$defs/${d}`);
    }
  }
});

test('compaction: a repeated subschema is written once, a string union is an enum, prose stays only on arguments', () => {
  const pair = { type: 'object', title: 'Pair', required: ['mint', 'amount'], properties: { mint: { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]+$', description: 'Mint' }, amount: { type: 'string' } } };
  const kind = { anyOf: [{ const: 'a', type: 'string' }, { const: 'b', type: 'string' }], description: 'Kind' };
  const schema = { type: 'object', required: ['from', 'to', 'kind'], properties: { from: pair, to: pair, kind, list: { type: 'array', items: pair } } };
  expect(compactSchema(schema)).toEqual({
    type: 'object',
    required: ['from', 'to', 'kind'],
    properties: { from: { $ref: '#/$defs/Pair' }, to: { $ref: '#/$defs/Pair' }, kind: { type: 'string', enum: ['a', 'b'] }, list: { type: 'array', items: { $ref: '#/$defs/Pair' } } },
    $defs: { Pair: { type: 'object', required: ['mint', 'amount'], properties: { mint: { type: 'string' }, amount: { type: 'string' } } } },
  });
  // an input schema keeps its arguments' descriptions and bounds, not the prose of their union's branches
  const input = { type: 'object', properties: { accounts: { description: 'Accounts', anyOf: [{ type: 'string', description: 'comma-separated' }, { type: 'array', items: { type: 'string' }, maxItems: 3 }] } } };
  expect(compactSchema(input, true)).toEqual({ type: 'object', properties: { accounts: { description: 'Accounts', anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 3 }] } } });
});

test('two different shapes of one name get two definitions, never one for both', () => {
  const a = { type: 'object', title: 'Item', required: ['x'], properties: { x: { type: 'string' }, y: { type: 'integer' } } };
  const b = { type: 'object', title: 'Item', required: ['x'], properties: { x: { type: 'integer' }, z: { type: 'boolean' } } };
  const out = compactSchema({ type: 'object', properties: { a1: a, a2: a, b1: b, b2: b } }) as Record<string, any>;
  expect(Object.keys(out.$defs).sort()).toEqual(['Item', 'Item2']);
  const resolve = (s: { $ref: string }) => out.$defs[s.$ref.slice('#/$defs/'.length)];
  expect(resolve(out.properties.a1)).toEqual(resolve(out.properties.a2));
  expect(resolve(out.properties.b1)).toEqual(resolve(out.properties.b2));
  expect(resolve(out.properties.a1)).not.toEqual(resolve(out.properties.b1));
  expect(resolve(out.properties.b1).properties.x).toEqual({ type: 'integer' });
});

test('an optional output field over 1,000 characters is listed as its bare type, still typed; a required one, an input and the full schema (OpenAPI, the guide) keep the shape', async () => {
  const wide = (n: number) => ({ type: 'object', required: ['a'], properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`field${i}`, { type: 'string' }])) });
  const big = { type: 'array', items: wide(60) };
  const small = { type: 'array', items: wide(3) };
  const schema = { type: 'object', required: ['kept'], properties: { kept: big, rare: big, tiny: small, maybe: { anyOf: [wide(60), { type: 'null' }] } } };
  const out = compactSchema(schema) as Record<string, any>;
  expect(out.properties.rare).toEqual({ type: 'array', items: { type: 'object' } });
  expect(out.properties.maybe).toEqual({ anyOf: [{ type: 'object' }, { type: 'null' }] });
  expect(out.properties.tiny).toEqual(small);
  expect(JSON.stringify(out)).toContain('field59');
  expect((compactSchema({ type: 'object', properties: { rare: big } }, true) as Record<string, any>).properties.rare.items.properties.field59).toEqual({ type: 'string' });
  // decode_tx's compressedNfts: a bare array of objects in the listing, its every field in the full schema (the guide prints it)
  const tool = toolList(defaultConfig()).find((t) => t.name === 'decode_tx')!;
  expect((tool.outputSchema as Record<string, any>).properties.compressedNfts).toEqual({ type: 'array', items: { type: 'object' } });
  expect(JSON.stringify(plainSchema(successSchema(decodeTx)))).toContain('leafOwnerAfter');
  const nft = await answer('getTransaction/bubblegum-mint-to-collection-block-sava.json');
  expect(nft.compressedNfts.length).toBe(1);
  expect([listed(nft), full(nft)]).toEqual([true, true]);
  expect([listed({ ...nft, compressedNfts: 'minted' }), full({ ...nft, compressedNfts: 'minted' })]).toEqual([false, false]);
});
