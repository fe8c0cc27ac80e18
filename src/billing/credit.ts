// What the credit ledger deals in, whichever database keeps it: an account's balance, the debit a
// paid call took under its call id, and what a refund gave back; and the pure steps a ledger applies
// to an account (a free call first, else the price from credit; a refund gives back exactly that).

export interface Balance {
  freeCalls: number;
  creditLamports: bigint;
}

export interface Debit {
  /** The call it paid for (resilience/call-id.ts): what its refund and usage row go by. */
  callId: string;
  wallet: string;
  kind: 'free' | 'credit';
  price: number;
  balance: Balance;
}

/**
 * The call a refund gives back, found by its id on the wallet's account; what it took is read from
 * its record. The rest of the debit, when the caller holds it, comes back as the refund's `given`.
 */
export type DebitRef = Pick<Debit, 'callId' | 'wallet'> & Partial<Debit>;

/** What a refund did: the account after it, and the debit it gave back as recorded. */
export interface Refund {
  balance: Balance;
  /** Null when nothing was owed: the call was never debited (its debit did not commit), or was refunded already. */
  given: Debit | null;
}

export interface AccountView extends Balance {
  wallet: string;
  callsMade: number;
}

/** A debit on `account`: one free call first, else `price` lamports of credit; undefined when it cannot pay. */
export function debitStep(account: AccountView | null, price: number): { kind: Debit['kind']; next: AccountView } | undefined {
  if (!account) return undefined;
  if (account.freeCalls > 0) return { kind: 'free', next: { ...account, freeCalls: account.freeCalls - 1, callsMade: account.callsMade + 1 } };
  const lamports = BigInt(price);
  if (account.creditLamports >= lamports) return { kind: 'credit', next: { ...account, creditLamports: account.creditLamports - lamports, callsMade: account.callsMade + 1 } };
  return undefined;
}

/** Gives back exactly what `debit` took from `account`. */
export function refundStep(account: AccountView, debit: Pick<Debit, 'kind' | 'price'>): AccountView {
  return debit.kind === 'free'
    ? { ...account, freeCalls: account.freeCalls + 1, callsMade: account.callsMade - 1 }
    : { ...account, creditLamports: account.creditLamports + BigInt(debit.price), callsMade: account.callsMade - 1 };
}
