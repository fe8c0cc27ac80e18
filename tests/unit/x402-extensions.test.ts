// The pure parts of x402's extensions on plain data: which origin a sign-in proof must name, the
// chains offered, the discovery listing's paging against hostile queries, and a receipt key file
// refused the way the fee payer's is (a line naming the setting, never the file's contents).
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSignIn, signInChains } from '../../src/billing/x402/siwx.ts';
import { loadReceipts } from '../../src/billing/x402/receipts.ts';
import type { ExtensionStore } from '../../src/billing/x402/ext-store.ts';
import { listingPage, type ListedResource } from '../../src/discovery/resources.ts';
import { ConfigError } from '../../src/config.ts';

const NO_STORE = {} as ExtensionStore;
const signIn = (publicUrl?: string) => createSignIn({ paymentNetwork: 'mainnet-beta', publicUrl, localHosts: ['gw.lan'], seconds: 300 }, NO_STORE);

describe('sign-in origin', () => {
  test('PUBLIC_URL binds every proof to its origin, whatever the request names', () => {
    const s = signIn('https://gateway.example.com/solana');
    for (const requested of ['http://127.0.0.1:3000', 'https://evil.example', undefined]) expect(s.originFor(requested)?.origin).toBe('https://gateway.example.com');
  });

  test('without it: loopback and configured hosts only; a foreign or malformed origin binds none', () => {
    const s = signIn();
    expect(s.originFor('http://127.0.0.1:3000')?.host).toBe('127.0.0.1:3000');
    expect(s.originFor('http://localhost:8080')?.host).toBe('localhost:8080');
    expect(s.originFor('http://[::1]:3000')?.host).toBe('[::1]:3000');
    expect(s.originFor('https://gw.lan')?.origin).toBe('https://gw.lan');
    for (const foreign of ['https://evil.example', 'http://127.0.0.1.evil.example', 'not a url', undefined]) expect(s.originFor(foreign)).toBeUndefined();
  });

  test('the payment network is offered first (a client signs for the first chain that fits)', () => {
    expect(signInChains('devnet')).toEqual(['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']);
  });
});

describe('discovery paging', () => {
  const all = Array.from({ length: 7 }, (_, i) => ({ resource: `r${i}`, type: i % 2 ? 'mcp' : 'http', accepts: [], extensions: { bazaar: {} } }) as unknown as ListedResource);
  const page = (q: Record<string, string>) => {
    const answer = listingPage(all, q);
    if ('refused' in answer) throw new Error(answer.refused.error);
    return answer.page as { items: ListedResource[]; pagination: { cursor: string | null; total: number } };
  };

  test('cursors walk every item once; past the end is an empty last page', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const p = page({ limit: '3', ...(cursor ? { cursor } : {}) });
      seen.push(...p.items.map((i) => i.resource));
      cursor = p.pagination.cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.map((r) => r.resource));
    expect(page({ offset: '99' })).toMatchObject({ items: [], pagination: { cursor: null, total: 7 } });
    expect(page({ type: 'mcp' }).pagination.total).toBe(3);
  });

  test('hostile paging is refused with a hint, never thrown', () => {
    for (const q of [{ limit: '1e2' }, { limit: '-1' }, { limit: '' }, { cursor: 'x'.repeat(17) }, { cursor: Buffer.from('-5').toString('base64url') }, { cursor: Buffer.from('1.5').toString('base64url') }, { offset: 'NaN' }, { type: 'HTTP' }]) {
      const answer = listingPage(all, q);
      expect(['refused' in answer, q]).toEqual([true, q]);
    }
  });
});

describe('receipt key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cig-receipt-key-'));
  test('missing, not a keypair, halves that do not match: a ConfigError naming the setting, without the contents', () => {
    const secret = [...Array(32).keys()].map((i) => i + 7);
    const files: Record<string, string> = {
      'not-json.json': 'hunter2 secret words',
      'short.json': JSON.stringify(secret),
      'mismatch.json': JSON.stringify([...secret, ...Array(32).fill(9)]),
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    for (const name of ['absent.json', ...Object.keys(files)]) {
      let error: unknown;
      try {
        loadReceipts(join(dir, name));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toStartWith('X402_RECEIPT_KEYPAIR / --x402-receipt-keypair: ');
      expect((error as Error).message).not.toContain('hunter2');
      expect((error as Error).message).not.toContain(String(secret[3]) + ',');
    }
  });
});
