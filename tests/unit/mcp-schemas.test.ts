// Every value an MCP tool takes or answers has a stated type (or a union of types): a schema with no
// validation keyword accepts anything, which the MCP Inspector warns about and a client generator
// turns into `any`. The walk covers every subschema of every tool's inputSchema and outputSchema.
import { expect, test } from 'bun:test';
import { toolList } from '../../src/mcp/tools.ts';
import { defaultConfig } from '../../src/config.ts';

/** Keywords that constrain what a schema accepts: a type, a fixed value, or a combination of schemas that do. */
const CONSTRAINING = ['type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf', '$ref', 'not'];

/** Where a JSON Schema keeps subschemas: one schema, a list of them, or a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'additionalItems', 'unevaluatedProperties', 'unevaluatedItems'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions'];

/**
 * The JSON pointers of the subschemas of `schema` (itself included) that constrain nothing, or state
 * their types as a `type` array: a union is anyOf branches of one type each, which single-type
 * dialects (and the MCP Inspector's portability check) accept.
 */
function unconstrained(schema: unknown, at = '#'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const s = schema as Record<string, unknown>;
  const found = CONSTRAINING.some((k) => k in s) && !Array.isArray(s.type) ? [] : [at];
  for (const k of ONE) if (typeof s[k] === 'object') found.push(...unconstrained(s[k], `${at}/${k}`));
  for (const k of LIST) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((sub, i) => found.push(...unconstrained(sub, `${at}/${k}/${i}`)));
  for (const k of MAP) if (typeof s[k] === 'object' && s[k] !== null) for (const [name, sub] of Object.entries(s[k] as object)) found.push(...unconstrained(sub, `${at}/${k}/${name}`));
  return found;
}

test('the walk finds a schema that accepts anything, wherever it is', () => {
  expect(unconstrained({ type: 'object', properties: { a: { type: 'string' }, b: { description: 'anything' } } })).toEqual(['#/properties/b']);
  expect(unconstrained({ type: 'object', additionalProperties: {} })).toEqual(['#/additionalProperties']);
  expect(unconstrained({ anyOf: [{ type: 'array', items: { description: 'x' } }, { type: 'null' }] })).toEqual(['#/anyOf/0/items']);
  expect(unconstrained({ type: 'object', properties: { err: { type: ['string', 'null'] } } })).toEqual(['#/properties/err']);
});

test('every tool states a type for every value it takes and answers', () => {
  const tools = toolList(defaultConfig());
  expect(tools.length).toBeGreaterThan(0);
  const loose = tools.flatMap((tool) => [
    ...unconstrained(tool.inputSchema).map((at) => `${tool.name} inputSchema ${at}`),
    ...unconstrained(tool.outputSchema).map((at) => `${tool.name} outputSchema ${at}`),
  ]);
  expect(loose).toEqual([]);
});
