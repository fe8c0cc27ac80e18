// The sandbox's one method mainnet lacks: sandboxMintTo [owner, mint, rawAmount] mints USDC (held
// at its mainnet address) into the owner's associated token account, creating it on first use.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { mintUsdc, sandboxRpc, usdcAccount, usdcOf, USDC_MINT } from '../support/x402.ts';

let chain: Sandbox;
beforeAll(async () => {
  chain = await startSandbox();
});
afterAll(() => chain.stop());

test('USDC is a mint at its mainnet address, 6 decimals', async () => {
  const supply = await sandboxRpc<{ value: { decimals: number } }>(chain, 'getTokenSupply', [USDC_MINT]);
  expect(supply.value.decimals).toBe(6);
});

test('mints to an owner without a token account (creating it), then adds to it', async () => {
  const owner = (await generateKeyPairSigner()).address;
  expect(await usdcOf(chain, owner)).toBe(0n);
  const signature = await mintUsdc(chain, owner, 1_500_000n);
  expect(typeof signature).toBe('string');
  expect(await usdcOf(chain, owner)).toBe(1_500_000n);
  await mintUsdc(chain, owner, 1n);
  expect(await usdcOf(chain, owner)).toBe(1_500_001n);
  const account = await sandboxRpc<{ value: { owner: string } | null }>(chain, 'getAccountInfo', [await usdcAccount(owner), { encoding: 'base64' }]);
  expect(account.value?.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
});

test('bad params are JSON-RPC invalid-params errors: an amount that is no u64 string, a mint the sandbox cannot mint, a bad owner', async () => {
  const owner = (await generateKeyPairSigner()).address;
  for (const amount of [1000, '-1', '1.5', '18446744073709551616', '']) {
    await expect(sandboxRpc(chain, 'sandboxMintTo', [owner, USDC_MINT, amount])).rejects.toThrow(/rawAmount/);
  }
  const other = await chain.createMint({ authority: chain.payer, decimals: 6 });
  await expect(sandboxRpc(chain, 'sandboxMintTo', [owner, other, '1'])).rejects.toThrow(/can mint only/);
  await expect(sandboxRpc(chain, 'sandboxMintTo', ['nope', USDC_MINT, '1'])).rejects.toThrow();
  expect(await usdcOf(chain, owner)).toBe(0n);
});
