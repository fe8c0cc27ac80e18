// Whose side a decode tells (issue 35): by default the fee payer's, or, given a wallet, that wallet's, so that
// a transfer someone else paid for reads as the wallet's own and an incoming one as received. Pure: the
// per-owner changes in, the choice of speaker and of the parties named after it out; describe.ts words them.
import { type OwnerChanges, balanceChangesFor, createdAccountSigners } from './changes';
import type { NormalizedTransaction } from './normalize';

/** Another party whose movements the summary tells after the speaker's, and how it is named there. */
export interface OtherParty {
  readonly role: 'co-signer' | 'fee payer';
  readonly changes: OwnerChanges;
}

export interface Side {
  /** Whose changes lead the summary. */
  readonly speaker: OwnerChanges;
  readonly others: readonly OtherParty[];
  /** The fee payer, when the speaker signed a transaction another wallet paid for and that payer moved nothing else. */
  readonly paidBy: string | null;
}

/**
 * The default side: the fee payer, or the first signer that moved anything when the fee payer only paid the
 * fee (a relayer); the other signers that moved anything follow as co-signers.
 */
export function feePayerSide(tx: NormalizedTransaction, owners: readonly OwnerChanges[]): Side {
  const signers = new Set(tx.signers);
  const signerChanges = owners.filter((o) => signers.has(o.owner));
  const payer = owners.find((o) => o.owner === tx.feePayer) ?? balanceChangesFor(tx, tx.feePayer);
  const speaker = payer.changes.length > 0 ? payer : (signerChanges.find((o) => o.changes.length > 0) ?? payer);
  const others = signerChanges.filter((o) => o !== speaker && o.changes.length > 0).map((changes) => ({ role: 'co-signer' as const, changes }));
  return { speaker, others, paidBy: null };
}

/**
 * `wallet`'s side: its own changes lead (computed when it is in no per-owner entry: a wallet that only
 * received SOL). When it signed, the other signers that moved anything follow (the fee payer named so), and a
 * fee payer that moved nothing else is named as having paid the fee; when it did not sign, its own story is
 * the whole summary (who sent it is its changes' counterparty).
 */
export function walletSide(tx: NormalizedTransaction, owners: readonly OwnerChanges[], wallet: string): Side {
  const speaker = owners.find((o) => o.owner === wallet) ?? balanceChangesFor(tx, wallet);
  if (!tx.signers.includes(wallet)) return { speaker, others: [], paidBy: null };
  const signers = new Set(tx.signers);
  const others = owners
    .filter((o) => o.owner !== wallet && signers.has(o.owner) && o.changes.length > 0)
    .map((changes) => ({ role: changes.owner === tx.feePayer ? ('fee payer' as const) : ('co-signer' as const), changes }));
  const payerMoved = others.some((o) => o.role === 'fee payer');
  return { speaker, others, paidBy: wallet !== tx.feePayer && !payerMoved ? tx.feePayer : null };
}

/**
 * The wallets on the other side of `wallet`'s changes: each change's counterparty when one can be singled
 * out, in order; when none can, the signers other than the wallet (who acted on it).
 */
export function counterpartiesOf(tx: NormalizedTransaction, changes: OwnerChanges): string[] {
  const named = changes.changes.flatMap((c) => (c.counterparty !== null && c.counterparty !== changes.owner ? [c.counterparty] : []));
  if (named.length > 0) return [...new Set(named)];
  const created = createdAccountSigners(tx);
  return tx.signers.filter((s) => s !== changes.owner && !created.has(s));
}
