import { base58 } from '@scure/base';

/** The longest base58 text of `bytes` bytes: each character carries log2(58) ≈ 5.86 bits. */
const maxChars = (bytes: number) => Math.ceil((bytes * 8) / Math.log2(58));

/**
 * The bytes of a base58 string of at most `maxBytes` bytes, or null when it is not base58 (decoding
 * throws on a bad letter) or is longer than that many bytes can be. The length is checked first:
 * decoding is quadratic in the text, and a few thousand characters cost tens of milliseconds.
 */
export function base58Bytes(text: string, maxBytes: number): Uint8Array | null {
  if (text.length > maxChars(maxBytes)) return null;
  try {
    return base58.decode(text);
  } catch {
    return null;
  }
}

/** Whether `text` is base58 of exactly `length` bytes (32: an address, 64: a signature). */
export function isBase58Of(text: string, length: number): boolean {
  return base58Bytes(text, length)?.length === length;
}
