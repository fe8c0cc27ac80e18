// The direct stateless path (src/mcp/fast-call.ts) answers before the SDK's classifier runs, on
// the ground that every request it takes is one the classifier calls modern. This holds it to
// that, with the SDK's own isLegacyRequest, for every shape it takes, and checks that requests of
// the 2025-era or with anything unusual are not taken.
import { describe, expect, test } from 'bun:test';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { isPlainStatelessCall } from '../../src/mcp/fast-call.ts';
import { toolList } from '../../src/mcp/tools.ts';
import { defaultConfig } from '../../src/config.ts';

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'optimal_fee' };
const request = (body: unknown, headers: Record<string, string> = HEADERS) => new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
const callWith = (params: Record<string, unknown>, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'optimal_fee', ...params } });

describe('what the direct stateless path takes', () => {
  const taken = [
    callWith({ arguments: {}, _meta: ENVELOPE }),
    callWith({ _meta: ENVELOPE }, 'req-7'),
    callWith({ arguments: { computeUnits: 200000 }, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '2.1' } } }, 0),
  ];
  test.each(taken.map((b, i) => [i, b]))('shape %d is taken, and the SDK classifier calls it modern', async (_, body) => {
    expect(isPlainStatelessCall(request(body), body)).toBe(true);
    expect(await isLegacyRequest(request(body), body)).toBe(false);
  });

  // Headers the SDK does not read are not looked for. An Mcp-Param-* header is read only for a
  // tool declaring x-mcp-header in its input schema, and no tool of ours declares one.
  test('other headers, an Mcp-Param-* one included, do not keep a call from being taken', async () => {
    const body = callWith({ arguments: {}, _meta: ENVELOPE });
    const headers = { ...HEADERS, 'mcp-param-network': 'devnet', 'mcp-whatever': '1', 'user-agent': 'agent/1' };
    expect(isPlainStatelessCall(request(body, headers), body)).toBe(true);
    expect(await isLegacyRequest(request(body, headers), body)).toBe(false);
    expect(JSON.stringify(toolList(defaultConfig()))).not.toContain('x-mcp-header');
  });

  const body = callWith({ arguments: {}, _meta: ENVELOPE });
  const notTaken: [string, unknown, Record<string, string>][] = [
    ['a 2025-era version header', body, { ...HEADERS, 'mcp-protocol-version': '2025-11-25' }],
    ['no version header', body, Object.fromEntries(Object.entries(HEADERS).filter(([k]) => k !== 'mcp-protocol-version'))],
    ['an envelope claiming another version', callWith({ _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } }), HEADERS],
    ['no envelope', callWith({ arguments: {} }), HEADERS],
    ['declared client capabilities', callWith({ _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } }), HEADERS],
    ['another _meta key', callWith({ _meta: { ...ENVELOPE, progressToken: 'p' } }), HEADERS],
    ['a client title', callWith({ _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1', title: 'A' } } }), HEADERS],
    ['a name header for another tool', body, { ...HEADERS, 'mcp-name': 'find_ata' }],
    ['a session id', body, { ...HEADERS, 'mcp-session-id': 'abc' }],
    ['Accept without event streams', body, { ...HEADERS, accept: 'application/json' }],
    ['a batch', [body], HEADERS],
    ['a notification', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'optimal_fee', _meta: ENVELOPE } }, HEADERS],
    ['a fractional id', { ...body, id: 1.5 }, HEADERS],
    ['arguments that are no object', callWith({ arguments: [1], _meta: ENVELOPE }), HEADERS],
    ['an argument named __proto__', JSON.parse(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"optimal_fee","arguments":{"__proto__":{}},"_meta":${JSON.stringify(ENVELOPE)}}}`), HEADERS],
  ];
  test.each(notTaken)('%s is left to the SDK', (_, b, headers) => {
    expect(isPlainStatelessCall(request(b, headers), b)).toBe(false);
  });
});
