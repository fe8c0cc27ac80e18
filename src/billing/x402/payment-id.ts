// x402's `payment-identifier` extension: a client names its payment with an id of its own, so that
// after a dropped answer it can send the same payment again and get the first answer back (the
// settlement header with it) instead of a refusal, and never a second settlement. The id is bound
// to the exact payload (the hash of its canonical JSON) and the request it pays for (capability and
// arguments), looked up before the payment is verified
// (a settled payment would no longer verify), and kept on the database for a set time, so any
// replica answers the same.
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { declarePaymentIdentifierExtension, extractPaymentIdentifier, isValidPaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { canonicalize } from '@x402/extensions/offer-receipt';
import { createHash } from 'node:crypto';
import { parseJson, toJson } from '../../json.ts';
import type { ExtensionStore } from './ext-store.ts';
import type { PaymentAttempt } from './payments.ts';

/** What a call answered, as kept under its payment's id. */
export interface KeptAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export type PaymentIdStart =
  /** No id (or a version 1 payment, which has no extensions): the payment goes on as before. */
  | { kind: 'none' }
  /** The id's answer, or a refusal (another payload under the id, its first call still running, a malformed id). */
  | { kind: 'answer'; answer: KeptAnswer }
  /** The id is this call's: `finish` keeps its answer (or frees the id when the answer says to try again). */
  | { kind: 'run'; finish(answer: KeptAnswer): Promise<void> };

export interface PaymentIds {
  /** The offer's `payment-identifier` extension (an id is welcome, not required). */
  readonly declaration: Record<string, unknown>;
  /** `request`: what the payment is for (capability and arguments): the same payment for another request is another use of the id. */
  start(attempt: PaymentAttempt, request: string, callId: string): Promise<PaymentIdStart>;
}

// Headers that describe this request rather than the answer (rate limits): not replayed.
const PER_REQUEST = /^(ratelimit|retry-after)/i;

function payloadOf(attempt: PaymentAttempt): PaymentPayload | undefined {
  try {
    const raw = 'header' in attempt ? decodePaymentSignatureHeader(attempt.header.trim()) : attempt.payload;
    return raw !== null && typeof raw === 'object' && (raw as { x402Version?: unknown }).x402Version === 2 ? (raw as PaymentPayload) : undefined;
  } catch {
    // Not readable: the payment's own checks refuse it.
    return undefined;
  }
}

/** The id a version 2 payload names, or null; `undefined` when it names one that is no valid id. */
function idOf(payload: PaymentPayload): string | null | undefined {
  const ext = payload.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined;
  const id = ext?.info?.id;
  if (id === undefined) return null;
  return typeof id === 'string' && isValidPaymentId(id) ? (extractPaymentIdentifier(payload, false) ?? undefined) : undefined;
}

const refusal = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): PaymentIdStart => ({ kind: 'answer', answer: { status, body, headers } });

/**
 * `keepMs`: how long an id and its answer are kept. `abandonedMs`: how long a call may hold an id
 * without answering before another may take it over (its process died); the payment it held stays
 * recorded, so the new call cannot settle it a second time.
 */
export function createPaymentIds(store: ExtensionStore, keepMs: number, abandonedMs: number): PaymentIds {
  let nextPrune = 0;
  return {
    declaration: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) },
    async start(attempt, request, callId) {
      const payload = payloadOf(attempt);
      if (!payload) return { kind: 'none' };
      const id = idOf(payload);
      if (id === null) return { kind: 'none' };
      if (id === undefined) {
        return refusal(400, {
          error: 'Invalid payment identifier',
          code: 'invalid_payment_identifier',
          hint: 'extensions["payment-identifier"].info.id must be 16 to 128 letters, digits, hyphens or underscores (e.g. pay_ and a UUID without dashes).',
          live_status: 'FAILED',
        });
      }
      const now = Date.now();
      if (now >= nextPrune) {
        nextPrune = now + 3_600_000;
        void store.prune(now).catch(() => {});
      }
      const hash = createHash('sha256').update(canonicalize(payload)).update('\n').update(request).digest('hex');
      const taken = await store.takePaymentId(id, hash, callId, now, now + keepMs);
      if (!taken.taken) {
        const { holder } = taken;
        if (holder.payloadHash !== hash) {
          return refusal(409, {
            error: 'Payment identifier already used',
            code: 'payment_id_conflict',
            hint: 'This payment-identifier id was first sent with another payment, or for another request: give each payment an id of its own, and send the same payment with the same request again only to recover its answer.',
          });
        }
        if (holder.answer !== null) return { kind: 'answer', answer: parseJson(holder.answer) as KeptAnswer };
        if (now - holder.createdAt < abandonedMs || !(await store.retakePaymentId(id, holder.callId, callId, now))) {
          return refusal(
            409,
            { error: 'Payment still being processed', code: 'payment_id_in_progress', hint: 'The first request with this payment is still running: send it again shortly to get its answer.' },
            { 'retry-after': '2' },
          );
        }
      }
      return {
        kind: 'run',
        async finish(answer) {
          // A 5xx (facilitator or storage away, the call failed upstream) leaves the payment untouched: the id is free for a retry.
          if (answer.status >= 500) return store.releasePaymentId(id, callId);
          const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !PER_REQUEST.test(k)));
          await store.answerPaymentId(id, callId, toJson({ status: answer.status, body: answer.body, headers }));
        },
      };
    },
  };
}
