// server.json, the repository's entry for the MCP Registry: valid against the Registry's schema
// (vendored, tests/fixtures/mcp), and true to the gateway it describes (version, endpoints, header).
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import pkg from '../../package.json';
import { MCP_HTTP_PATH } from '../../src/mcp/paths.ts';
import { apiKeyOf } from '../../src/calls/caller.ts';

const ROOT = join(import.meta.dir, '../..');
const serverJson = JSON.parse(readFileSync(join(ROOT, 'server.json'), 'utf8'));
const schema = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/mcp/registry-server.schema.json'), 'utf8'));
const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);

test('server.json is valid against the MCP Registry schema, and a broken copy is not', () => {
  expect([validate(serverJson), validate.errors]).toEqual([true, null]);
  expect(serverJson.$schema).toBe(schema.$id);
  for (const broken of [{ ...serverJson, name: 'no-namespace' }, { ...serverJson, description: 'x'.repeat(101) }, { ...serverJson, remotes: [{ type: 'stdio' }] }]) expect(validate(broken)).toBe(false);
});

test('server.json describes this gateway: its version, its Streamable HTTP endpoint on the host the operator names, the key header it reads', () => {
  expect(serverJson.version).toBe(pkg.version);
  expect(serverJson.remotes).toHaveLength(1);
  const [http] = serverJson.remotes;
  expect(http.type).toBe('streamable-http');
  expect(new URL(http.url.replace('{gateway_host}', 'gateway.example.com')).pathname).toBe(MCP_HTTP_PATH);
  expect(Object.keys(http.variables)).toEqual(['gateway_host']);
  for (const remote of serverJson.remotes) {
    const header = remote.headers[0];
    expect(apiKeyOf(new Headers({ [header.name]: 'cig_x' }))).toBe('cig_x');
    expect(header.isSecret).toBe(true);
  }
});
