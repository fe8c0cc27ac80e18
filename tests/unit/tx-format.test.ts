import { describe, expect, test } from 'bun:test';
import { formatAssetAmount, formatUnits, mintLabel, mintSymbol, shortenAddress } from '../../src/chain/format';

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
