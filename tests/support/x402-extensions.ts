// x402's payment-identifier and offer-receipt as a client uses them, with the official packages:
// a payment made by @x402/core's client with an id appended by the extension's own helper, and the
// gateway's published receipt key.
import type { KeyPairSigner } from '@solana/kit';
import type { verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import type { Sandbox } from './sandbox/index.ts';
import { x402ClientOf } from './x402.ts';

/** A version 2 payment for `required` named `id` (payment-identifier), made by the official client: the payload and its header. */
export async function paymentWithId(wallet: KeyPairSigner, chain: Sandbox, required: PaymentRequired, id: string): Promise<{ payload: PaymentPayload; header: string }> {
  const client = x402ClientOf(wallet, chain, { v2Only: true }).onBeforePaymentCreation(async ({ paymentRequired }) => {
    appendPaymentIdentifierToExtensions(paymentRequired.extensions!, id);
  });
  const payload = await client.createPaymentPayload(structuredClone(required));
  return { payload, header: encodePaymentSignatureHeader(payload) };
}

/** A JWK as the extension's verifiers take it. */
type JWK = Exclude<Parameters<typeof verifyReceiptSignatureJWS>[1], undefined> & { kty: string };

/** The gateway's receipt key, as it publishes it. */
export async function receiptKey(baseUrl: string): Promise<JWK & { kid: string }> {
  const jwks = (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: (JWK & { kid: string })[] };
  return jwks.keys[0]!;
}
