// A Solana CLI keypair file (a JSON array of 64 numbers: the secret seed, then the public key), as
// the settings that name one (the fee payer's, the receipt signer's) read it. No error repeats the
// file's contents: they are the key.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config.ts';

/** The file's 64 bytes; a ConfigError naming `setting` when it cannot be read or is no keypair. */
export function readKeypairFile(path: string, setting: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${setting}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let bytes: unknown;
  try {
    bytes = JSON.parse(text);
  } catch {
    bytes = undefined;
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new ConfigError(`${setting}: the file is not a Solana CLI keypair (a JSON array of 64 numbers from 0 to 255)`);
  }
  return Uint8Array.from(bytes as number[]);
}
