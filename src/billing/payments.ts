// The paid guard as the call pipeline sees it: who holds this key, charge one call, refund it.
// Capabilities never see money; a capability marked paid is charged the same way on every face.
import { formatSol as sol } from '../chain/format.ts';
import type { Config } from '../config.ts';
import { GatewayError, type ErrorBody } from '../errors.ts';
import { keyHashOf, type KeyOwner } from './keys.ts';
import type { KeptWrites } from './resilience/kept-writes.ts';
import { afterFreeCalls } from './prices.ts';
import type { MaybePromise } from '../maybe.ts';
import type { Balance, Debit, Refund } from './credit.ts';
import { KeyGone, type CreditLedger, type KeyStore } from './store.ts';
import { admission, type Admission } from './rate-limit.ts';

export type { KeyOwner };

export interface Payments {
  identify(apiKey: string | undefined): KeyOwner | null | Promise<KeyOwner | null>;
  /**
   * One atomic debit of `price` lamports (the capability's, chosen by the pipeline) for the call
   * `callId`, durable when it resolves, or rejects with the 402
   * (`apiKey`: what was sent, to say why), or with UnsettledWrite when whether it was taken cannot
   * be learned in time (then refund it by its call id: it is given back if it was taken).
   */
  charge(owner: KeyOwner | null, apiKey: string | undefined, price: number, callId: string): Promise<Debit>;
  /**
   * Whether chargeDrawing() is offered: where the rate-limit buckets are shared in the database, a
   * paid call's draw and debit are one transaction (one commit, one wait) instead of two.
   */
  readonly drawsInDebit: boolean;
  /**
   * A token drawn from the bucket `bucket`, then, if the limit allows, charge() in the same
   * transaction: the admission, and (when admitted) the charge's outcome, which settles as charge()'s does.
   */
  chargeDrawing(owner: KeyOwner, apiKey: string | undefined, price: number, callId: string, bucket: string): Promise<{ admission: Admission; charged?: () => Promise<Debit> }>;
  /**
   * Gives back what the call `debit.callId` was debited, once. Resolves with the refund when it is
   * written at once; else with undefined, and it is kept and written when the database answers
   * again (`written` runs then, with what was given back).
   */
  refund(debit: Debit, written?: (refund: Refund) => void): Promise<Refund | undefined>;
  /**
   * refund() for a call whose debit's outcome is unknown (UnsettledWrite): gives back what the call
   * `callId` took if, and only if, it was taken (`written` says what, then).
   */
  refundByCallId(wallet: string, callId: string, written?: (refund: Refund) => void): Promise<Refund | undefined>;
  headers(balance: Balance | Debit): Record<string, string>;
  /** The 402 of a call costing `price` lamports; `extra` adds fields (when and by whom a key was revoked). */
  paymentRequired(reason: string, code: RefusalCode | undefined, price: number, extra?: Record<string, unknown>): PaymentRefused;
  /** Why a key identified nobody (only asked on that path): none sent, unknown, or revoked (when, by whom). At once when no key, or nothing shaped like one, was sent. */
  whyRefused(apiKey: string | undefined): MaybePromise<KeyRefusal>;
}

/** Why a paid call was refused, for machines: the `code` of every 402 body. */
export type RefusalCode = 'no_key' | 'unknown_key' | 'revoked_key' | 'revoked_by_operator' | 'no_credit' | 'x402_refused' | 'siwx_refused';

/** A 402: its code for machines as a field (the metric's label, the log's), and in the body SPEC.md shows. */
export class PaymentRefused extends GatewayError {
  constructor(
    readonly code: RefusalCode,
    body: ErrorBody,
    headers: Record<string, string> = {},
  ) {
    super(402, body, headers);
  }
}

/** Why a key was not accepted; `revokedAt` (ISO 8601) for a revoked one. */
export interface KeyRefusal {
  code: Extract<RefusalCode, 'no_key' | 'unknown_key' | 'revoked_key' | 'revoked_by_operator'>;
  reason: string;
  revokedAt?: string;
}

const REFUSALS: Record<RefusalCode, string> = {
  no_key: 'A valid x-api-key header is required for this endpoint.',
  unknown_key: 'The API key sent is not known to this gateway.',
  revoked_key: 'The API key sent was revoked: a newer claim for the same wallet issued a new key, which carries the credit.',
  revoked_by_operator:
    "The API key sent was revoked by this gateway's operator. The wallet keeps its credit: a new deposit and claim from the same wallet issue a new key that carries it.",
  no_credit: 'No free calls left and the credit is below the price of one call.',
  x402_refused: 'The x402 payment attached to the call was refused.',
  siwx_refused: 'The sign-in-with-x proof attached to the call was refused.',
};
/** A key revoked before the gateway recorded who revoked it. */
const REVOKED_UNSAID = 'The API key sent was revoked, by a newer claim for the same wallet or by the operator: send the newest key of the wallet.';

