import { describe, expect, test } from 'bun:test';
import { parseJson } from '../../src/json.ts';
import { formatUnits, percentOf } from '../../src/chain/format.ts';

const FIX = `${import.meta.dir}/../fixtures/mainnet`;
const load = async (path: string): Promise<any> => parseJson(await Bun.file(`${FIX}/${path}`).text());

describe('formatUnits', () => {
  test('trims trailing zeros and the dot', () => {
    expect(formatUnits(1_500_000n, 6)).toBe('1.5');
    expect(formatUnits(1_000_000n, 6)).toBe('1');
    expect(formatUnits(10_000_000n, 6)).toBe('10');
    expect(formatUnits(1_234_567_890n, 3)).toBe('1234567.89');
  });
  test('pads small amounts with leading zeros', () => {
    expect(formatUnits(1n, 9)).toBe('0.000000001');
    expect(formatUnits(120n, 6)).toBe('0.00012');
    expect(formatUnits(0n, 6)).toBe('0');
  });
  test('zero decimals is the integer itself', () => {
    expect(formatUnits(42n, 0)).toBe('42');
    expect(formatUnits(0n, 0)).toBe('0');
  });
  test('is exact above 2^53 (BONK supply matches getTokenSupply uiAmountString)', async () => {
    const supply = await load('getTokenSupply/bonk-memecoinbot.json');
    expect(formatUnits(BigInt(supply.value.amount), supply.value.decimals)).toBe('87994713435828.88521');
    expect(formatUnits(8799471343582888521n, 5)).toBe(supply.value.uiAmountString);
    expect(formatUnits(2n ** 64n - 1n, 9)).toBe('18446744073.709551615');
    expect(formatUnits(2n ** 64n - 1n, 20)).toBe('0.18446744073709551615');
  });
  test('negative amounts keep the sign', () => {
    expect(formatUnits(-1_500_000n, 6)).toBe('-1.5');
    expect(formatUnits(-5n, 2)).toBe('-0.05');
  });
  test('rejects impossible decimals', () => {
    expect(() => formatUnits(1n, -1)).toThrow(RangeError);
    expect(() => formatUnits(1n, 1.5)).toThrow(RangeError);
    expect(() => formatUnits(1n, 256)).toThrow(RangeError);
  });
  test('agrees with the node on every getTokenLargestAccounts row', async () => {
    for (const file of ['6-decimal-mint-top20-raw-field-order-bobradar.json', '8-decimal-mint-top20-sava.json']) {
      const rows = (await load(`getTokenLargestAccounts/${file}`)).value as { amount: string; decimals: number; uiAmountString: string }[];
      expect(rows.length).toBe(20);
      for (const row of rows) expect(formatUnits(BigInt(row.amount), row.decimals)).toBe(row.uiAmountString);
    }
  });
});

describe('percentOf', () => {
  test('rounds half-up to 4 decimals, exactly', () => {
    expect(percentOf(1n, 3n)).toBe(33.3333);
    expect(percentOf(2n, 3n)).toBe(66.6667);
    expect(percentOf(1n, 8n)).toBe(12.5);
    expect(percentOf(1n, 2_000_000n)).toBe(0.0001); // 0.00005% rounds up
    expect(percentOf(1n, 2_000_001n)).toBe(0); // just below half a unit
    expect(percentOf(5n, 5n)).toBe(100);
  });
  test('handles supplies above 2^53 without float error', () => {
    const supply = 8799471343582888521n;
    expect(percentOf(supply / 2n, supply)).toBe(50);
    // 1/7 of a u64-sized supply: 14.285714...% → 14.2857
    expect(percentOf(2n ** 62n, 7n * 2n ** 62n)).toBe(14.2857);
  });
  test('zero supply has no share (no division by zero)', () => {
    expect(percentOf(0n, 0n)).toBeNull();
    expect(percentOf(10n, 0n)).toBeNull();
  });
  test('other precisions', () => {
    expect(percentOf(1n, 3n, 2)).toBe(33.33);
    expect(percentOf(2n, 3n, 0)).toBe(67);
    expect(() => percentOf(1n, 3n, 9)).toThrow(RangeError);
  });
});
