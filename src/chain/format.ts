// Exact, human-readable amounts and short labels for mints and addresses.
// No floating point anywhere: raw integer amounts (bigint) are scaled by their decimals as strings.

import { WRAPPED_SOL_MINT } from './program-ids';

/** Lamports per SOL, as decimals of the native coin. */
export const SOL_DECIMALS = 9;

/**
 * `raw / 10^decimals` written exactly, trailing zeros (and a bare dot) trimmed, sign kept.
 * formatUnits(1n, 9) === '0.000000001'; formatUnits(-1500000000n, 9) === '-1.5'; formatUnits(5n, 0) === '5'.
 */
export function formatUnits(raw: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new RangeError(`decimals must be an integer in 0..255 (a mint's u8), got ${String(decimals)}`);
  }
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString();
  let text: string;
  if (decimals === 0) {
    text = digits;
  } else {
    const padded = digits.padStart(decimals + 1, '0');
    const whole = padded.slice(0, padded.length - decimals);
    // Trim trailing zeros by scanning (a `/0+$/` regex is quadratic on a long run of zeros).
    let end = padded.length;
    while (end > padded.length - decimals && padded.charCodeAt(end - 1) === 48) end--;
    const fraction = padded.slice(padded.length - decimals, end);
    text = fraction ? `${whole}.${fraction}` : whole;
  }
  return negative && text !== '0' ? `-${text}` : text;
}

/**
 * `part / whole × 100`, rounded half-up to `places` decimals, computed in bigint and returned as
 * a number (exact to the stated places: the integer numerator is < 2^53 for any share ≤ 100%).
 * Returns null when `whole` is zero (a zero supply has no shares) or negative.
 */
export function percentOf(part: bigint, whole: bigint, places = 4): number | null {
  if (!Number.isInteger(places) || places < 0 || places > 8) throw new RangeError(`places must be 0..8, got ${places}`);
  if (whole <= 0n) return null;
  const scale = 10n ** BigInt(places);
  const negative = part < 0n;
  const magnitude = negative ? -part : part;
  // round(m × 100 × scale / whole) half-up == floor((2 × m × 100 × scale + whole) / (2 × whole))
  const scaled = (2n * magnitude * 100n * scale + whole) / (2n * whole);
  const value = Number(scaled) / Number(scale);
  return negative ? -value : value;
}

/** Lamports as exact SOL: formatSol(2200000) === '0.0022'; formatSol(1234567890n) === '1.23456789'. */
export function formatSol(lamports: number | bigint): string {
  return formatUnits(BigInt(lamports), SOL_DECIMALS);
}

/** A deliberately small table of well-known mints (each address checked against a recorded fixture or a public list). */
export const KNOWN_MINTS: Readonly<Record<string, string>> = {
  [WRAPPED_SOL_MINT]: 'wSOL', // tests/fixtures/mainnet: every swap fixture; program-ids.md
  EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: 'USDC', // getAccountInfo/usdc-mint-gem.json; program-ids.md
  Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: 'USDT', // getAccountInfo/usdt-mint-base58-default-encoding-notes.json
  '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo': 'PYUSD', // getAccountInfo/pyusd-token2022-mint-gem.json (tokenMetadata symbol PYUSD)
  DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263: 'BONK', // getAccountInfo/bonk-mint-authorities-revoked-memecoinbot.json
  JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN: 'JUP', // Jupiter token list entry (symbol JUP, decimals 6), several public sources
};

/** The symbol of a well-known mint, or null. */
export function mintSymbol(mint: string): string | null {
  return KNOWN_MINTS[mint] ?? null;
}

/** "3p7eCg…pump" style shortening: first 6 and last 4 characters around an ellipsis. */
export function shortenAddress(address: string, head = 6, tail = 4): string {
  return address.length <= head + tail + 1 ? address : `${address.slice(0, head)}…${address.slice(-tail)}`;
}

/** Symbol for a known mint, otherwise the shortened mint address (e.g. "3p7eCg…pump"). */
export function mintLabel(mint: string): string {
  return mintSymbol(mint) ?? shortenAddress(mint);
}

/** "1.5 SOL", "212.3 USDC", "27504.297755 BUZFom…pump". `asset` is 'SOL' for the native coin, else a mint. */
export function formatAssetAmount(raw: bigint, decimals: number, asset: string): string {
  return `${formatUnits(raw, decimals)} ${asset === 'SOL' ? 'SOL' : mintLabel(asset)}`;
}
