import { describe, expect, test } from 'bun:test';
import { parseJson } from '../../src/json.ts';
import { formatAssetAmount, formatUnits, mintLabel, mintSymbol, percentOf, shortenAddress } from '../../src/chain/format.ts';

const FIX = `${import.meta.dir}/../fixtures/mainnet`;
const load = async (path: string): Promise<any> => parseJson(await Bun.file(`${FIX}/${path}`).text());

describe('formatUnits (exact, no floating point)', () => {
  test('one lamport', () => {
    expect(formatUnits(1n, 9)).toBe('0.000000001');
  });

  test('trims trailing zeros and a bare dot', () => {
    expect(formatUnits(1_500_000_000n, 9)).toBe('1.5');
    expect(formatUnits(400_000_000n, 9)).toBe('0.4');
    expect(formatUnits(100n, 2)).toBe('1');
    expect(formatUnits(1050n, 3)).toBe('1.05');
    expect(formatUnits(0n, 9)).toBe('0');
  });

  test('decimals 0 keeps the integer', () => {
    expect(formatUnits(5n, 0)).toBe('5');
    expect(formatUnits(1000n, 0)).toBe('1000');
  });

  test('18 decimals, including digits a double would lose', () => {
    expect(formatUnits(10n ** 18n, 18)).toBe('1');
    expect(formatUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatUnits(123_456_789_012_345_678_901_234_567_890n, 18)).toBe('123456789012.34567890123456789');
  });

  test('raw amounts above 2^53 stay exact', () => {
    expect(formatUnits(2n ** 53n + 1n, 0)).toBe('9007199254740993');
    // pool balance from the failed Raydium fixture: 3393843850625123817 base units, 6 decimals
    expect(formatUnits(3_393_843_850_625_123_817n, 6)).toBe('3393843850625.123817');
    expect(formatUnits(18_446_744_073_709_551_615n, 9)).toBe('18446744073.709551615');
  });

  test('negative amounts keep their sign', () => {
    expect(formatUnits(-1_500_000_000n, 9)).toBe('-1.5');
    expect(formatUnits(-1n, 6)).toBe('-0.000001');
  });

  test('rejects impossible decimals', () => {
    expect(() => formatUnits(1n, -1)).toThrow(RangeError);
    expect(() => formatUnits(1n, 1.5)).toThrow(RangeError);
    expect(() => formatUnits(1n, Number.NaN)).toThrow(RangeError);
    expect(() => formatUnits(1n, 256)).toThrow(RangeError); // mint decimals are a u8
    expect(formatUnits(1n, 255)).toBe(`0.${'0'.repeat(254)}1`);
  });
  test('is exact above 2^53 (BONK supply matches getTokenSupply uiAmountString)', async () => {
    const supply = await load('getTokenSupply/bonk-memecoinbot.json');
    expect(formatUnits(BigInt(supply.value.amount), supply.value.decimals)).toBe('87994713435828.88521');
    expect(formatUnits(8799471343582888521n, 5)).toBe(supply.value.uiAmountString);
    expect(formatUnits(2n ** 64n - 1n, 9)).toBe('18446744073.709551615');
    expect(formatUnits(2n ** 64n - 1n, 20)).toBe('0.18446744073709551615');
  });
  test('agrees with the node on every getTokenLargestAccounts row', async () => {
    for (const file of ['6-decimal-mint-top20-raw-field-order-bobradar.json', '8-decimal-mint-top20-sava.json']) {
      const rows = (await load(`getTokenLargestAccounts/${file}`)).value as { amount: string; decimals: number; uiAmountString: string }[];
      expect(rows.length).toBe(20);
      for (const row of rows) expect(formatUnits(BigInt(row.amount), row.decimals)).toBe(row.uiAmountString);
    }
  });
});

describe('mint labels', () => {
  test('known mints get a symbol', () => {
    expect(mintSymbol('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe('USDC');
    expect(mintSymbol('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB')).toBe('USDT');
    expect(mintSymbol('2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo')).toBe('PYUSD');
    expect(mintSymbol('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')).toBe('BONK');
    expect(mintSymbol('JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN')).toBe('JUP');
    expect(mintSymbol('So11111111111111111111111111111111111111112')).toBe('wSOL');
  });

  test('unknown mints are shortened, not named', () => {
    expect(mintSymbol('3p7eCgdQx1RiJUfr4t7Z8w6DpVbP7CMa9Z6Ff69tpump')).toBeNull();
    expect(mintLabel('3p7eCgdQx1RiJUfr4t7Z8w6DpVbP7CMa9Z6Ff69tpump')).toBe('3p7eCg…pump');
    expect(mintLabel('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe('USDC');
  });

  test('shortenAddress leaves short strings alone', () => {
    expect(shortenAddress('So11111111111111111111111111111111111111112')).toBe('So1111…1112');
    expect(shortenAddress('abc')).toBe('abc');
  });

  test('formatAssetAmount', () => {
    expect(formatAssetAmount(1_500_000_000n, 9, 'SOL')).toBe('1.5 SOL');
    expect(formatAssetAmount(212_300_000n, 6, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe('212.3 USDC');
    expect(formatAssetAmount(27_504_297_755n, 6, 'BUZFom1YPnAZVYSccbpddBmFYmHcS4Xtc3JQG5cFpump')).toBe('27504.297755 BUZFom…pump');
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
