import { base58 } from '@scure/base';

/** The bytes of a base58 string, or null when it is not base58 (decoding throws on a bad letter). */
export function base58Bytes(text: string): Uint8Array | null {
  try {
    return base58.decode(text);
  } catch {
    return null;
  }
}

/** Whether `text` is base58 of exactly `length` bytes (32: an address, 64: a signature). */
export function isBase58Of(text: string, length: number): boolean {
  return base58Bytes(text)?.length === length;
}
