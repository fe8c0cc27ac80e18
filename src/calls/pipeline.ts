// The one path every capability call takes, whatever face it came in on (REST or MCP):
// who is calling -> rate limit -> validate (400 costs nothing) -> price (free allowance or debit,
// else 402) -> run -> refund unless it succeeded -> one Outcome. Capabilities know nothing of this.
import { admit, type Admission, type Limiter } from '../billing/rate-limit.ts';
import type { KeyOwner } from '../billing/keys.ts';
import { PaymentRefused, type Payments } from '../billing/payments.ts';
import type { Resource, X402, X402Refusal } from '../billing/x402/payments.ts';
import type { UsageHistory } from '../billing/usage-history.ts';
import type { Debit } from '../billing/credit.ts';
import { newCallId } from '../billing/resilience/call-id.ts';
import { UnsettledWrite } from '../billing/resilience/unsettled.ts';
import { resourceInfo } from '../billing/x402/terms.ts';
import type { PaymentIdStart, PaymentIds } from '../billing/x402/payment-id.ts';
import { REPLAYED, type SignedIn, type SignIn, type SignInRefusal } from '../billing/x402/siwx.ts';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { toJson } from '../json.ts';
import { lamportsFor, x402UnitsFor } from '../billing/prices.ts';
import { exampleArguments, exampleUrl, parseInput, type Capability, type CapabilityContext, type ExampleOf } from '../capabilities/capability.ts';
import type { Logger } from '../log.ts';
import { debitedLamports, paidCalls, paymentRequired, refundedLamports } from '../metrics.ts';
import { type GatewayError, StorageUnavailable } from '../errors.ts';
import { andThen, attempt, type MaybePromise } from '../maybe.ts';
import { bucketKey, type Bucket } from './bucket.ts';
import type { Caller } from './caller.ts';
import type { InFlight } from './in-flight.ts';
import { errorOutcome, type Outcome } from './outcome.ts';
import { x402Resource } from './x402-resource.ts';

export interface CallDeps {
  ctx: CapabilityContext;
  limiter: Limiter;
  payments: Payments;
  usage: UsageHistory;
  log: Logger;
  inFlight: InFlight;
  /** Set when X402_PRICE is: a second way to pay for any paid call. */
  x402?: X402;
  /** Set when SIWX is on and deposits are configured: a wallet's signed proof spends its credit, as its key would. */
  signIn?: SignIn;
  /** With x402: payments named by the payment-identifier extension, answered once per payment. */
  paymentIds?: PaymentIds;
}

/** A refusal's example call, in the words of the face called: a REST URL or MCP tool arguments. */
const EXAMPLES: Record<Caller['face'], ExampleOf> = { rest: exampleUrl, mcp: exampleArguments };

/** The rate-limit bucket a caller draws from: its key's wallet, or (keyless or unknown key) its address. */
export async function bucketOf(caller: Caller, deps: Pick<CallDeps, 'payments'>): Promise<Bucket> {
  return bucketName(await bucketOwner(caller, deps), caller);
}

/**
 * The key's owner, only to name a rate-limit bucket: while the storage cannot say, the caller's
 * address names it, so that what needs no storage (free calls, MCP sessions) goes on working.
 */
function bucketOwner(caller: Caller, deps: Pick<CallDeps, 'payments'>): MaybePromise<KeyOwner | null> {
  return attempt(() => deps.payments.identify(caller.apiKey), (owner) => owner, anonymousWhileAway);
}

const anonymousWhileAway = (e: unknown): null => {
  if (e instanceof StorageUnavailable) return null;
  throw e;
};

/** The bucket of a caller whose key owner (or its absence) is known. */
const bucketName = (owner: KeyOwner | null, caller: Caller): Bucket => (owner ? { wallet: owner.wallet } : { address: caller.address });

/** One request that is not a capability call (e.g. an MCP message) against the caller's bucket. */
export function admitCaller(caller: Caller, deps: Pick<CallDeps, 'payments' | 'limiter'>): ReturnType<typeof admit> {
  return admit(deps.limiter, () => bucketOf(caller, deps).then(bucketKey));
}

