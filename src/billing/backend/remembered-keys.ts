// Live keys a backend remembers in memory (by the key itself on SQLite, by its hash on PostgreSQL),
// with each wallet's keys found at once: a claim forgets the wallet's keys without walking them all
// (59-86 ms at 100,000 keys on the event loop, when it did).
import { LRUCache } from 'lru-cache';
import type { KeyOwner } from '../keys.ts';

export class RememberedKeys {
  private readonly byWallet = new Map<string, Set<string>>();
  private readonly byKey: LRUCache<string, KeyOwner>;

  constructor(max = 100_000) {
    this.byKey = new LRUCache<string, KeyOwner>({
      max,
      // However a key leaves (forgotten, replaced, evicted, cleared), its wallet's index lets go of it too.
      dispose: (owner, key) => {
        const keys = this.byWallet.get(owner.wallet);
        keys?.delete(key);
        if (keys?.size === 0) this.byWallet.delete(owner.wallet);
      },
    });
  }

  get(key: string): KeyOwner | undefined {
    return this.byKey.get(key);
  }

  set(key: string, owner: KeyOwner): void {
    this.byKey.set(key, owner);
    const keys = this.byWallet.get(owner.wallet);
    if (keys) keys.add(key);
    else this.byWallet.set(owner.wallet, new Set([key]));
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  clear(): void {
    this.byKey.clear();
  }

  forgetWallet(wallet: string): void {
    for (const key of [...(this.byWallet.get(wallet) ?? [])]) this.byKey.delete(key);
  }
}
