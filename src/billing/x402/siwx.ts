// Sign in with the wallet (x402's `sign-in-with-x` extension, CAIP-122; on Solana an Ed25519
// signature, "SIWS"): a wallet that holds credit spends it per call by signing the challenge a 402
// carries, instead of sending an API key. The challenge and the proof's checks are
// @x402/extensions' own; what is added here is where the origin comes from (configuration, never
// a caller's Host alone), which chains are accepted, and that a nonce is used once on every replica
// (ext-store.ts) for as long as its proof could be accepted at all.
import {
  createSIWxResourceServerExtension,
  declareSIWxExtension,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  SIWxPayloadSchema,
  validateSIWxMessage,
  verifySIWxSignature,
  type SIWxPayload,
} from '@x402/extensions/sign-in-with-x';
import type { Network } from '../../config.ts';
import type { ExtensionStore } from './ext-store.ts';
import { CAIP2 } from './terms.ts';

export { SIGN_IN_WITH_X };

/** A proof as it came: REST's `SIGN-IN-WITH-X` header (base64 JSON) or an MCP call's `_meta` value. */
export type SignInAttempt = { readonly header: string } | { readonly payload: unknown };

/** A proof that checked out: the wallet, and the nonce to use up with the call it pays for. */
export interface SignedIn {
  wallet: string;
  nonce: string;
  /** Until when the nonce must be remembered: past it, the proof is refused as too old anyway. */
  keepUntil: number;
}

/** Why a proof buys nothing: the extension's code (`invalid_siwx_*`) and the reason in words. */
export interface SignInRefusal {
  refused: string;
  reason: string;
}

export interface SignInSettings {
  paymentNetwork: Network;
  /** PUBLIC_URL: the one origin proofs are bound to when set. */
  publicUrl?: string;
  /** Host names the gateway answers to without PUBLIC_URL (loopback, the listen address, MCP_ALLOWED_ORIGINS). */
  localHosts: readonly string[];
  /** How long a challenge is good for, and how old a proof's issuedAt may be. */
  seconds: number;
}

export interface SignIn {
  /** The origin proofs made for a request reaching `requestOrigin` must name, or undefined when none can be bound. */
  originFor(requestOrigin: string | undefined): URL | undefined;
  /** The offer's `sign-in-with-x` extension: a fresh challenge for the resource at `resourceUrl`. */
  declare(resourceUrl: string, origin: URL): Promise<Record<string, unknown>>;
  /** Checks a proof for a call that reached `requestOrigin`: who signed, or why it buys nothing. */
  check(attempt: SignInAttempt, requestOrigin: string | undefined): Promise<SignedIn | SignInRefusal>;
  /** Uses the proof's nonce up for the call `callId`; false when it was used before (a replay). */
  use(proof: SignedIn, callId: string): Promise<boolean>;
}

const STATEMENT = 'Sign in to spend the credit of this wallet on one paid call of this gateway.';
/** Clocks differ: a nonce is remembered this much past the last moment its proof could pass. */
const SKEW_MS = 60_000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const PRUNE_EVERY_MS = 3_600_000;

/** The Solana clusters served, the payment network first (a client signs for the first that fits). */
export function signInChains(paymentNetwork: Network): string[] {
  return [CAIP2[paymentNetwork], ...Object.values(CAIP2).filter((c) => c !== CAIP2[paymentNetwork])];
}

function decode(attempt: SignInAttempt): SIWxPayload | SignInRefusal {
  if ('header' in attempt) {
    try {
      return parseSIWxHeader(attempt.header.trim());
    } catch (e) {
      return { refused: 'invalid_siwx_header', reason: e instanceof Error ? e.message : 'not base64 of a sign-in proof' };
    }
  }
  const raw = typeof attempt.payload === 'string' ? attempt.payload : undefined;
  if (raw !== undefined) return decode({ header: raw });
  const parsed = SIWxPayloadSchema.safeParse(attempt.payload);
  return parsed.success ? parsed.data : { refused: 'invalid_siwx_header', reason: 'Invalid SIWX proof: not a sign-in-with-x payload object' };
}