/**
 * One call of `cap`. A free call's outcome comes at once, not as a promise, when nothing in the way
 * needs waiting for (its answer in the upstream cache, its key, if rate limits need it, in
 * memory). A paid call always waits for its debit's commit.
 */
export function call(cap: Capability, raw: Record<string, unknown>, caller: Caller, deps: CallDeps): MaybePromise<Outcome> {
  return cap.paid ? deps.inFlight.follow(paidCall(cap, raw, caller, deps)) : freeCall(cap, raw, caller, deps);
}

function rateLimited(cap: Capability, owner: KeyOwner | null, caller: Caller, deps: CallDeps, headers: Admission['headers'], refusal: NonNullable<Admission['refusal']>): Outcome {
  deps.log.info('rate limited', { event: 'rate_limited', capability: cap.name, wallet: owner?.wallet ?? null, client: caller.address, retryAfter: headers['retry-after'] });
  return { status: 429, headers, body: refusal };
}

function freeCall(cap: Capability, raw: Record<string, unknown>, caller: Caller, deps: CallDeps): MaybePromise<Outcome> {
  // A free call looks up its key only to name its rate-limit bucket.
  const found = deps.limiter.enabled ? bucketOwner(caller, deps) : null;
  return andThen(found, (owner) =>
    andThen(admit(deps.limiter, () => bucketKey(bucketName(owner, caller))), (admission): MaybePromise<Outcome> => {
      if (admission.refusal) return rateLimited(cap, owner, caller, deps, admission.headers, admission.refusal);
      const { headers } = admission;
      const failed = (e: unknown) => failedCall(e, cap, deps, headers);
      return attempt(
        () => parseInput(cap, raw, EXAMPLES[caller.face]) as Record<string, unknown>,
        (input) => attempt(() => cap.run(contextFor(deps.ctx, caller), input), (result): Outcome => ({ status: 200, body: successBody(cap, input, result), headers }), failed),
        failed,
      );
    }),
  );
}

/** A call that threw before it was charged: its error outcome, with the rate-limit headers. */
function failedCall(e: unknown, cap: Capability, deps: CallDeps, headers: Admission['headers']): Outcome {
  const failure = errorOutcome(e, deps.log, cap.name);
  return { ...failure, headers: { ...headers, ...failure.headers } };
}

/** What a capability runs with: the upstream calls it makes counted into the request's context, for its access line. */
function contextFor(ctx: CapabilityContext, caller: Caller): CapabilityContext {
  const tally = caller.context;
  return tally ? { ...ctx, rpc: (network) => ctx.rpc(network).counting(tally) } : ctx;
}

/** What a call answers when its capability ran: the result, its network and the SUCCESS mark. */
function successBody(cap: Capability, input: Record<string, unknown>, result: object): Record<string, unknown> {
  const body: Record<string, unknown> = { ...result };
  if ('network' in cap.params) body.network = input.network;
  body.live_status = 'SUCCESS';
  return body;
}

