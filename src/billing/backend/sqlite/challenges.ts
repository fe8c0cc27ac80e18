// Claim challenges: 32 random bytes as hex, stored server side, single use, valid for a limited
// time. A challenge bound to a wallet is superseded by the next one the same requester (client
// address) asks for that wallet; anyone else's request for the wallet leaves it valid, so nobody
// can break another's claim by asking for challenges in their name.
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { challenges } from '../../../db/schema.ts';

export function issueChallenge(db: Db, ttlSeconds: number, requester: string, wallet?: string, now = Date.now()): { challenge: string; expiresAt: number } {
  const challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
  const expiresAt = now + ttlSeconds * 1000;
  db.transaction(() => {
    db.delete(challenges).where(lt(challenges.expiresAt, now)).run();
    if (wallet) db.delete(challenges).where(and(eq(challenges.wallet, wallet), eq(challenges.requester, requester))).run();
    db.insert(challenges).values({ challenge, wallet: wallet ?? null, requester, createdAt: now, expiresAt }).run();
  });
  return { challenge, expiresAt };
}

/**
 * Removes the challenge whatever happens next (any claim attempt uses it up) and says whether it
 * may still be used by this wallet.
 */
export function consumeChallenge(db: Db, challenge: string, wallet: string, now = Date.now()): boolean {
  const row = db.delete(challenges).where(eq(challenges.challenge, challenge)).returning().get();
  if (!row || row.expiresAt <= now) return false;
  return row.wallet === null || row.wallet === wallet;
}
