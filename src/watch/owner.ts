// Who asks, for every face of watches: admitted by the caller's rate-limit bucket (a paid call's),
// then the key's owner, or the 402 that says what a watch costs and that x402 cannot pay for one.
import type { KeyOwner } from '../billing/keys.ts';
import type { Caller } from '../calls/caller.ts';
import { admitCaller, type CallDeps } from '../calls/pipeline.ts';
import { GatewayError } from '../errors.ts';
import { X402_CANNOT_PAY } from './watches.ts';

/** The owner and the rate-limit headers; throws the 429 or the 402 as a GatewayError. */
export async function watchOwner(caller: Caller, deps: Pick<CallDeps, 'payments' | 'limiter'>, eventPrice: number): Promise<{ owner: KeyOwner; headers: Record<string, string> }> {
  const admission = await admitCaller(caller, deps);
  const headers = { ...admission.headers };
  if (admission.refusal) throw new GatewayError(429, admission.refusal, headers);
  const owner = await deps.payments.identify(caller.apiKey);
  if (owner) return { owner, headers };
  const { code, reason } = await deps.payments.whyRefused(caller.apiKey);
  const refusal = deps.payments.paymentRequired(reason, code, eventPrice, { x402: X402_CANNOT_PAY, eventPriceLamports: eventPrice });
  throw new GatewayError(402, refusal.body, { ...headers, ...refusal.headers });
}
