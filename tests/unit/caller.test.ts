// clientAddress on hostile forwarding headers: the socket peer is given as Bun's server reports it.
import { describe, expect, test } from 'bun:test';
import { clientAddress, requestOrigin } from '../../src/calls/caller.ts';

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

describe('requestOrigin: where the client reached the gateway, for x402 offers', () => {
  const proxies = ['127.0.0.1', '10.0.0.0/8'];
  const origin = (peer: string, headers: Record<string, string>, trusted = proxies) => requestOrigin(new Request('http://gw.internal:3000/api/chain/find-ata?x=1', { headers }), server(peer), trusted);

  test("the request's own Host without trusted proxies, or from a peer that is not one, whatever it forwards", () => {
    expect(origin('127.0.0.1', { 'x-forwarded-host': 'evil.example' }, [])).toBe('http://gw.internal:3000');
    expect(origin('203.0.113.1', { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' })).toBe('http://gw.internal:3000');
    expect(origin('203.0.113.1', { forwarded: 'host=evil.example;proto=https' })).toBe('http://gw.internal:3000');
  });

  test('from a trusted proxy: the forwarded host and scheme, the last value (the one that proxy wrote)', () => {
    expect(origin('10.1.2.3', { 'x-forwarded-host': 'Gateway.Example.com', 'x-forwarded-proto': 'https' })).toBe('https://gateway.example.com');
    expect(origin('127.0.0.1', { 'x-forwarded-host': 'forged.example, gateway.example.com:8443', 'x-forwarded-proto': 'http, https' })).toBe('https://gateway.example.com:8443');
    expect(origin('127.0.0.1', { forwarded: 'for=1.2.3.4;host=forged.example, for=5.6.7.8;host="gateway.example.com";proto=https' })).toBe('https://gateway.example.com');
    expect(origin('127.0.0.1', { 'x-forwarded-host': '[2001:db8::1]:443', 'x-forwarded-proto': 'https' })).toBe('https://[2001:db8::1]:443');
  });

  test('a forwarded host that is no host, or a scheme that is not http(s), gives way to the request\'s own', () => {
    expect(origin('127.0.0.1', { 'x-forwarded-host': 'evil.example/path?x', 'x-forwarded-proto': 'javascript' })).toBe('http://gw.internal:3000');
    expect(origin('127.0.0.1', { 'x-forwarded-host': 'user@evil.example' })).toBe('http://gw.internal:3000');
    expect(origin('127.0.0.1', { 'x-forwarded-host': 'gateway.example.com', 'x-forwarded-proto': 'gopher' })).toBe('http://gateway.example.com');
  });
});
