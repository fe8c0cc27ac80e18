// What `bun run sandbox` and `bun run wallet` agree on, so that a person can buy a key by hand on
// the sandbox chain (README, "Offline: buy a key on the sandbox chain"): where the demo wallet's
// throwaway key lives, the chain's address, and the address a gateway on it sells keys from.
import { createKeyPairSignerFromBytes, generateKeyPairSigner, writeKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { existsSync } from 'node:fs';

/** The deposit address of a gateway on the sandbox chain: no one holds its key, and it reads as what it is. */
export const SANDBOX_GATEWAY_ADDRESS = 'SandboxGateway11111111111111111111111111111' as Address;

/** What a deposit in the walkthrough buys: ten paid calls at the default price. */
export const WALKTHROUGH_DEPOSIT_LAMPORTS = 22_000_000n;

export const DEFAULT_SANDBOX_PORT = 8899;
export const sandboxPort = (env: NodeJS.ProcessEnv = process.env) => Number(env.SANDBOX_PORT ?? DEFAULT_SANDBOX_PORT);
/** Where `bun run wallet` looks for the chain when told nothing (SANDBOX_PORT unset). */
export const DEFAULT_SANDBOX_RPC = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;

/** Where the sandbox keeps its demo wallet, relative to the checkout (`bun run` starts scripts there). */
export const DEFAULT_DEMO_WALLET = 'data/sandbox-wallet.json';

/** The demo wallet's keypair file: SANDBOX_WALLET, or the sandbox's own one. */
export const demoWalletPath = (env: NodeJS.ProcessEnv = process.env) => env.SANDBOX_WALLET ?? DEFAULT_DEMO_WALLET;

/** A Solana CLI keypair file (a JSON array of 64 bytes: the Ed25519 seed, then the public key). */
export async function readKeypairFile(path: string): Promise<KeyPairSigner> {
  let bytes: unknown;
  try {
    bytes = JSON.parse(await Bun.file(path).text());
  } catch (e) {
    throw new Error(`cannot read the keypair file ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist (bun run sandbox writes it)' : 'not JSON'}`);
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new Error(`${path} is not a Solana CLI keypair file (a JSON array of 64 bytes)`);
  }
  // Kit checks that the public half belongs to the secret half.
  return createKeyPairSignerFromBytes(new Uint8Array(bytes));
}

/**
 * A new keypair written to `path` (mode 0600, like solana-keygen). An existing file is replaced
 * only when `replace` says it is a throwaway one; otherwise it is someone's key and is used as is.
 */
export async function keypairFile(path: string, replace = false): Promise<KeyPairSigner> {
  if (!replace && existsSync(path)) return readKeypairFile(path);
  const signer = await generateKeyPairSigner(true);
  await writeKeyPairSigner(signer, path, { unsafelyOverwriteExistingKeyPair: replace });
  return signer;
}
