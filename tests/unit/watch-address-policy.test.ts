// Where a webhook may point: each refused form of address, and its spellings, on plain data.
import { describe, expect, test } from 'bun:test';
import { refusedAddress, RefusedUrl, webhookTarget } from '../../src/watch/address-policy.ts';
import { backoffMs } from '../../src/watch/deliverer.ts';

const REFUSED = {
  loopback: ['https://127.0.0.1/h', 'https://127.8.9.1/h', 'https://[::1]/h', 'https://[0:0:0:0:0:0:0:1]/h'],
  private: ['https://10.0.0.1/h', 'https://172.16.5.4/h', 'https://192.168.1.1/h'],
  linkLocal: ['https://169.254.169.254/latest/meta-data', 'https://[fe80::1]/h'],
  cgnat: ['https://100.64.0.1/h', 'https://100.127.255.254/h'],
  multicast: ['https://224.0.0.1/h', 'https://[ff02::1]/h'],
  unspecified: ['https://0.0.0.0/h', 'https://[::]/h'],
  ula: ['https://[fc00::1]/h', 'https://[fd12:3456::1]/h'],
  mapped: ['https://[::ffff:127.0.0.1]/h', 'https://[::ffff:10.0.0.1]/h', 'https://[::ffff:a9fe:a9fe]/h'],
  nat64And6to4: ['https://[64:ff9b::7f00:1]/h', 'https://[2002:7f00:1::]/h'],
  spellings: ['https://2130706433/h', 'https://0177.0.0.1/h', 'https://0x7f.0.0.1/h', 'https://0x7f000001/h', 'https://127.1/h', 'https://017700000001/h', 'https://0xa9.0xfe.0xa9.0xfe/h'],
};

describe('webhook address policy', () => {
  for (const [kind, urls] of Object.entries(REFUSED)) {
    test(`refuses ${kind}`, () => {
      for (const u of urls) expect(() => webhookTarget(u, false), u).toThrow(RefusedUrl);
    });
  }

  test('refuses plain http, credentials, and what is not a URL; allows a public https host', () => {
    expect(() => webhookTarget('http://example.com/h', false)).toThrow('https');
    expect(() => webhookTarget('https://user:pw@example.com/h', false)).toThrow('user name');
    expect(() => webhookTarget('not a url', false)).toThrow(RefusedUrl);
    expect(webhookTarget('https://example.com/h', false)).toMatchObject({ host: 'example.com', literal: false });
    expect(webhookTarget('https://93.184.216.34/h', false)).toMatchObject({ literal: true });
    expect(webhookTarget('https://[2606:4700::1]/h', false)).toMatchObject({ literal: true });
  });

  test('WEBHOOK_ALLOW_PRIVATE lets http and loopback through (tests and the sandbox)', () => {
    expect(webhookTarget('http://127.0.0.1:9/h', true).host).toBe('127.0.0.1');
  });

  test('the addresses a name resolves to are judged the same way', () => {
    expect(refusedAddress('93.184.216.34')).toBeNull();
    expect(refusedAddress('2606:4700::1')).toBeNull();
    for (const ip of ['127.0.0.1', '10.1.1.1', '169.254.169.254', '100.64.1.1', '::1', 'fd00::1', 'fe80::2', '::ffff:192.168.0.1', '239.1.1.1']) expect(refusedAddress(ip), ip).not.toBeNull();
  });
});

describe('retry backoff', () => {
  test('doubles from the base, is capped, and jitters within ±25%', () => {
    expect(backoffMs(1, 5, 3600, () => 0.5)).toBe(5000);
    expect(backoffMs(4, 5, 3600, () => 0.5)).toBe(40_000);
    expect(backoffMs(30, 5, 3600, () => 0.5)).toBe(3_600_000);
    expect(backoffMs(2, 5, 3600, () => 0)).toBe(7500);
    expect(backoffMs(2, 5, 3600, () => 1)).toBe(12_500);
    // At these settings, retries go on well past a day before the failing mark.
    let total = 0;
    for (let a = 1; total < 86_400_000; a++) total += backoffMs(a, 5, 3600, () => 0.5);
    expect(total).toBeGreaterThanOrEqual(86_400_000);
  });
});
