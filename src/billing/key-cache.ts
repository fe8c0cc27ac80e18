// Live keys a PostgreSQL replica has seen, so that a call with a known key costs no query. Sound for
// money because no debit relies on it: a paid call's key is checked live again in its debit's own
// transaction (pg-ledger.ts), and a key found revoked there is forgotten and refused (KeyGone).
// What else reads a key's owner (GET /api/keys/me, the rate-limit bucket) may go on seeing a key
// revoked on another replica, or by the operator, for at most KEY_RECHECK_MS. Only live keys are
// remembered (unknown ones would let anyone fill the memory), by their hash, in memory only.
import { LRUCache } from 'lru-cache';
import { keyHashOf, type KeyOwner } from './keys.ts';

/** How long a remembered key is trusted for anything but a debit before it is looked up again. */
export const KEY_RECHECK_MS = 30_000;

/** A store's debit found the call's key revoked in its own transaction: nothing was taken. */
export class KeyGone extends Error {
  constructor() {
    super('the key was revoked');
  }
}

export class KeyCache {
  private readonly live = new LRUCache<string, KeyOwner>({ max: 100_000, ttl: KEY_RECHECK_MS });

  constructor(private readonly lookUp: (keyHash: string) => Promise<KeyOwner | null>) {}

  /** Who holds this key: at once when remembered, else asked of the database. */
  identify(apiKey: string | undefined): KeyOwner | null | Promise<KeyOwner | null> {
    const keyHash = keyHashOf(apiKey);
    if (!keyHash) return null;
    const known = this.live.get(keyHash);
    if (known) return known;
    return this.lookUp(keyHash).then((owner) => {
      if (owner) this.live.set(keyHash, owner);
      return owner;
    });
  }

  forget(keyHash: string): void {
    this.live.delete(keyHash);
  }

  /** Forgets every key of the wallet (a claim here revoked them); claims are rare, so a walk is cheap enough. */
  forgetWallet(wallet: string): void {
    for (const [keyHash, owner] of this.live.entries()) if (owner.wallet === wallet) this.live.delete(keyHash);
  }
}
