// Associated token accounts of a wallet for a mint, under both token programs. Derived with
// @solana-program/token and remembered: one derivation costs about 0.45 ms (SHA-256 through
// WebCrypto and an on-curve check in BigInt arithmetic, per bump tried), agents ask about the same
// wallet and mint again and again, and a derivation never changes, so entries need no expiry.
import { findAssociatedTokenPda } from '@solana-program/token';
import { address } from '@solana/kit';
import { LRUCache } from 'lru-cache';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './program-ids.ts';

export interface AssociatedTokenAddresses {
  /** Under the SPL Token program. */
  classic: string;
  /** Under Token-2022. */
  token2022: string;
}

// ~200 bytes an entry: 20,000 entries are a few MB. The promise is kept so that concurrent first
// calls for the same pair derive once.
const derived = new LRUCache<string, Promise<AssociatedTokenAddresses>>({ max: 20_000 });

export function associatedTokenAddresses(wallet: string, mint: string): Promise<AssociatedTokenAddresses> {
  const key = wallet + ':' + mint;
  const known = derived.get(key);
  if (known) return known;
  const owner = address(wallet);
  const mintAddress = address(mint);
  const pending = Promise.all(
    [TOKEN_PROGRAM, TOKEN_2022_PROGRAM].map((p) => findAssociatedTokenPda({ owner, mint: mintAddress, tokenProgram: address(p) })),
  ).then(([[classic], [token2022]]) => ({ classic, token2022 }));
  derived.set(key, pending);
  pending.catch(() => derived.delete(key));
  return pending;
}
