// x402's `offer-receipt` extension: every offer carries a signed statement of its terms, and every
// settlement a signed receipt (payer, network, resource, the landed transaction), for an agent's or
// its owner's books. Signed as compact JWS (EdDSA) with a key of the operator's own
// (X402_RECEIPT_KEYPAIR), not the fee payer's: the fee payer's key is hot and moves SOL, and a
// receipt key is one an operator may want to rotate, publish or keep offline apart from it. The
// key's `kid` is a did:jwk (the key itself, `alg` included), so the extension's own verifiers
// resolve it from the signature alone (its did:key path loses `alg` on the way to jose, which then
// refuses an Ed25519 key); the gateway also publishes it (manifest, /.well-known/jwks.json) so a
// verifier can tell it is this gateway's.
import type { PaymentRequirements, SettleResponse } from '@x402/core/types';
import { createJWSOfferReceiptIssuer, createOfferReceiptExtension, declareOfferReceiptExtension, OFFER_RECEIPT, type JWSSigner } from '@x402/extensions/offer-receipt';
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { ConfigError } from '../../config.ts';
import { readKeypairFile } from './keypair-file.ts';
import type { Resource } from './terms.ts';

const KEY_FILE = 'X402_RECEIPT_KEYPAIR / --x402-receipt-keypair';

/** The public half as a verifier takes it: a JWK with the did:key as its `kid`. */
export interface ReceiptKey {
  kid: string;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; alg: 'EdDSA'; use: 'sig'; kid: string };
}

export interface Receipts {
  readonly key: ReceiptKey;
  /** The resource with its offer signed (the `offer-receipt` extension beside the others). */
  signOffer(resource: Resource, requirements: PaymentRequirements): Promise<Resource>;
  /** A successful settlement with its signed receipt in `extensions`. */
  stamp(settled: SettleResponse, resourceUrl: string): Promise<SettleResponse>;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** An Ed25519 keypair file (Solana CLI JSON: 64 numbers, secret then public): its key objects. */
function readKeypair(path: string): { secret: KeyObject; publicKey: Uint8Array } {
  const all = readKeypairFile(path, KEY_FILE);
  const seed = all.subarray(0, 32);
  const publicKey = all.slice(32);
  const secret = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64url(seed), x: b64url(publicKey) }, format: 'jwk' });
  const derived = createPublicKey(secret).export({ format: 'jwk' }).x;
  if (derived !== b64url(publicKey)) throw new ConfigError(`${KEY_FILE}: the file's public half does not match its secret half`);
  return { secret, publicKey };
}

/** did:jwk of an Ed25519 public key: its JWK (with `alg`), base64url. */
export function didJwkOf(publicKey: Uint8Array): string {
  return `did:jwk:${b64url(new TextEncoder().encode(JSON.stringify({ alg: 'EdDSA', crv: 'Ed25519', kty: 'OKP', x: b64url(publicKey) })))}`;
}

export function loadReceipts(path: string): Receipts {
  const { secret, publicKey } = readKeypair(path);
  const kid = didJwkOf(publicKey);
  const signer: JWSSigner = {
    kid,
    format: 'jws',
    algorithm: 'EdDSA',
    sign: async (input) => b64url(sign(null, input, secret)),
  };
  const extension = createOfferReceiptExtension(createJWSOfferReceiptIssuer(kid, signer));
  // Receipts name the landed transaction: on Solana it is the proof a payment was made.
  const declaration = declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT];
  const enrichOffer = extension.enrichPaymentRequiredResponse!;
  const enrichSettle = extension.enrichSettlementResponse!;
  return {
    key: { kid, jwk: { kty: 'OKP', crv: 'Ed25519', x: b64url(publicKey), alg: 'EdDSA', use: 'sig', kid } },
    async signOffer(resource, requirements) {
      const context = { paymentRequiredResponse: { resource: { url: resource.url } }, requirements: [requirements] };
      const signed = await enrichOffer(declaration, context as unknown as Parameters<typeof enrichOffer>[1]);
      return signed ? { ...resource, extensions: { ...resource.extensions, [OFFER_RECEIPT]: signed } } : resource;
    },
    async stamp(settled, resourceUrl) {
      const context = { result: settled, transportContext: { request: { adapter: { getUrl: () => resourceUrl } } } };
      const receipt = await enrichSettle(declaration, context as unknown as Parameters<typeof enrichSettle>[1]);
      return receipt ? { ...settled, extensions: { ...settled.extensions, [OFFER_RECEIPT]: receipt } } : settled;
    },
  };
}
