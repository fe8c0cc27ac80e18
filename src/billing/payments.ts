// The paid guard as the call pipeline sees it: who holds this key, charge one call, refund it.
// Capabilities never see money; a capability marked paid is charged the same way on every face.
import { formatSol as sol } from '../chain/format.ts';
import type { Config } from '../config.ts';
import { GatewayError } from '../errors.ts';
import { hashApiKey, type KeyOwner } from './keys.ts';
import type { KeptWrites } from './kept-writes.ts';
import type { Balance, Debit, Refund } from './ledger.ts';
import type { BillingStore } from './store.ts';

export type { KeyOwner };

export interface Payments {
  identify(apiKey: string | undefined): KeyOwner | null | Promise<KeyOwner | null>;
  /**
   * One atomic debit for the call `callId`, durable when it resolves, or rejects with the 402
   * (`apiKey`: what was sent, to say why), or with UnsettledWrite when whether it was taken cannot
   * be learned in time (then refund it by its call id: it is given back if it was taken).
   */
  charge(owner: KeyOwner | null, apiKey: string | undefined, callId: string): Promise<Debit>;
  /**
   * Gives back what the call `debit.callId` was debited, once. Resolves with the refund when it is
   * written at once; else with undefined, and it is kept and written when the database answers
   * again (`written` runs then, with what was given back).
   */
  refund(debit: Debit, written?: (refund: Refund) => void): Promise<Refund | undefined>;
  headers(balance: Balance | Debit): Record<string, string>;
  paymentRequired(reason: string, code?: RefusalCode): GatewayError;
}

/** Why a paid call was refused, for machines: the `code` of every 402 body. */
export type RefusalCode = 'no_key' | 'unknown_key' | 'revoked_key' | 'no_credit' | 'x402_refused';

const REFUSALS: Record<RefusalCode, string> = {
  no_key: 'A valid x-api-key header is required for this endpoint.',
  unknown_key: 'The API key sent is not known to this gateway.',
  revoked_key: 'The API key sent was revoked: a newer claim for the same wallet issued a new key, which carries the credit.',
  no_credit: 'No free calls left and the credit is below the price of one call.',
  x402_refused: 'The x402 payment attached to the call was refused.',
};

export function createPayments(store: BillingStore, config: Config, kept: KeptWrites): Payments {
  const paymentRequired = (reason: string, code: RefusalCode = 'no_key') => {
    const payTo = config.gatewayAddress ?? null;
    const instructions = payTo
      ? `Each paid call costs ${config.priceLamports} lamports (${sol(config.priceLamports)} SOL) after ${config.freeCalls} free calls. ` +
        `Send at least ${sol(config.minDepositLamports)} SOL to ${payTo} on ${config.paymentNetwork} from your wallet; then GET /api/keys/challenge?wallet=<your wallet>, ` +
        'sign the challenge string (its UTF-8 bytes) with the wallet\'s Ed25519 key, and POST /api/keys/claim with {"wallet", "signature" (base58), "challenge"}. ' +
        'Send the returned key in the x-api-key header. A new deposit and claim issue a new key that carries the remaining credit.'
      : 'Deposits are not configured on this gateway (its operator has not set GATEWAY_ADDRESS), so paid calls cannot be bought here; free calls still work.';
    return new GatewayError(402, { error: 'Payment required', code, reason, priceLamports: config.priceLamports, instructions, payTo });
  };
  const headers = (b: Balance | Debit) => {
    const balance = 'balance' in b ? b.balance : b;
    return { 'x-credits-remaining': String(balance.creditLamports), 'x-free-calls-remaining': String(balance.freeCalls) };
  };
  // Only on the refusal path: a key that identified nobody is either unknown or revoked.
  const noOwner = async (apiKey: string | undefined): Promise<RefusalCode> => (!apiKey ? 'no_key' : (await store.keyKnown(hashApiKey(apiKey))) ? 'revoked_key' : 'unknown_key');
  return {
    identify: (apiKey) => store.identify(apiKey),
    async charge(owner, apiKey, callId) {
      if (!owner) {
        const code = await noOwner(apiKey);
        throw paymentRequired(REFUSALS[code], code);
      }
      const debit = await store.debit(owner.wallet, config.priceLamports, callId);
      if (!debit) {
        const account = await store.account(owner.wallet);
        const refused = paymentRequired(REFUSALS.no_credit, 'no_credit');
        throw new GatewayError(402, refused.body, account ? headers(account) : {});
      }
      return debit;
    },
    refund: (debit, written) =>
      kept.write('refund', { wallet: debit.wallet, callId: debit.callId, paidWith: debit.kind, price: debit.price }, () => store.refund(debit), written),
    headers,
    paymentRequired,
  };
}
