// The remembered ATA derivation answers exactly what @solana-program/token derives, for both token
// programs, and derives a pair once however many calls ask for it at the same time.
import { expect, test } from 'bun:test';
import { findAssociatedTokenPda } from '@solana-program/token';
import { address, generateKeyPairSigner } from '@solana/kit';
import { associatedTokenAddresses } from '../../src/chain/ata.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/chain/program-ids.ts';

test('the same addresses as findAssociatedTokenPda, under each token program', async () => {
  for (let i = 0; i < 20; i++) {
    const [wallet, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]).then((s) => s.map((k) => k.address));
    const got = await associatedTokenAddresses(wallet!, mint!);
    const [[classic], [token2022]] = await Promise.all(
      [TOKEN_PROGRAM, TOKEN_2022_PROGRAM].map((p) => findAssociatedTokenPda({ owner: wallet!, mint: mint!, tokenProgram: address(p) })),
    );
    expect(got).toEqual({ classic, token2022 });
    expect(classic).not.toBe(token2022);
  }
});

test('concurrent first calls for one pair share one derivation; later calls are answered from memory', async () => {
  const wallet = (await generateKeyPairSigner()).address;
  const mint = (await generateKeyPairSigner()).address;
  const first = associatedTokenAddresses(wallet, mint);
  expect(associatedTokenAddresses(wallet, mint)).toBe(first);
  await first;
  expect(associatedTokenAddresses(wallet, mint)).toBe(first);
});
