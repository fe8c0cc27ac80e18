// API keys: `cig_` + base58 of 32 random bytes. Only the SHA-256 of a key is stored; the plaintext
// lives in memory just long enough to be returned by the claim.
import { base58 } from '@scure/base';
import { createHash } from 'node:crypto';

export const KEY_PREFIX = 'cig_';

export function generateApiKey(): string {
  return KEY_PREFIX + base58.encode(crypto.getRandomValues(new Uint8Array(32)));
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface KeyOwner {
  wallet: string;
  keyHash: string;
}

/** What became of an issued key that no longer works: when, and who revoked it (null: not recorded, before it was). */
export interface Revocation {
  revokedAt: number;
  revokedBy: 'claim' | 'operator' | null;
}

/** The hash of something shaped like a key; null for anything that cannot be one (never looked up). */
export function keyHashOf(apiKey: string | undefined): string | null {
  if (!apiKey || !apiKey.startsWith(KEY_PREFIX) || apiKey.length > 80) return null;
  return hashApiKey(apiKey);
}
