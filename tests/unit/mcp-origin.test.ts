// The MCP Origin/Host guard keeps each Host value's verdict: a kept verdict must never let a
// foreign Host through, whatever came before it, and a client sending ever new values must not
// be able to grow the table or flush an allowed verdict into a wrong one.
import { describe, expect, test } from 'bun:test';
import { originGuard } from '../../src/mcp/origin.ts';

const guard = originGuard({ host: '127.0.0.1', mcpAllowedOrigins: [] });
const withHost = (host: string) => new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { host } });
const status = (host: string) => guard(withHost(host))?.status ?? 200;

describe('the Host check, with its verdicts kept', () => {
  test('allowed and foreign hosts keep their answers when asked again in any order', () => {
    for (let round = 0; round < 3; round++) {
      expect(status('127.0.0.1:8080')).toBe(200);
      expect(status('evil.example:8080')).toBe(403);
      expect(status('localhost:3000')).toBe(200);
      expect(status('127.0.0.1.evil.example')).toBe(403);
    }
  });

  test('a flood of distinct foreign hosts is refused one by one and changes no other answer', () => {
    for (let i = 0; i < 500; i++) expect(status(`evil${i}.example`)).toBe(403);
    expect(status('127.0.0.1:8080')).toBe(200);
    expect(status('evil0.example')).toBe(403);
  });

  test('an Origin from elsewhere is refused even with an allowed Host', () => {
    const res = guard(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { host: '127.0.0.1:8080', origin: 'https://evil.example' } }));
    expect(res?.status).toBe(403);
  });
});
