// SOL is written digit for digit from the lamports: floating point gave 1.2345678900000001 for
// 1,234,567,890 lamports in balance_sol and cannot hold the digits beyond 2^53 lamports at all.
import { expect, test } from 'bun:test';
import { lamportsToSol } from '../../src/capabilities/balance.ts';
import { formatSol } from '../../src/chain/format.ts';
import { toJson } from '../../src/json.ts';

test.each([
  [1_234_567_890n, '1.23456789'],
  [0n, '0'],
  [1n, '0.000000001'],
  [100_000_000n, '0.1'],
  [300_000_000n, '0.3'],
  [9_007_199_254_740_993n, '9007199.254740993'],
  [18_446_744_073_709_551_615n, '18446744073.709551615'],
])('%p lamports are %s SOL in the JSON text', (lamports, sol) => {
  expect(toJson({ balance_sol: lamportsToSol(lamports) })).toBe(`{"balance_sol":${sol}}`);
});

test.each([
  [2_200_000, '0.0022'],
  [1_234_567_890n, '1.23456789'],
  [3_000_000_001, '3.000000001'],
  [18_446_744_073_709_551_615n, '18446744073.709551615'],
])('formatSol(%p) (prices and deposits in 402 bodies, tool descriptions, llms.txt) is %s', (lamports, sol) => {
  expect(formatSol(lamports)).toBe(sol);
});

test('the float it replaced really was wrong for these values (the test can fail)', () => {
  expect(String(Number(1_234_567_890n / 1_000_000_000n) + Number(1_234_567_890n % 1_000_000_000n) / 1e9)).not.toBe('1.23456789');
});
