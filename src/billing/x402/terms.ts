// What an x402 payment must be, as plain data: the `exact` scheme's requirements in version 2
// (CAIP-2 networks, `amount`) and version 1 (`solana`, `maxAmountRequired`), the 402 offer built
// from them, and the payment headers' encodings. No I/O: the offer is the same for every call of
// one capability.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements, PaymentRequirementsV1, SettleResponse } from '@x402/core/types';
import type { Network } from '../../config.ts';

/** CAIP-2 ids of the two clusters (x402 version 2). */
export const CAIP2: Record<Network, string> = {
  'mainnet-beta': 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  devnet: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
};

/** x402 version 1's network names. */
export const V1_NETWORK: Record<Network, string> = { 'mainnet-beta': 'solana', devnet: 'solana-devnet' };

/** How long a client has between an offer and its payment: a blockhash lives about 60 s. */
export const MAX_TIMEOUT_SECONDS = 60;

export interface Terms {
  /** Atomic units of `asset` per call. */
  price: number;
  asset: string;
  payTo: string;
  /** The facilitator's fee payer: the transaction's fee payer, in no instruction. */
  feePayer: string;
  network: Network;
  /** How long a client has between the offer and its payment (the blockhash lives about 60 s). */
  maxTimeoutSeconds: number;
}

/** Who offers the thing paid for, as catalogues list it (bazaar's `serviceName`, `tags`, `iconUrl` on the resource). */
export interface ServiceMetadata {
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
}

/** The thing paid for: one capability, at an absolute URL, with how a catalogue may describe it (the `bazaar` extension). */
export interface Resource {
  url: string;
  description: string;
  extensions?: Record<string, unknown>;
  service?: ServiceMetadata;
}

/** The offer's `resource`: where, what, and who offers it. */
export const resourceInfo = (r: Resource) => ({ url: r.url, description: r.description, mimeType: 'application/json', ...r.service });

export function requirementsV2(t: Terms): PaymentRequirements {
  return { scheme: 'exact', network: CAIP2[t.network] as PaymentRequirements['network'], asset: t.asset, amount: String(t.price), payTo: t.payTo, maxTimeoutSeconds: t.maxTimeoutSeconds, extra: { feePayer: t.feePayer } };
}

export function requirementsV1(t: Terms, r: Resource): PaymentRequirementsV1 {
  return {
    scheme: 'exact',
    network: V1_NETWORK[t.network] as PaymentRequirementsV1['network'],
    maxAmountRequired: String(t.price),
    resource: r.url,
    description: r.description,
    mimeType: 'application/json',
    outputSchema: {},
    payTo: t.payTo,
    maxTimeoutSeconds: t.maxTimeoutSeconds,
    asset: t.asset,
    extra: { feePayer: t.feePayer },
  };
}

export function paymentRequired(t: Terms, r: Resource, error: string): PaymentRequired {
  return { x402Version: 2, error, resource: resourceInfo(r), accepts: [requirementsV2(t)], ...(r.extensions ? { extensions: r.extensions } : {}) };
}

/** How to pay per call, for the `instructions` of a 402 (beside the account way). */
export function x402Instructions(t: Terms): string {
  return (
    `Or pay per call without an account (x402): each paid call costs ${t.price} atomic units of the SPL token ${t.asset}, paid to ${t.payTo} on ${t.network}. ` +
    'Over REST, retry the same request with a signed payment: the PAYMENT-SIGNATURE header (x402 version 2, the offer is in the PAYMENT-REQUIRED header) or X-PAYMENT (version 1, the offer is `accepts` in this body). ' +
    'Over MCP, this error result is itself the version 2 offer (x402Version 2, accepts): retry the tool call with the payment in params._meta["x402/payment"]. A call that fails costs nothing and its payment is never submitted.'
  );
}

/**
 * A 402 body and headers with the x402 offer added: the SPEC fields stay, version 1's fields join
 * the body, version 2's offer goes in PAYMENT-REQUIRED, and `instructions` tells both ways to pay.
 */
export function withOffer(body: Record<string, unknown>, headers: Record<string, string>, t: Terms, r: Resource, error: string): { body: Record<string, unknown>; headers: Record<string, string> } {
  const instructions = typeof body.instructions === 'string' ? `${body.instructions} ${x402Instructions(t)}` : x402Instructions(t);
  return {
    body: { ...body, instructions, x402Version: 1, accepts: [requirementsV1(t, r)], x402Error: error },
    headers: { ...headers, 'payment-required': encodePaymentRequiredHeader(paymentRequired(t, r, error)) },
  };
}

/** The settlement answer header: PAYMENT-RESPONSE for version 2, X-PAYMENT-RESPONSE for version 1. */
export function responseHeader(version: 1 | 2, settled: SettleResponse): Record<string, string> {
  return { [version === 1 ? 'x-payment-response' : 'payment-response']: encodePaymentResponseHeader(settled) };
}
