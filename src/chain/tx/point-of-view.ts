// Whose side a decode tells (issue 35): by default the fee payer's, or, given a wallet, that wallet's, so that
// a transfer someone else paid for reads as the wallet's own, an incoming one as received, and a token account
// opened for it at another's cost as that, not as rent it paid. Pure: the per-owner changes in, the choice of
// speaker and of the parties named after it out; describe.ts words them.
import { type OwnerChanges, balanceChangesFor, createdAccountSigners, lamportDelta } from './changes';
import type { NormalizedTransaction } from './normalize';
import { SOL_DECIMALS } from '../format';

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
  /** Rent another wallet put into the speaker's token accounts (only for a speaker that did not sign). */
  readonly rentPaidFor: RentPaidFor | null;
}

/** The rent of a wallet's token accounts that someone else paid. */
export interface RentPaidFor {
  readonly lamports: bigint;
  /** Who paid it, when one can be singled out (the counterparty of the wallet's SOL change, else the owner whose SOL opened its account). */
  readonly payer: string | null;
  /** How many of the wallet's token accounts the transaction opened. */
  readonly opened: number;
}

/**
 * The default side: the fee payer, or the first signer that moved anything when the fee payer only paid the
 * fee (a relayer); the other signers that moved anything follow as co-signers. `payer` is the fee payer's
 * changes: its entry in `owners`, else computed for it.
 */
export function feePayerSide(tx: NormalizedTransaction, owners: readonly OwnerChanges[], payer: OwnerChanges): Side {
  const signers = new Set(tx.signers);
  const signerChanges = owners.filter((o) => signers.has(o.owner));
  const speaker = payer.changes.length > 0 ? payer : (signerChanges.find((o) => o.changes.length > 0) ?? payer);
  const others = signerChanges.filter((o) => o !== speaker && o.changes.length > 0).map((changes) => ({ role: 'co-signer' as const, changes }));
  return { speaker, others, paidBy: null, rentPaidFor: null };
}

/**
 * `wallet`'s side: its own changes lead (computed when it is in no per-owner entry: a wallet that only
 * received SOL). When it signed, the other signers that moved anything follow (the fee payer named so), and a
 * fee payer that moved nothing else is named as having paid the fee; when it did not sign, its own story is
 * the whole summary (who sent it is its changes' counterparty).
 */
export function walletSide(tx: NormalizedTransaction, owners: readonly OwnerChanges[], wallet: string): Side {
  const speaker = owners.find((o) => o.owner === wallet) ?? balanceChangesFor(tx, wallet);
  if (!tx.signers.includes(wallet)) return { speaker, others: [], paidBy: null, rentPaidFor: rentPaidFor(tx, owners, speaker) };
  const signers = new Set(tx.signers);
  const others = owners
    .filter((o) => o.owner !== wallet && signers.has(o.owner) && o.changes.length > 0)
    .map((changes) => ({ role: changes.owner === tx.feePayer ? ('fee payer' as const) : ('co-signer' as const), changes }));
  const payerMoved = others.some((o) => o.role === 'fee payer');
  return { speaker, others, paidBy: wallet !== tx.feePayer && !payerMoved ? tx.feePayer : null, rentPaidFor: null };
}

/**
 * The rent in a wallet's token accounts that it did not pay: a wallet that did not sign can pay only what its
 * own account lost (a program's account can lose lamports unsigned), so the rest of the rent came from others.
 * Who paid: the counterparty of its SOL change, else the one owner whose SOL went to open its token account.
 */
export function rentPaidFor(tx: NormalizedTransaction, owners: readonly OwnerChanges[], changes: OwnerChanges): RentPaidFor | null {
  const rent = changes.tokenAccountRentLamports;
  if (rent <= 0n) return null;
  const index = tx.accountKeys.indexOf(changes.owner);
  const own = index < 0 ? 0n : lamportDelta(tx, index);
  const paidItself = own < 0n ? (-own < rent ? -own : rent) : 0n;
  if (paidItself === rent) return null;
  const sol = changes.changes.find((c) => c.asset === 'SOL');
  const opened = new Set(
    tx.postTokenBalances.filter((b) => b.owner === changes.owner && (tx.preBalances[b.accountIndex] ?? 0n) === 0n && (tx.postBalances[b.accountIndex] ?? 0n) > 0n).map((b) => b.accountIndex),
  ).size;
  const openers = owners.filter((o) => o.changes.some((c) => c.counterpartyIsNewTokenAccount && c.counterparty === changes.owner)).map((o) => o.owner);
  const payer = (sol && sol.raw > 0n ? sol.counterparty : null) ?? (openers.length === 1 ? openers[0]! : null);
  return { lamports: rent - paidItself, payer, opened };
}

/** The wallet's changes without the rent others paid for it: what it is told to have sent and received. */
export function withoutRentPaidFor(changes: OwnerChanges, paid: RentPaidFor): OwnerChanges {
  const solLamports = changes.solLamports - paid.lamports;
  const sol = changes.changes.find((c) => c.asset === 'SOL');
  const rest = changes.changes.filter((c) => c !== sol);
  const base = sol ?? { asset: 'SOL', decimals: SOL_DECIMALS, raw: 0n, counterparty: null, counterpartyIsNewTokenAccount: false };
  const keptSol = solLamports === 0n ? [] : [{ ...base, raw: solLamports, counterparty: solLamports > 0n === base.raw > 0n ? base.counterparty : null }];
  return { ...changes, solLamports, tokenAccountRentLamports: changes.tokenAccountRentLamports - paid.lamports, changes: [...keptSol, ...rest] };
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
