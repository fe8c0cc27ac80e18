// x402 as the call pipeline sees it: the offer on a 402, and one payment buying one call. A
// payment is verified, then recorded (its transaction once, whatever replays it, on either
// database and across replicas) before the call runs; settled only when the call succeeded; and
// forgotten, never submitted, when it failed.
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import type { SettleResponse } from '@x402/core/types';
import { decodeTransactionFromPayload, transactionMessageHash } from '@x402/svm';
import type { Config } from '../../config.ts';
import { GatewayError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { x402Payments, x402SettledUnits } from '../../metrics.ts';
import type { KeptWrites } from '../resilience/kept-writes.ts';
import { UnsettledWrite } from '../resilience/unsettled.ts';
import type { PaymentEnd, X402Records } from '../store.ts';
import type { AnyPayload, Facilitator } from './facilitator.ts';
import type { X402Settleable } from './settleable.ts';
import type { Receipts } from './receipts.ts';
import { MAX_TIMEOUT_SECONDS, requirementsV1, requirementsV2, responseHeader, withOffer, type Resource, type Terms } from './terms.ts';

export type { Resource };

/**
 * What an x402 client attached, as it came: REST's header (v2 `PAYMENT-SIGNATURE`, v1 `X-PAYMENT`,
 * base64 JSON) or MCP's `params._meta["x402/payment"]` (the payload object itself).
 */
export type PaymentAttempt = { readonly header: string; readonly version: 1 | 2 } | { readonly payload: unknown };

/** Why a payment buys nothing: a code for machines (the metric's label) and the words a client reads. */
export interface X402Refusal {
  readonly code: string;
  readonly message: string;
}

const refusal = (code: string, detail?: string): X402Refusal => ({ code, message: detail ? `${code}: ${detail}` : code });

/** A verified payment, recorded and waiting for its call's outcome. */
export interface VerifiedPayment {
  /**
   * Submits the payment and waits for `confirmed`; the answer's payment header, or why it did not
   * settle: the payment's fault (`refused`), or the gateway's (`unavailable`, a 503 to retry).
   */
  settle(): Promise<{ headers: Record<string, string> } | { refused: X402Refusal } | { unavailable: GatewayError }>;
  /** The call failed: the payment is never submitted. */
  release(): Promise<void>;
}

export interface X402 {
  readonly facilitator: Facilitator;
  /**
   * A 402's body and headers with the x402 offer of `price` atomic units (the capability's, chosen by
   * the pipeline); `error` says why a payment was refused, if one was. Undefined while payments
   * cannot settle for the gateway's own reasons (settleable.ts): the 402 then offers the account way alone.
   */
  offer(body: Record<string, unknown>, headers: Record<string, string>, resource: Resource, price: number, error?: string): Promise<{ body: Record<string, unknown>; headers: Record<string, string> } | undefined>;
  /** Verifies and records, for the call `call.callId`, a payment of exactly `call.price` atomic units, or says why it buys nothing. */
  hold(attempt: PaymentAttempt, resource: Resource, call: { capability: string; face: 'rest' | 'mcp'; price: number; callId: string }): Promise<VerifiedPayment | { refused: X402Refusal }>;
}

const DEFAULT_ERROR = 'X-PAYMENT or PAYMENT-SIGNATURE header is required';

/** The facilitator (or the chain behind it) could not verify: nothing was recorded, the payment is untouched. */
const FACILITATOR_DOWN = new GatewayError(
  503,
  { error: 'x402 payments cannot be verified right now', hint: 'The payment was not recorded or submitted: retry the same request shortly, or pay with an API key.', live_status: 'FAILED' },
  { 'retry-after': '5' },
);

/**
 * x402 cannot settle for the gateway's own reasons (settleable.ts): nothing was recorded or submitted,
 * and the client hears neither the cause nor the operator's accounts, only to come back.
 */
const CANNOT_SETTLE = new GatewayError(
  503,
  {
    error: 'x402 payments cannot be taken right now',
    code: 'x402_unavailable',
    hint: 'The fault is on the gateway\'s side, not your payment\'s: nothing was settled. Retry after Retry-After seconds with a newly signed payment, or pay with an API key.',
    live_status: 'FAILED',
  },
  { 'retry-after': '5' },
);

/** A refusal the chain gave (a simulation that failed) may be the gateway's accounts: these are read again before it is blamed on the payment. */
const MAYBE_OURS = /simulation_failed|Simulation failed|transaction_simulation|AccountNotFound|InsufficientFunds|InvalidAccountData/i;

/** The decoded payment, or why it cannot be read. */
function decode(attempt: PaymentAttempt): AnyPayload | { refused: X402Refusal } {
  let raw: unknown;
  if ('header' in attempt) {
    try {
      raw = decodePaymentSignatureHeader(attempt.header.trim());
    } catch {
      return { refused: refusal('invalid_payment_header', 'not base64 of a JSON payment payload') };
    }
  } else raw = attempt.payload;
  const parsed = parsePaymentPayload(raw);
  if (!parsed.success) return { refused: refusal('invalid_payment_payload', 'not an x402 payment payload') };
  const payload = parsed.data as AnyPayload;
  if ('header' in attempt && payload.x402Version !== attempt.version) {
    return { refused: refusal('invalid_payment_version', `an x402 version ${payload.x402Version} payload in the ${attempt.version === 2 ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT'} header`) };
  }
  return payload;
}

/**
 * `settleable`: whether payments can settle now. While they cannot, no offer is made and a payment
 * presented anyway is answered 503 untouched; a payment refused for a reason the chain gave has it
 * asked again, so a fault that races a payment is the gateway's 503, not the client's refusal.
 */
export function createX402(config: Config, store: X402Records, facilitator: Facilitator, log: Logger, kept: KeptWrites, settleable?: Pick<X402Settleable, 'offered' | 'check'>, receipts?: Receipts): X402 {
  // Read afresh (from `since`, when the payment came): a refusal a burst of payments shares costs one read.
  const ours = async (reason: string, since: number) => settleable !== undefined && MAYBE_OURS.test(reason) && !(await settleable.check(since));
  const terms = async (price: number): Promise<Terms> => ({
    price,
    asset: config.x402Asset,
    payTo: (config.x402PayTo ?? config.gatewayAddress)!,
    feePayer: await facilitator.feePayer(),
    network: config.paymentNetwork,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  });
  const refuse = (refused: X402Refusal, face: string) => {
    // Bounded: a facilitator's own code becomes a metric label.
    x402Payments.inc({ outcome: 'refused', reason: refused.code.slice(0, 64) || 'unknown' });
    log.info('x402 payment refused', { event: 'x402_refused', reason: refused.message, face });
    return { refused };
  };

  return {
    facilitator,
    async offer(body, headers, resource, price, error = DEFAULT_ERROR) {
      const made = async () => {
        const t = await terms(price);
        return withOffer(body, headers, t, receipts ? await receipts.signOffer(resource, requirementsV2(t)) : resource, error);
      };
      if (!settleable) return made();
      if (!settleable.offered) return undefined;
      try {
        return await made();
      } catch {
        // An external facilitator that cannot name its fee payer: the probe sees why and says it once.
        void settleable.check();
        return undefined;
      }
    },

    async hold(attempt, resource, call) {
      if (settleable && !settleable.offered) throw CANNOT_SETTLE;
      const came = Date.now();
      const payload = decode(attempt);
      if ('refused' in payload) return refuse(payload.refused, call.face);
      const version = payload.x402Version === 1 ? 1 : 2;
      let t: Terms;
      let requirements: ReturnType<typeof requirementsV1> | ReturnType<typeof requirementsV2>;
      let verified: Awaited<ReturnType<Facilitator['verify']>>;
      try {
        t = await terms(call.price);
        requirements = version === 1 ? requirementsV1(t, resource) : requirementsV2(t);
        verified = await facilitator.verify(payload, requirements);
      } catch (e) {
        log.warn('x402 verification unavailable', { event: 'x402_unavailable', facilitator: facilitator.kind, error: e instanceof Error ? e.message : String(e) });
        // The offer goes out at once if the facilitator is down, not at the next probe.
        void settleable?.check();
        throw FACILITATOR_DOWN;
      }
      if (!verified.isValid) {
        const invalid = refusal(verified.invalidReason ?? 'invalid_payment', verified.invalidMessage);
        if (await ours(invalid.message, came)) {
          log.warn('x402 payment not taken: the gateway cannot settle', { event: 'x402_unavailable', reason: invalid.message });
          throw CANNOT_SETTLE;
        }
        return refuse(invalid, call.face);
      }
      const txKey = transactionMessageHash(decodeTransactionFromPayload(payload.payload as { transaction: string }));
      const payer = verified.payer ?? '';
      const { callId } = call;
      // Released by the call's id: a release never frees a payment another call holds.
      const release = () => kept.write('x402_release', { callId, payer }, () => store.releasePayment(txKey, callId));
      const finish = (end: PaymentEnd) => kept.write('x402_finish', { callId, payer, status: end.status }, () => store.finishPayment(txKey, end, Date.now()));
      let held: boolean;
      try {
        held = await store.holdPayment({ txKey, network: t.network, payer, asset: t.asset, amount: t.price, payTo: t.payTo, capability: call.capability, face: call.face, callId }, Date.now());
      } catch (e) {
        // Perhaps recorded, perhaps not: nothing is submitted, and a record this call made is freed once the database answers.
        if (e instanceof UnsettledWrite) void release();
        throw e;
      }
      if (!held) return refuse(refusal('payment_already_used', 'this payment transaction was already presented; sign a new one'), call.face);
      x402Payments.inc({ outcome: 'verified', reason: '' });
      return {
        async settle() {
          const submitted = Date.now();
          let settled: SettleResponse;
          try {
            settled = await facilitator.settle(payload, requirements);
          } catch (e) {
            settled = { success: false, errorReason: 'settlement_error', errorMessage: e instanceof Error ? e.message : String(e), transaction: '', network: requirements.network as SettleResponse['network'] };
          }
          if (!settled.success) {
            const failed = refusal('settlement_failed', `${settled.errorReason ?? 'unknown'}${settled.errorMessage ? ` (${settled.errorMessage})` : ''}`);
            await finish({ status: 'failed', reason: failed.message, signature: settled.transaction || undefined });
            log.warn('x402 settlement failed', { event: 'x402_settle_failed', payer, reason: failed.message, transaction: settled.transaction || null });
            if (await ours(failed.message, submitted)) return { unavailable: CANNOT_SETTLE };
            return refuse(failed, call.face);
          }
          // The money moved: the answer is owed even if the record cannot be written now (it is kept).
          await finish({ status: 'settled', signature: settled.transaction });
          x402Payments.inc({ outcome: 'settled', reason: '' });
          x402SettledUnits.inc(t.price);
          log.info('x402 payment settled', { event: 'x402_settled', payer, transaction: settled.transaction, capability: call.capability });
          return { headers: responseHeader(version, receipts ? await receipts.stamp(settled, resource.url) : settled) };
        },
        async release() {
          // Kept until the database takes it: till then the payment buys nothing more, and it was never submitted.
          await release();
          x402Payments.inc({ outcome: 'released', reason: '' });
        },
      };
    },
  };
}