// One async function from the key lookup to the outcome: a paid call waits for its commit anyway,
// and written as steps of maybe.ts's helpers it cost find-ata 103-105 % of the CPU per request
// before, against 98-101 % this way (bench/ab.ts). What is known at once is still not awaited:
// each await suspends the call for a turn of the microtask queue.
// It never rejects: what fails before the charge is answered here, what fails after it in the catch
// below (whose refunds are kept writes, which never reject).
async function paidCall(cap: Capability, raw: Record<string, unknown>, caller: Caller, deps: CallDeps): Promise<Outcome> {
  let owner: KeyOwner | null;
  let admission: Admission | undefined;
  // A sign-in proof stands for a key when no key (and no x402 payment) came with it: checked
  // before the rate limit, so that its wallet's bucket is the one drawn from (a refused proof draws
  // from the client address's, as a keyless call does).
  let signedIn: SignedIn | undefined;
  let signInRefused: SignInRefusal | undefined;
  // Parsed before the rate limit: where a paid call's draw and debit are one transaction
  // (payments.drawsInDebit), only a valid call goes there; a 400 still draws, alone, and costs nothing.
  let input: Record<string, unknown> | undefined;
  let invalid: unknown;
  try {
    input = parseInput(cap, raw, EXAMPLES[caller.face]) as Record<string, unknown>;
  } catch (e) {
    invalid = e;
  }
  /** The arguments, or the 400 thrown where the call uses them. */
  const parsed = (): Record<string, unknown> => {
    if (input === undefined) throw invalid;
    return input;
  };
  let drawing = false;
  try {
    if (deps.signIn && caller.signIn && !caller.apiKey && !(deps.x402 && caller.payment)) {
      const proof = await deps.signIn.check(caller.signIn, caller.origin);
      if ('refused' in proof) signInRefused = proof;
      else signedIn = proof;
    }
    const found = signedIn ? { wallet: signedIn.wallet, keyHash: '' } : deps.payments.identify(caller.apiKey);
    const known = found instanceof Promise ? await found : found;
    owner = known;
    // A key's valid call, paid from credit: its draw rides in its debit's transaction, below.
    drawing = deps.payments.drawsInDebit && deps.limiter.enabled && known !== null && !signedIn && !signInRefused && !(deps.x402 && caller.payment) && input !== undefined;
    if (!drawing) {
      const pending = admit(deps.limiter, () => bucketKey(bucketName(known, caller)));
      admission = pending instanceof Promise ? await pending : pending;
    }
  } catch (e) {
    // Failed before it was charged (its key not looked up, or no bucket to draw from: the storage away): answered like any other failure.
    return errorOutcome(e, deps.log, cap.name);
  }
  if (admission?.refusal) return rateLimited(cap, owner, caller, deps, admission.headers, admission.refusal);
  let headers = admission?.headers ?? {};
  if (deps.x402 && caller.payment) return x402Call(cap, parsed, caller, deps, deps.x402, headers);
  let receipt: Awaited<ReturnType<Payments['charge']>> | undefined;
  const at = Date.now();
  // The call's own id: its debit, refund and usage row are each made once by it, whatever is retried.
  const callId = newCallId(at);
  const row = (status: number, refunded: boolean) => ({ capability: cap.name, face: caller.face, at, status, refunded });
  const price = lamportsFor(deps.ctx.config, cap.name);
  try {
    const args = parsed();
    if (signInRefused) throw signInRefusal(signInRefused, cap, deps);
    // The nonce is used up by this call whatever follows (no credit, the call failing): a proof buys one try.
    if (signedIn && !(await deps.signIn!.use(signedIn, callId))) throw signInRefusal(REPLAYED, cap, deps);
    if (drawing) {
      const drawn = await deps.payments.chargeDrawing(owner!, caller.apiKey, price, callId, bucketKey(bucketName(owner, caller)));
      headers = drawn.admission.headers;
      if (drawn.admission.refusal) return rateLimited(cap, owner, caller, deps, headers, drawn.admission.refusal);
      receipt = counted(await drawn.charged!());
    } else receipt = counted(await deps.payments.charge(owner, caller.apiKey, price, callId));
    const body = successBody(cap, args, await cap.run(contextFor(deps.ctx, caller), args));
    const charged = receipt;
    countCharge(cap.name, charged, 'success');
    const usage = deps.usage.record(charged, row(200, false));
    // Given back when the face could not deliver the answer: the call's row says so, and the lamports count as refunded.
    const refund = async () => {
      await deps.payments.refund(charged, (done) => {
        if (!done.given) return;
        usage.refunded();
        if (done.given.kind === 'credit') refunded.add(done.given.price);
      });
    };
    const undelivered = () => deps.inFlight.detach(refund(), 'refund not made', { event: 'refund_failed', wallet: charged.wallet, paidWith: charged.kind, price: charged.price });
    return { status: 200, body, headers: { ...headers, ...deps.payments.headers(charged) }, refund: undelivered };
  } catch (e) {
    if (!receipt && e instanceof PaymentRefused) {
      paymentRequired.inc({ reason: e.code });
      deps.log.info('payment required', { event: 'payment_required', capability: cap.name, code: e.code, wallet: owner?.wallet ?? null, client: caller.address });
    }
    const failure = errorOutcome(e, deps.log, cap.name);
    if (failure.status === 402 && signedIn && failure.body.code === 'no_credit') failure.body.reason = noCreditReason(signedIn.wallet);
    if (failure.status === 402 && (deps.x402 || deps.signIn)) await offered(failure, cap, caller, deps);
    let balance: Record<string, string> | undefined;
    if (receipt) {
      // Kept and made when the database answers again, if it cannot be made now.
      const given = await deps.payments.refund(receipt);
      if (given) balance = deps.payments.headers(given.balance);
      deps.usage.record(receipt, row(failure.status, true));
      countCharge(cap.name, receipt, 'refunded');
    } else if (e instanceof UnsettledWrite && owner) {
      // Whether the debit was taken is not known yet: it is given back if it was, and only then
      // recorded, as a refunded call.
      void deps.payments.refundByCallId(owner.wallet, e.callId, (done) => {
        if (!done.given) return;
        deps.usage.record(done.given, row(failure.status, true));
        countCharge(cap.name, counted(done.given), 'refunded');
      });
    }
    return { ...failure, headers: { ...headers, ...balance, ...failure.headers } };
  }
}

