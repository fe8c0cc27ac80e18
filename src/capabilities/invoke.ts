// The one path every capability call takes, whatever face it came in on (REST or MCP):
// rate limit -> validate (400 costs nothing) -> charge if paid (402) -> run -> refund unless 2xx.
import { RpcError, UpstreamError } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { HttpError, type ErrorBody } from '../http/errors.ts';
import { admit, type RateLimiter } from '../billing/rate-limit.ts';
import type { Payments } from '../billing/payments.ts';
import { parseInput, type Capability, type CapabilityContext } from './capability.ts';

export interface Caller {
  apiKey?: string;
  /** Client network address, the rate-limit bucket for calls without a usable key. */
  address: string;
}

export interface Outcome {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface InvokeDeps {
  ctx: CapabilityContext;
  limiter: RateLimiter;
  payments: Payments;
  log: Logger;
}

export async function invoke(cap: Capability, raw: Record<string, unknown>, caller: Caller, deps: InvokeDeps): Promise<Outcome> {
  const owner = deps.payments.identify(caller.apiKey);
  const { headers, refusal } = admit(deps.limiter, owner ? `wallet:${owner.wallet}` : `addr:${caller.address}`);
  if (refusal) return { status: 429, headers, body: refusal };
  let receipt: Awaited<ReturnType<Payments['charge']>> | undefined;
  try {
    const input = parseInput(cap, raw) as Record<string, unknown>;
    if (cap.paid) receipt = await deps.payments.charge(owner);
    const result = await cap.run(deps.ctx, input);
    if (receipt) Object.assign(headers, deps.payments.headers(receipt));
    const body: Record<string, unknown> = { ...result };
    if ('network' in cap.params) body.network = input.network;
    body.live_status = 'SUCCESS';
    return { status: 200, body, headers };
  } catch (e) {
    if (receipt) Object.assign(headers, deps.payments.headers(await deps.payments.refund(receipt)));
    const failure = errorOutcome(e, deps.log, cap.name);
    return { ...failure, headers: { ...headers, ...failure.headers } };
  }
}

/** Maps anything thrown by a capability to a status and SPEC.md error body; never leaks internals. */
export function errorOutcome(e: unknown, log: Logger, where: string): Outcome {
  if (e instanceof HttpError) return { status: e.status, body: e.body, headers: e.headers };
  if (e instanceof RpcError) {
    log.warn('upstream RPC error', { capability: where, code: e.code, message: e.message });
    return failed(`Upstream RPC error ${e.code}: ${e.message}`);
  }
  if (e instanceof UpstreamError) return failed(`Upstream RPC request failed: ${e.message}`);
  log.error('capability failed', { capability: where, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  return failed('Internal server error');
}

function failed(error: string): Outcome {
  const body: ErrorBody = { error, live_status: 'FAILED' };
  return { status: 500, body, headers: {} };
}
