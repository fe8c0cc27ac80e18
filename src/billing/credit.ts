// What the credit ledger deals in, whichever database keeps it: an account's balance, the debit a
// paid call took under its call id, and what a refund gave back.

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