export function createPayments(store: Pick<KeyStore, 'identify' | 'keyStatus'> & CreditLedger, config: Config, kept: KeptWrites): Payments {
  const paymentRequired = (reason: string, code: RefusalCode = 'no_key', price: number, extra: Record<string, unknown> = {}) => {
    const payTo = config.gatewayAddress ?? null;
    const instructions = payTo
      ? `The price is ${price} lamports (${sol(price)} SOL) per call${afterFreeCalls(config.freeCalls)}. ` +
        `Send at least ${sol(config.minDepositLamports)} SOL to ${payTo} on ${config.paymentNetwork} from your wallet; then GET /api/keys/challenge?wallet=<your wallet>, ` +
        'sign the challenge string (its UTF-8 bytes) with the wallet\'s Ed25519 key, and POST /api/keys/claim with {"wallet", "signature" (base58), "challenge"}. ' +
        'Send the returned key in the x-api-key header. A new deposit and claim issue a new key that carries the remaining credit.'
      : 'Deposits are not configured on this gateway (its operator has not set GATEWAY_ADDRESS), so paid calls cannot be bought here; free calls still work.';
    return new PaymentRefused(code, { error: 'Payment required', code, reason, ...extra, priceLamports: price, instructions, payTo });
  };
  const headers = (b: Balance | Debit) => {
    const balance = 'balance' in b ? b.balance : b;
    return { 'x-credits-remaining': String(balance.creditLamports), 'x-free-calls-remaining': String(balance.freeCalls) };
  };
  // Only on the refusal path: a key that identified nobody is either unknown or revoked.
  const whyRefused = (apiKey: string | undefined): MaybePromise<KeyRefusal> => {
    if (!apiKey) return { code: 'no_key', reason: REFUSALS.no_key };
    const keyHash = keyHashOf(apiKey);
    // Nothing of another shape was ever issued: refused without asking the database.
    if (keyHash === null) return { code: 'unknown_key', reason: REFUSALS.unknown_key };
    return store.keyStatus(keyHash).then((key): KeyRefusal => {
      if (key?.revokedAt == null) return { code: 'unknown_key', reason: REFUSALS.unknown_key };
      const revokedAt = new Date(key.revokedAt).toISOString();
      if (key.revokedBy === 'operator') return { code: 'revoked_by_operator', reason: REFUSALS.revoked_by_operator, revokedAt };
      return { code: 'revoked_key', reason: key.revokedBy === 'claim' ? REFUSALS.revoked_key : REVOKED_UNSAID, revokedAt };
    });
  };
  /** What a debit came to, as the call hears it: the debit, or the 402 saying why not. */
  const taken = async (owner: KeyOwner, apiKey: string | undefined, price: number, debited: () => Debit | null | Promise<Debit | null>): Promise<Debit> => {
    let debit: Debit | null;
    try {
      debit = await debited();
    } catch (e) {
      // Revoked since this replica last looked it up: refused as if it had just been.
      if (!(e instanceof KeyGone)) throw e;
      const { code, reason, ...extra } = await whyRefused(apiKey);
      throw paymentRequired(reason, code, price, extra);
    }
    if (!debit) {
      const account = await store.account(owner.wallet);
      const refused = paymentRequired(REFUSALS.no_credit, 'no_credit', price);
      throw new PaymentRefused(refused.code, refused.body, account ? headers(account) : {});
    }
    return debit;
  };
  return {
    identify: (apiKey) => store.identify(apiKey),
    whyRefused,
    async charge(owner, apiKey, price, callId) {
      if (!owner) {
        const { code, reason, ...extra } = await whyRefused(apiKey);
        throw paymentRequired(reason, code, price, extra);
      }
      return taken(owner, apiKey, price, () => store.debit(owner.wallet, price, callId, owner.keyHash));
    },
    drawsInDebit: store.debitDrawing !== undefined,
    async chargeDrawing(owner, apiKey, price, callId, bucket) {
      const drawn = await store.debitDrawing!(owner.wallet, price, callId, owner.keyHash, bucket);
      const admitted = admission(drawn.decision);
      return admitted.refusal ? { admission: admitted } : { admission: admitted, charged: () => taken(owner, apiKey, price, drawn.taken) };
    },
    refund: (debit, written) =>
      kept.write('refund', { wallet: debit.wallet, callId: debit.callId, paidWith: debit.kind, price: debit.price }, () => store.refund(debit), written),
    refundByCallId: (wallet, callId, written) => kept.write('refund', { wallet, callId }, () => store.refund({ wallet, callId }), written),
    headers,
    paymentRequired,
  };
}