/** A refused sign-in proof's 402: the extension's code in `siwxError`, the reason in words. */
function signInRefusal(refusal: SignInRefusal, cap: Capability, deps: CallDeps): GatewayError {
  return deps.payments.paymentRequired(`The sign-in-with-x proof was refused: ${refusal.reason}`, 'siwx_refused', lamportsFor(deps.ctx.config, cap.name), { siwxError: refusal.refused });
}

/** What a signed-in wallet without credit is told: a deposit becomes its credit once claimed (with the claim, a key it may keep unused). */
const noCreditReason = (wallet: string) =>
  `The wallet ${wallet} signed in, but it has no free calls left and less credit than one call. Deposit SOL from it as the instructions say and claim the deposit once ` +
  '(the claim moves it into the wallet\'s credit); sign-in then spends that credit, with or without the key the claim returns.';

/**
 * Adds the offers to a 402 outcome: x402's while x402 payments can settle (without it the account
 * way still stands), and a sign-in challenge (alone, in a PAYMENT-REQUIRED with no `accepts`, when
 * x402 is off or cannot settle now). `resource`: the call's, when the caller has it already (a refused x402 payment).
 */
async function offered(outcome: Outcome, cap: Capability, caller: Caller, deps: CallDeps, resource?: Resource, error?: string): Promise<Outcome> {
  try {
    const base = resource ?? x402Resource(cap, caller, deps.ctx.config);
    const origin = deps.signIn?.originFor(caller.origin);
    const extensions = {
      ...base.extensions,
      ...(deps.x402 && deps.paymentIds?.declaration),
      ...(origin && (await deps.signIn!.declare(base.url, origin))),
    };
    const offer = { ...base, extensions };
    const made = deps.x402 && (await deps.x402.offer(outcome.body, outcome.headers, offer, x402UnitsFor(deps.ctx.config, cap.name)!, error));
    if (made) {
      outcome.body = made.body;
      outcome.headers = made.headers;
    } else if (origin) {
      const required = { x402Version: 2, error: String(outcome.body.reason ?? outcome.body.error), resource: resourceInfo(offer), accepts: [], extensions };
      outcome.headers = { ...outcome.headers, 'payment-required': encodePaymentRequiredHeader(required) };
    }
  } catch (e) {
    deps.log.warn('x402 offer unavailable', { event: 'x402_offer_failed', error: e instanceof Error ? e.message : String(e) });
  }
  return outcome;
}

