// What `bun run sandbox` and `bun run wallet` agree on, so that a person can buy a key by hand on
// the sandbox chain (README, "Offline: buy a key on the sandbox chain"): where the demo wallet's
// throwaway key lives, the chain's address, and the address a gateway on it sells keys from.
import { createKeyPairSignerFromBytes, generateKeyPairSigner, writeKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { existsSync } from 'node:fs';

/** The deposit address of a gateway on the sandbox chain: no one holds its key, and it reads as what it is. */
export const SANDBOX_GATEWAY_ADDRESS = 'SandboxGateway11111111111111111111111111111' as Address;

/** What a deposit in the walkthrough buys: ten paid calls at the default price. */
export const WALKTHROUGH_DEPOSIT_LAMPORTS = 22_000_000n;

export const sandboxPort = (env: NodeJS.ProcessEnv = process.env) => Number(env.SANDBOX_PORT ?? 8899);

/** The demo wallet's keypair file, relative to the checkout (`bun run` starts scripts there). */
export const demoWalletPath = (env: NodeJS.ProcessEnv = process.env) => env.SANDBOX_WALLET ?? 'data/sandbox-wallet.json';

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

/** The keypair in `path`, or a new one written there (mode 0600, like solana-keygen). */
export async function keypairFile(path: string): Promise<KeyPairSigner> {
  if (existsSync(path)) return readKeypairFile(path);
  const signer = await generateKeyPairSigner(true);
  await writeKeyPairSigner(signer, path);
  return signer;
}
