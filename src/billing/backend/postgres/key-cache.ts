// Live keys a PostgreSQL replica has seen, so that a call with a known key costs no query. Sound for
// money because no debit relies on it: a paid call's key is checked live again in its debit's own
// transaction (ledger.ts), and a key found revoked there is forgotten and refused (KeyGone).
// What else reads a key's owner (GET /api/keys/me, the rate-limit bucket) may go on seeing a key
// revoked on another replica, or by the operator, until the next look at every remembered key,
// at most KEY_RECHECK_MS later. Keys not remembered are looked up together, one query for all
// those asked while the previous one ran. Only live keys are remembered (unknown ones would let
// anyone fill the memory), by their hash, in memory only.
import { keyHashOf, type KeyOwner } from '../../keys.ts';
import { KeyedBatch } from './keyed-batch.ts';
import { RememberedKeys } from '../remembered-keys.ts';

/** How often every remembered key is looked at again (one query per RECHECK_CHUNK keys). */
export const KEY_RECHECK_MS = 10_000;
const RECHECK_CHUNK = 5000;

export interface KeyQueries {
  /** The owners of those of `keyHashes` that are live (unrevoked). */
  live(keyHashes: string[]): Promise<Map<string, string>>;
}

export class KeyCache {
  private readonly known: RememberedKeys;
  /** Keys not remembered, looked up together: one query for all those asked while the last ran. */
  private readonly lookUps = new KeyedBatch<KeyOwner | null>(async (asked) => {
    const found = new Map<string, KeyOwner>();
    for (const [keyHash, wallet] of await this.queries.live([...asked.keys()])) found.set(keyHash, { wallet, keyHash });
    for (const owner of found.values()) this.known.set(owner.keyHash, owner);
    return (keyHash) => found.get(keyHash) ?? null;
  });
  private readonly recheck: ReturnType<typeof setInterval>;

  constructor(
    private readonly queries: KeyQueries,
    recheckMs = KEY_RECHECK_MS,
    maxKeys = 100_000,
  ) {
    this.known = new RememberedKeys(maxKeys);
    this.recheck = setInterval(() => void this.recheckAll().catch(() => {}), recheckMs);
    this.recheck.unref();
  }

  /** Who holds this key: at once when remembered, else asked of the database. */
  identify(apiKey: string | undefined): KeyOwner | null | Promise<KeyOwner | null> {
    const keyHash = keyHashOf(apiKey);
    if (!keyHash) return null;
    return this.known.get(keyHash) ?? this.lookUps.ask(keyHash);
  }

  forget(keyHash: string): void {
    this.known.delete(keyHash);
  }

  /** Forgets every key of the wallet (a claim here revoked them). */
  forgetWallet(wallet: string): void {
    this.known.forgetWallet(wallet);
  }

  close(): void {
    clearInterval(this.recheck);
  }

  /** Forgets the remembered keys that were revoked meanwhile. */
  private async recheckAll(): Promise<void> {
    const hashes = this.known.keys();
    for (let i = 0; i < hashes.length; i += RECHECK_CHUNK) {
      const chunk = hashes.slice(i, i + RECHECK_CHUNK);
      const live = await this.queries.live(chunk);
      for (const keyHash of chunk) if (!live.has(keyHash)) this.known.delete(keyHash);
    }
  }
}
