// Sign in with the wallet, as an agent does it with the official packages: @x402/fetch's client
// with @x402/extensions' createSIWxClientHook and a @solana/kit signer, and hand-made proofs (made
// by the extension's own createSIWxPayload) for the refusals: expired, foreign, another wallet's.
import type { KeyPairSigner } from '@solana/kit';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { createSIWxClientHook, createSIWxMessage, encodeSIWxHeader, signSolanaMessage, type SIWxExtension, type SIWxExtensionInfo, type SolanaSigner } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';

/**
 * A @solana/kit signer as the extension's types name it. The object is passed as it is; only
 * TypeScript needs telling: the extension declares `signMessages` over plain `Uint8Array`
 * dictionaries, kit over its branded `SignatureBytes`, which its checker will not equate.
 */
export const kitSigner = (signer: KeyPairSigner): SolanaSigner => signer as unknown as SolanaSigner;

/** The sign-in-with-x extension of a 402 (REST: its PAYMENT-REQUIRED header). */
export function signInOffer(headers: Headers): SIWxExtension {
  const required = decodePaymentRequiredHeader(headers.get('payment-required')!) as PaymentRequired;
  return required.extensions!['sign-in-with-x'] as SIWxExtension;
}

/**
 * fetch that signs in with `wallet` when a 402 offers it, exactly as an agent wires the official
 * client; the SIGN-IN-WITH-X headers it sent are recorded in `sent`. No payment scheme is
 * registered: a 402 that sign-in does not clear stays an error.
 */
export function signingFetch(wallet: KeyPairSigner): { fetch: typeof fetch; sent: string[] } {
  const sent: string[] = [];
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const header = request.headers.get('sign-in-with-x');
    if (header) sent.push(header);
    return fetch(request);
  }) as typeof fetch;
  const http = new x402HTTPClient(new x402Client()).onPaymentRequired(createSIWxClientHook(kitSigner(wallet)));
  return { fetch: wrapFetchWithPayment(recording, http) as typeof fetch, sent };
}

/**
 * A proof of `info` (changed as asked) signed by `signer`, as the SIGN-IN-WITH-X header carries it:
 * the extension's own message and signing, without the client's check that the challenge names
 * the site it came from (a phishing site's proof is what some tests need). `address`: claimed instead of the signer's.
 */
export async function proofHeader(offer: SIWxExtension, signer: KeyPairSigner, change: Partial<SIWxExtensionInfo> = {}, address?: string): Promise<string> {
  const chain = offer.supportedChains[0]!;
  const info = { ...offer.info, ...change, chainId: chain.chainId, type: chain.type };
  const signature = await signSolanaMessage(createSIWxMessage(info, signer.address), kitSigner(signer));
  return encodeSIWxHeader({ ...info, address: address ?? signer.address, signature });
}

/** An ISO time `seconds` from now. */
export const isoIn = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/**
 * An MCP JSON-RPC answer with its sign-in challenge's per-call values (nonce, times) set aside: two
 * 402 results of the same call differ in nothing else. Fails when the result carries no challenge.
 */
export function withoutFreshChallenge(answer: { result: { _meta: Record<string, any> } }): unknown {
  const copy = structuredClone(answer);
  const info = copy.result._meta['x402/sign-in-with-x']?.info;
  if (!info?.nonce || !info.issuedAt) throw new Error('the 402 result carries no sign-in challenge');
  Object.assign(info, { nonce: '<fresh>', issuedAt: '<fresh>', expirationTime: '<fresh>' });
  return copy;
}
