// Every MCP session keeps the initialize that opened it; sharedHello (src/mcp/fast-call.ts) keeps
// one frozen copy per kind of plain initialize. These check that a session gets back exactly what
// it sent, that nothing a client sends later or elsewhere can change it, and that hostile clients
// cannot grow the copies kept: long fields and kinds beyond the cap are kept as sent, per session.
import { describe, expect, test } from 'bun:test';
import { SHARED_HELLOS, sharedHello, type PlainInitialize } from '../../src/mcp/fast-call.ts';

const hello = (id: string | number, name = 'agent', version = '1.0', protocolVersion = '2025-11-25'): PlainInitialize => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name, version } },
});

describe('sharedHello', () => {
  test('two sessions opened alike share one copy, equal to what each sent', () => {
    const a = sharedHello(hello(1));
    const b = sharedHello(hello(1));
    expect(b).toBe(a);
    expect(a).toEqual(hello(1));
  });

  test('any difference a Server could see gives a copy of its own', () => {
    const base = sharedHello(hello(1));
    for (const other of [hello(2), hello('1'), hello(1, 'agent2'), hello(1, 'agent', '1.1'), hello(1, 'agent', '1.0', '2025-06-18'), hello(1, 'a g', 'ent 1.0')]) {
      const copy = sharedHello(other);
      expect(copy).not.toBe(base);
      expect(copy).toEqual(other);
    }
  });

  test('the copy is frozen and independent of the message it was made from', () => {
    const sent = hello(7, 'mutator');
    const kept = sharedHello(sent);
    sent.params.clientInfo.name = 'changed';
    (sent.params.capabilities as Record<string, unknown>).sampling = {};
    expect(kept).toEqual(hello(7, 'mutator'));
    expect(() => ((kept.params.clientInfo as { name: string }).name = 'x')).toThrow();
    expect(Object.isFrozen(kept.params.capabilities)).toBe(true);
  });

  test('a long client name is kept as sent, not shared', () => {
    const long = hello(1, 'x'.repeat(10_000));
    expect(sharedHello(long)).toBe(long);
    expect(sharedHello(hello(1, 'x'.repeat(10_000)))).not.toBe(long);
  });

  test(`beyond ${SHARED_HELLOS} kinds, new ones are kept as sent; kinds already shared stay shared`, () => {
    const first = sharedHello(hello(1, 'fill-0'));
    for (let i = 1; i < SHARED_HELLOS * 2; i++) sharedHello(hello(1, `fill-${i}`));
    const late = hello(1, 'late-comer');
    expect(sharedHello(late)).toBe(late);
    expect(sharedHello(hello(1, 'fill-0'))).toBe(first);
  });
});