export function createSignIn(settings: SignInSettings, store: ExtensionStore): SignIn {
  const chains = signInChains(settings.paymentNetwork);
  let nextPrune = 0;
  const maxAgeMs = settings.seconds * 1000;
  const configured = settings.publicUrl ? new URL(new URL(settings.publicUrl).origin) : undefined;
  const local = new Set([...LOOPBACK, ...settings.localHosts.map((h) => h.toLowerCase())]);
  const declaration = declareSIWxExtension({ network: chains, statement: STATEMENT, expirationSeconds: settings.seconds })[SIGN_IN_WITH_X]!;
  // The library's server side makes the challenge (nonce, times, domain, uri); one per origin.
  const servers = new Map<string, ReturnType<typeof createSIWxResourceServerExtension>>();
  const serverFor = (origin: URL) => {
    let server = servers.get(origin.origin);
    if (!server) {
      if (servers.size >= 16) servers.clear();
      servers.set(origin.origin, (server = createSIWxResourceServerExtension({ storage: { hasPaid: () => false, recordPayment: () => {} }, origin: origin.origin })));
    }
    return server;
  };

  const originFor = (requestOrigin: string | undefined): URL | undefined => {
    if (configured) return configured;
    if (!requestOrigin) return undefined;
    try {
      const url = new URL(requestOrigin);
      return local.has(url.hostname.toLowerCase()) ? new URL(url.origin) : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    originFor,
    async declare(resourceUrl, origin) {
      const enrich = serverFor(origin).enrichPaymentRequiredResponse!;
      const info = await enrich(declaration, { resourceInfo: { url: resourceUrl }, requirements: [] } as unknown as Parameters<typeof enrich>[1]);
      return { [SIGN_IN_WITH_X]: info };
    },
    async check(attempt, requestOrigin) {
      const proof = decode(attempt);
      if ('refused' in proof) return proof;
      const origin = originFor(requestOrigin);
      if (!origin) {
        return { refused: 'invalid_siwx_domain_mismatch', reason: 'This gateway binds sign-in proofs to its PUBLIC_URL, which its operator has not set: send an API key or an x402 payment instead.' };
      }
      if (!chains.includes(proof.chainId)) {
        return { refused: 'invalid_siwx_unsupported_chain', reason: `Chain ${JSON.stringify(proof.chainId.slice(0, 80))} is not one this gateway signs in on: ${chains.join(', ')}.` };
      }
      const valid = await validateSIWxMessage(proof, origin, { maxAge: maxAgeMs });
      if (!valid.isValid) return { refused: valid.invalidReason, reason: valid.invalidMessage };
      const verified = await verifySIWxSignature(proof);
      if (!verified.isValid) return { refused: verified.invalidReason, reason: `${verified.invalidMessage}: the proof was not signed by the key of ${JSON.stringify(proof.address.slice(0, 64))}` };
      return { wallet: verified.payer, nonce: proof.nonce, keepUntil: new Date(proof.issuedAt).getTime() + maxAgeMs + SKEW_MS };
    },
    use(proof, callId) {
      const now = Date.now();
      if (now >= nextPrune) {
        // Nonces past their keeping (their proofs too old to pass anyway) go, an hour at a time.
        nextPrune = now + PRUNE_EVERY_MS;
        void store.prune(now).catch(() => {});
      }
      return store.useNonce(proof.nonce, proof.wallet, callId, proof.keepUntil);
    },
  };
}

/** A nonce used before, in the extension's own words (its validator's code for a replay). */
export const REPLAYED: SignInRefusal = { refused: 'invalid_siwx_nonce', reason: 'This sign-in proof was used before (its nonce is single use): sign the challenge of a new 402.' };
