// Crafted worst cases for every regex over upstream or chain text in src/chain/: a node (or a
// transaction's own program) controls error variant names, log lines and wire text, so each must
// decode in linear time. The bound is generous on purpose: it tells linear from quadratic, it is
// not a benchmark (the quadratic versions took seconds on these inputs).

import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../src/json';
import { formatUnits } from '../../src/chain/format';
import { inspectWireTransaction } from '../../src/chain/wire';
import { describeTransaction } from '../../src/chain/tx/describe';
import { describeTransactionError } from '../../src/chain/tx/errors';
import { programIdsFromLogs } from '../../src/chain/tx/normalize';
import { simulationBody } from '../../src/capabilities/simulate';
import { base58Bytes, isBase58Of } from '../../src/chain/base58';
import { findAta } from '../../src/capabilities/find-ata';
import { parseInput } from '../../src/capabilities/capability';

const N = 60_000;
const BOUND_MS = 1000;
const FIXTURE = join(import.meta.dir, '../fixtures/mainnet/getTransaction/failed-raydium-amm-v4-swap-slippage-custom30-bloxroute-base64-sava.json');

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

// Upper-case runs (what made the old humanize regex quadratic), digits, and a run broken at the end.
const HOSTILE_NAMES = ['A'.repeat(N), `${'A'.repeat(N)}1`, `${'A'.repeat(N)}a`, 'Ab'.repeat(N / 2), `${'1'.repeat(N)}A`];
const B58 = '1'.repeat(44);
const HOSTILE_LOGS = [
  `Program ${'1'.repeat(N)}`,
  `Program ${B58} invoke [${'1'.repeat(N)}x`,
  `Program ${B58} failed: ${'A'.repeat(N)}`,
  `Program ${'1'.repeat(40)} ${'failed: '.repeat(N / 8)}`,
  `Program log: ${'Program '.repeat(N / 8)}`,
];

describe('hostile input decodes in linear time', () => {
  test.each(HOSTILE_NAMES.map((n) => [n.slice(0, 12), n] as const))('error variant name %s… (60k chars)', (_label, name) => {
    for (const err of [{ InstructionError: [0, name] }, { InstructionError: [0, { [name]: name }] }, name, { [name]: { account_index: 1 } }]) {
      const { value, ms } = timed(() => describeTransactionError(err, { logs: HOSTILE_LOGS }));
      expect(ms).toBeLessThan(BOUND_MS);
      // the text that reaches a prompt stays short and printable
      expect(value!.message.length).toBeLessThan(600);
    }
  });

  test('log lines crafted against the invoke/failed line patterns', () => {
    const { value, ms } = timed(() => programIdsFromLogs(HOSTILE_LOGS));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(value).toEqual([]);
  });

  test('a whole recorded transaction with hostile logs and a hostile error', () => {
    const rpc = parseJson(readFileSync(FIXTURE, 'utf8')) as { meta: Record<string, unknown> };
    rpc.meta.logMessages = [...HOSTILE_LOGS, ...(rpc.meta.logMessages as string[])];
    rpc.meta.err = { InstructionError: [2, 'A'.repeat(N)] };
    const { value, ms } = timed(() => describeTransaction(rpc, { signature: 'x', network: 'mainnet-beta' }));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(value.details.status).toBe('FAILED');
    expect(value.summary.length).toBeLessThan(1000);
  });

  test('simulate error text', () => {
    const { ms } = timed(() => simulationBody({ err: { InstructionError: [0, 'A'.repeat(N)] }, logs: HOSTILE_LOGS }));
    expect(ms).toBeLessThan(BOUND_MS);
  });

  test('wire base64 check on a long almost-base64 string', () => {
    for (const text of [`${'A'.repeat(N)}!`, `${'AAAA'.repeat(N / 4)}A=`, `${'A'.repeat(N + 1)}==`]) {
      const { ms } = timed(() => expect(() => inspectWireTransaction(text)).toThrow());
      expect(ms).toBeLessThan(BOUND_MS);
    }
  });

  test('amounts with the widest decimals and long zero runs', () => {
    const { value, ms } = timed(() => [formatUnits(10n ** 250n + 1n, 255), formatUnits(10n ** 254n, 255)]);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(value).toEqual([`0.00001${'0'.repeat(249)}1`, '0.1']);
  });
});

describe('base58 fields are measured before they are decoded', () => {
  test('text longer than the bytes it must hold is refused without decoding', () => {
    expect(base58Bytes('2'.repeat(45), 32)).toBeNull();
    expect(isBase58Of('z'.repeat(44), 32)).toBe(false); // 33 bytes
    expect(base58Bytes('1'.repeat(32), 32)).toEqual(new Uint8Array(32));
    expect(isBase58Of('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 32)).toBe(true);
  });

  test('a thousand 4000-character "addresses" (about the slowest length to decode: 5-35 ms each before) are refused at once', () => {
    const raw = { wallet: '2'.repeat(4000), mint: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' };
    const { ms } = timed(() => {
      for (let i = 0; i < 1000; i++) expect(() => parseInput(findAta, raw)).toThrow('Invalid wallet');
    });
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe('validated addresses are remembered, refused ones are not', () => {
  test('a valid address stays valid, an invalid one stays invalid, however often it is asked', () => {
    const good = { wallet: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', mint: 'So11111111111111111111111111111111111111112' };
    const bad = { ...good, wallet: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D0' }; // '0' is not base58
    for (let i = 0; i < 3; i++) {
      expect(parseInput(findAta, good)).toMatchObject({ wallet: good.wallet, mint: good.mint });
      expect(() => parseInput(findAta, bad)).toThrow('Invalid wallet');
    }
  });
});
