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
import type { KeptWrites } from '../kept-writes.ts';
import { UnsettledWrite } from '../unsettled.ts';
import type { BillingStore, PaymentEnd } from '../store.ts';
import type { AnyPayload, Facilitator } from './facilitator.ts';
import type { X402Accounts } from './accounts.ts';
import type { Receipts } from './receipts.ts';
import { MAX_TIMEOUT_SECONDS, requirementsV1, requirementsV2, responseHeader, withOffer, type Resource, type Terms } from './terms.ts';

export type { Resource };

/**
 * What an x402 client attached, as it came: REST's header (v2 `PAYMENT-SIGNATURE`, v1 `X-PAYMENT`,
 * base64 JSON) or MCP's `params._meta["x402/payment"]` (the payload object itself).
 */
export type PaymentAttempt = { readonly header: string; readonly version: 1 | 2 } | { readonly payload: unknown };

/** A verified payment, recorded and waiting for its call's outcome. */
export interface VerifiedPayment {
  /** Submits the payment and waits for `confirmed`; the answer's payment header, or why it did not settle. */
  settle(): Promise<{ headers: Record<string, string> } | { refused: string }>;
  /** The call failed: the payment is never submitted. */
  release(): Promise<void>;
}

export interface X402 {
  readonly facilitator: Facilitator;
  /**
   * A 402's body and headers with the x402 offer of `price` atomic units (the capability's, chosen by
   * the pipeline); `error` says why a payment was refused, if one was.
   */
  offer(body: Record<string, unknown>, headers: Record<string, string>, resource: Resource, price: number, error?: string): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }>;
  /** Verifies and records, for the call `call.callId`, a payment of exactly `call.price` atomic units, or says why it buys nothing. */
  hold(attempt: PaymentAttempt, resource: Resource, call: { capability: string; face: 'rest' | 'mcp'; price: number; callId: string }): Promise<VerifiedPayment | { refused: string }>;
}

const DEFAULT_ERROR = 'X-PAYMENT or PAYMENT-SIGNATURE header is required';

/** The facilitator (or the chain behind it) could not verify: nothing was recorded, the payment is untouched. */
const FACILITATOR_DOWN = new GatewayError(
  503,
  { error: 'x402 payments cannot be verified right now', hint: 'The payment was not recorded or submitted: retry the same request shortly, or pay with an API key.', live_status: 'FAILED' },
  { 'retry-after': '5' },
);

/** The decoded payment, or why it cannot be read. */
function decode(attempt: PaymentAttempt): AnyPayload | { refused: string } {
  let raw: unknown;
  if ('header' in attempt) {
    try {
      raw = decodePaymentSignatureHeader(attempt.header.trim());
    } catch {
      return { refused: 'invalid_payment_header: not base64 of a JSON payment payload' };
    }
  } else raw = attempt.payload;
  const parsed = parsePaymentPayload(raw);
  if (!parsed.success) return { refused: 'invalid_payment_payload: not an x402 payment payload' };
  const payload = parsed.data as AnyPayload;
  if ('header' in attempt && payload.x402Version !== attempt.version) {
    return { refused: `invalid_payment_version: an x402 version ${payload.x402Version} payload in the ${attempt.version === 2 ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT'} header` };
  }
  return payload;
}

/** A metric label from a reason: its leading code, bounded. */
const reasonCode = (reason: string) => reason.split(/[:\s]/, 1)[0]!.slice(0, 64) || 'unknown';

/**
 * `accounts`: the accounts payments depend on, read when a payment is refused for a reason the
 * chain gave, to name the one at fault (an unfunded fee payer, a missing pay-to token account).
 */
export function createX402(config: Config, store: BillingStore, facilitator: Facilitator, log: Logger, kept: KeptWrites, accounts?: Pick<X402Accounts, 'explain'>, receipts?: Receipts): X402 {
  const explained = (reason: string) => (accounts ? accounts.explain(reason) : reason);
  const terms = async (price: number): Promise<Terms> => ({
    price,
    asset: config.x402Asset,
    payTo: (config.x402PayTo ?? config.gatewayAddress)!,
    feePayer: await facilitator.feePayer(),
    network: config.paymentNetwork,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  });
  const refuse = (reason: string, face: string) => {
    x402Payments.inc({ outcome: 'refused', reason: reasonCode(reason) });
    log.info('x402 payment refused', { event: 'x402_refused', reason, face });
    return { refused: reason };
  };

  return {
    facilitator,
    async offer(body, headers, resource, price, error = DEFAULT_ERROR) {
      const t = await terms(price);
      return withOffer(body, headers, t, receipts ? await receipts.signOffer(resource, requirementsV2(t)) : resource, error);
    },

    async hold(attempt, resource, call) {
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
        throw FACILITATOR_DOWN;
      }
      if (!verified.isValid) {
        const reason = `${verified.invalidReason ?? 'invalid_payment'}${verified.invalidMessage ? `: ${verified.invalidMessage}` : ''}`;
        return refuse(/simulation_failed/.test(reason) ? await explained(reason) : reason, call.face);
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
      if (!held) return refuse('payment_already_used: this payment transaction was already presented; sign a new one', call.face);
      x402Payments.inc({ outcome: 'verified', reason: '' });
      return {
        async settle() {
          let settled: SettleResponse;
          try {
            settled = await facilitator.settle(payload, requirements);
          } catch (e) {
            settled = { success: false, errorReason: 'settlement_error', errorMessage: e instanceof Error ? e.message : String(e), transaction: '', network: requirements.network as SettleResponse['network'] };
          }
          if (!settled.success) {
            const reason = await explained(`settlement_failed: ${settled.errorReason ?? 'unknown'}${settled.errorMessage ? ` (${settled.errorMessage})` : ''}`);
            await finish({ status: 'failed', reason, signature: settled.transaction || undefined });
            log.warn('x402 settlement failed', { event: 'x402_settle_failed', payer, reason, transaction: settled.transaction || null });
            return refuse(reason, call.face);
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
