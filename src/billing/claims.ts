// POST /api/keys/claim: prove ownership of a wallet with a pending deposit and receive a new key.
// Order of answers (DESIGN.md): 400 missing field -> 401 challenge or signature -> 404 no pending
// claim -> 200. The message signed is the UTF-8 bytes of the challenge string as issued.
import * as ed from '@noble/ed25519';
import { createHash } from 'node:crypto';
import { base58Bytes } from '../chain/base58.ts';
import { badRequest, GatewayError } from '../errors.ts';
import type { KeyStore } from './store.ts';

ed.hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash('sha512').update(m).digest());

const HINT =
  'POST a JSON body {"wallet": "<base58 address>", "signature": "<base58 Ed25519 signature of the challenge string>", "challenge": "<hex from GET /api/keys/challenge?wallet=...>"}';

export const invalidSignature = () => new GatewayError(401, { error: 'Invalid signature', hint: 'Request a fresh challenge, sign its exact string with the wallet key, and claim once.' });
export const noPendingKey = () => new GatewayError(404, { error: 'No pending key found for this wallet. Please send SOL to top up.', code: 'no_pending_key' });

export interface ClaimResult {
  apiKey: string;
  wallet: string;
  freeCalls: number;
  creditLamports: bigint;
}

export async function claimKey(store: Pick<KeyStore, 'consumeChallenge' | 'claim'>, freeCalls: number, body: unknown, now = Date.now()): Promise<ClaimResult> {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const missing = ['wallet', 'signature', 'challenge'].filter((k) => typeof b[k] !== 'string' || (b[k] as string).trim() === '');
  if (missing.length) throw badRequest('Missing parameters', `${missing.join(', ')} required. ${HINT}`, { missing });
  const wallet = (b.wallet as string).trim();
  const signature = (b.signature as string).trim();
  const challenge = (b.challenge as string).trim();
  const pubkey = base58Bytes(wallet, 32);
  if (!pubkey || pubkey.length !== 32) throw badRequest('Invalid wallet', `wallet must be a base58 Solana address (32 bytes). ${HINT}`);

  if (!(await store.consumeChallenge(challenge, wallet, now))) throw invalidSignature();
  const sig = base58Bytes(signature, 64);
  if (!sig || sig.length !== 64) throw invalidSignature();
  let valid = false;
  try {
    valid = ed.verify(sig, new TextEncoder().encode(challenge), pubkey);
  } catch {
    valid = false;
  }
  if (!valid) throw invalidSignature();

  // Of two racing claims only one finds the pending row (the store makes it one transaction).
  const claimed = await store.claim(wallet, freeCalls, now);
  if (!claimed) throw noPendingKey();
  return { wallet, ...claimed };
}