/**
 * A paid call with an x402 payment attached: validate (400 costs nothing, the payment untouched) ->
 * verify and record the payment -> run -> settle only on success. A failed call releases the
 * payment unsubmitted; a payment that does not settle withholds the answer (402 with the reason).
 */
/** `parsed`: the call's arguments as paidCall parsed them, or the 400 they are. */
async function x402Call(cap: Capability, parsed: () => Record<string, unknown>, caller: Caller, deps: CallDeps, x402: X402, headers: Admission['headers']): Promise<Outcome> {
  const callId = newCallId();
  let input: Record<string, unknown>;
  let resource: Resource;
  let named: PaymentIdStart = { kind: 'none' };
  try {
    input = parsed();
    resource = x402Resource(cap, caller, deps.ctx.config);
    // Looked up before the payment is verified: a payment sent again after it settled no longer verifies.
    if (deps.paymentIds) named = await deps.paymentIds.start(caller.payment!, `${cap.name} ${toJson(input)}`, callId);
  } catch (e) {
    return failedCall(e, cap, deps, headers);
  }
  if (named.kind === 'answer') return { status: named.answer.status, body: named.answer.body, headers: { ...headers, ...named.answer.headers } };
  const outcome = await x402Paid(cap, input, resource, caller, deps, x402, headers, callId);
  if (named.kind === 'run') {
    await named.finish(outcome).catch((e: unknown) =>
      // Unrecorded, the id is taken over once its holder counts as gone; the payment itself stays recorded, never settled again.
      deps.log.warn('payment identifier answer not recorded', { event: 'x402_payment_id_unrecorded', error: e instanceof Error ? e.message : String(e) }),
    );
  }
  return outcome;
}

/** The payment of an x402 call whose arguments are valid: verify and record -> run -> settle only on success. */
async function x402Paid(cap: Capability, input: Record<string, unknown>, resource: Resource, caller: Caller, deps: CallDeps, x402: X402, headers: Admission['headers'], callId: string): Promise<Outcome> {
  const failed = (e: unknown) => failedCall(e, cap, deps, headers);
  let held: Awaited<ReturnType<X402['hold']>>;
  const refused = ({ message }: X402Refusal): Promise<Outcome> => {
    paymentRequired.inc({ reason: 'x402_refused' });
    const e = deps.payments.paymentRequired(`The x402 payment was refused: ${message}`, 'x402_refused', lamportsFor(deps.ctx.config, cap.name));
    return offered({ status: 402, body: e.body, headers: { ...headers } }, cap, caller, deps, resource, message);
  };
  try {
    held = await x402.hold(caller.payment!, resource, { capability: cap.name, face: caller.face, price: x402UnitsFor(deps.ctx.config, cap.name)!, callId });
  } catch (e) {
    return failed(e);
  }
  if ('refused' in held) return refused(held.refused);
  let body: Record<string, unknown>;
  try {
    body = successBody(cap, input, await cap.run(contextFor(deps.ctx, caller), input));
  } catch (e) {
    await held.release();
    return failed(e);
  }
  const settled = await held.settle();
  if ('unavailable' in settled) return failed(settled.unavailable);
  if ('refused' in settled) return refused(settled.refused);
  return { status: 200, body, headers: { ...headers, ...settled.headers } };
}

// Free calls move no lamports; a refund gives back exactly what its debit took. The series are
// looked up once per capability and outcome, not by their labels on every call.
const debited = debitedLamports.series({});
const refunded = refundedLamports.series({});
const charges = { success: new Map<string, { add(): void }>(), refunded: new Map<string, { add(): void }>() };

function counted(debit: Debit): Debit {
  if (debit.kind === 'credit') debited.add(Number(debit.price));
  return debit;
}

function countCharge(capability: string, debit: Debit, outcome: 'success' | 'refunded') {
  let series = charges[outcome].get(capability);
  if (!series) charges[outcome].set(capability, (series = paidCalls.series({ capability, outcome })));
  series.add();
  if (outcome === 'refunded' && debit.kind === 'credit') refunded.add(Number(debit.price));
}
