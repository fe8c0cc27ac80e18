// clientAddress on hostile forwarding headers: the socket peer is given as Bun's server reports it.
import { describe, expect, test } from 'bun:test';
import { clientAddress } from '../../src/calls/caller.ts';

const server = (peer: string) => ({ requestIP: () => ({ address: peer }) });
const from = (peer: string, headers: Record<string, string>, trusted: string[]) =>
  clientAddress(new Request('http://gw/', { headers }), server(peer), trusted);

describe('clientAddress', () => {
  const proxies = ['127.0.0.1', '10.0.0.0/8', 'fd00::/8'];

  test('an untrusted peer is the client whatever it says', () => {
    expect(from('203.0.113.1', { 'x-forwarded-for': '1.1.1.1' }, proxies)).toBe('203.0.113.1');
    expect(from('203.0.113.1', { forwarded: 'for=1.1.1.1' }, proxies)).toBe('203.0.113.1');
  });

  test('an IPv4-mapped IPv6 peer matches its IPv4 range', () => {
    expect(from('::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.2' }, proxies)).toBe('198.51.100.2');
  });

  test('hops that are not addresses stop the walk at the last trusted proxy', () => {
    expect(from('127.0.0.1', { 'x-forwarded-for': 'garbage, 10.0.0.5' }, proxies)).toBe('10.0.0.5');
    expect(from('127.0.0.1', { 'x-forwarded-for': '' }, proxies)).toBe('127.0.0.1');
    expect(from('127.0.0.1', { forwarded: 'for=_hidden' }, proxies)).toBe('127.0.0.1');
    expect(from('127.0.0.1', { 'x-forwarded-for': '198.51.100.9:4711' }, proxies)).toBe('198.51.100.9');
  });

  test('a chain of only trusted proxies yields the farthest one read', () => {
    expect(from('127.0.0.1', { 'x-forwarded-for': '10.0.0.1, 10.0.0.2' }, proxies)).toBe('10.0.0.1');
  });

  test('100,000 forged hops cost a bounded walk', () => {
    const forged = Array.from({ length: 100_000 }, (_, i) => `10.0.${(i >> 8) & 255}.${i & 255}`).join(',');
    const started = performance.now();
    expect(from('127.0.0.1', { 'x-forwarded-for': forged }, proxies)).toMatch(/^10\./);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
