// Pool creation, liquidity add and liquidity remove on an AMM, executed on the sandbox chain by the
// program's real binary (tests/fixtures/programs, source and licence in SOURCES.md there), fetched back
// through the sandbox's mainnet-shaped getTransaction and decoded: each must come out as its kind, not as
// a Swap, with the owner's changes equal to what LiteSVM's own accounts say moved.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { findAssociatedTokenPda } from '@solana-program/token';
import { address, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { formatAssetAmount } from '../../src/chain/format.ts';
import { describeTransaction, type DecodeTxBody } from '../../src/chain/tx/describe.ts';
import type { ActionKind } from '../../src/chain/tx/instructions.ts';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { rawResult, signedTransaction } from '../support/sandbox/testing.ts';
import * as cpmm from '../support/amm/raydium-cpmm.ts';
import { payerChanges } from '../support/decoded.ts';

const PROGRAMS = join(import.meta.dir, '../fixtures/programs');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const LAMPORTS_PER_SIGNATURE = 5000n;

let chain: Sandbox;

beforeAll(async () => {
  chain = await startSandbox();
  chain.svm.addProgramFromFile(cpmm.RAYDIUM_CPMM, join(PROGRAMS, 'raydium_cpmm.so'));
});
afterAll(() => chain.stop());

const ata = async (owner: Address, mint: Address) => (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN }))[0];

/** "0.0401 SOL rent for 5 accounts it opened", from the lamports LiteSVM holds in those accounts. */
function rentNote(accounts: Address[]): string {
  const lamports = accounts.reduce((sum, a) => sum + (chain.svm.getBalance(a) ?? 0n), 0n);
  return `${formatAssetAmount(lamports, 9, 'SOL')} rent for ${accounts.length} accounts it opened`;
}

/** A wallet holding two fresh tokens (6 and 9 decimals). */
async function provider() {
  const wallet = await chain.newWallet();
  const mintX = await chain.createMint({ authority: chain.payer, decimals: 6 });
  const mintY = await chain.createMint({ authority: chain.payer, decimals: 9 });
  await chain.mintTo(mintX, chain.payer, wallet.address, 10n ** 13n);
  await chain.mintTo(mintY, chain.payer, wallet.address, 10n ** 16n);
  return { wallet, mintX, mintY };
}

/** Raw amount of a token account as LiteSVM holds it (0 when it does not exist). */
function tokenAmount(account: Address): bigint {
  const acc = chain.svm.getAccount(account);
  if (!acc || !acc.exists || acc.data.length < 72) return 0n;
  return Buffer.from(acc.data).readBigUInt64LE(64);
}

interface Executed {
  body: DecodeTxBody;
  signatures: number;
  /** the owner's lamport and per-mint token changes, read from LiteSVM before and after */
  lamports: bigint;
  tokens: Map<Address, bigint>;
}

/** Runs `ixs` signed by `owner` (the fee payer), fetches the transaction over RPC and decodes it. */
async function execute(owner: KeyPairSigner, ixs: Instruction[], mints: Address[]): Promise<Executed> {
  const accounts = new Map(await Promise.all(mints.map(async (m) => [m, await ata(owner.address, m)] as const)));
  const before = { lamports: chain.svm.getBalance(owner.address) ?? 0n, tokens: new Map([...accounts].map(([m, a]) => [m, tokenAmount(a)])) };
  const tx = await signedTransaction(chain.url, owner, [getSetComputeUnitLimitInstruction({ units: 1_400_000 }), ...ixs]);
  const sent = await chain.send(tx);
  expect(sent.err).toBeNull();
  const result = await rawResult(chain.url, 'getTransaction', [sent.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
  return {
    body: describeTransaction(result, { signature: sent.signature, network: 'mainnet-beta' }),
    signatures: Object.keys(tx.signatures).length,
    lamports: (chain.svm.getBalance(owner.address) ?? 0n) - before.lamports,
    tokens: new Map([...accounts].map(([m, a]) => [m, tokenAmount(a) - before.tokens.get(m)!])),
  };
}

const SUMMARY: Partial<Record<ActionKind, string>> = {
  pool_create: 'Created a pool on',
  liquidity_add: 'Added liquidity on',
  liquidity_remove: 'Removed liquidity on',
};

/** What a user would notice: the kind, no Swap anywhere, and the owner's changes exactly as the chain moved them. */
function expectDecoded(x: Executed, owner: Address, kind: ActionKind, venue: string, instruction: string) {
  const { body } = x;
  expect([body.kind, body.category, body.categoryFit]).toEqual([kind, 'Transfer', 'nearest']);
  expect(body.programs.filter((p) => p.venue !== null).map((p) => p.name)).toEqual([venue]);
  expect(body.summary).toStartWith(`${SUMMARY[kind]} ${venue} (${instruction})`);
  expect(body.summary).not.toMatch(/swap/i);
  expect(body.llm_context).not.toContain('categorized as Swap');
  expect(body.actions.find((a) => a.name === instruction)).toMatchObject({ program: venue, kind });

  const mine = body.ownerChanges.find((o) => o.owner === owner)!;
  expect(mine).toMatchObject({ signer: true, feePayer: true, feeLamports: Number(LAMPORTS_PER_SIGNATURE * BigInt(x.signatures)) });
  // only wallets sign for themselves: accounts created under a fresh keypair (vaults, position mints) are not co-signers
  expect(body.ownerChanges.filter((o) => o.signer).map((o) => o.owner)).toEqual([owner]);
  const raw = (asset: string) => mine.changes.find((c) => c.asset === asset)?.raw ?? '0';
  // SOL = wallet lamports + fee + lamports parked in its own token accounts (reported apart as their rent)
  expect(BigInt(raw('SOL')) - BigInt(mine.tokenAccountRentLamports)).toBe(x.lamports + BigInt(mine.feeLamports));
  for (const [mint, delta] of x.tokens) expect(`${mint} ${raw(mint)}`).toBe(`${mint} ${delta}`);
  // and nothing else moved for the owner but SOL, the watched mints and (on creation) one position NFT
  const others = mine.changes.filter((c) => c.asset !== 'SOL' && !x.tokens.has(c.asset as Address));
  for (const c of others) expect([c.raw, c.decimals]).toEqual(['1', 0]);
  expect(payerChanges(body).changes.map((c) => [c.asset, c.raw])).toEqual(mine.changes.map((c) => [c.asset, c.raw]));
}

describe('Raydium CPMM (real raydium_cp_swap binary)', () => {
  test('pool creation, deposit and withdraw; the LP token is received and returned, never bought or sold', async () => {
    const { wallet, mintX, mintY } = await provider();
    const { ammConfig, createPoolFee } = await cpmm.installCpmmConfig(chain.svm, chain.payer.address);
    const pool = await cpmm.poolAccounts(ammConfig, mintX, mintY);
    const accounts = { token0: await ata(wallet.address, pool.mint0), token1: await ata(wallet.address, pool.mint1), lp: await ata(wallet.address, pool.lpMint) };
    const mints = [pool.mint0, pool.mint1, pool.lpMint];
    const feeBefore = chain.svm.getBalance(cpmm.CREATE_POOL_FEE_RECEIVER)!;

    const created = await execute(wallet, [cpmm.initialize(wallet, ammConfig, pool, 1_000_000_000n, 2_000_000_000n, accounts)], mints);
    expectDecoded(created, wallet.address, 'pool_create', 'Raydium CPMM', 'initialize');
    expect(chain.svm.getBalance(cpmm.CREATE_POOL_FEE_RECEIVER)! - feeBefore).toBe(createPoolFee);
    // the new pool accounts' rent is named as rent, not as SOL deposited into the pool
    expect(created.body.summary).toContain(rentNote([pool.pool, pool.lpMint, pool.vault0, pool.vault1, pool.observation]));
    expect(created.tokens.get(pool.lpMint)).toBeGreaterThan(0n);

    const added = await execute(wallet, [cpmm.deposit(wallet, pool, 1_000_000n, accounts)], mints);
    expectDecoded(added, wallet.address, 'liquidity_add', 'Raydium CPMM', 'deposit');
    expect(added.tokens.get(pool.lpMint)).toBe(1_000_000n);
    expect(added.body.summary).toContain(`received 0.001 ${pool.lpMint.slice(0, 6)}`);

    const removed = await execute(wallet, [cpmm.withdraw(wallet, pool, 500_000n, accounts)], mints);
    expectDecoded(removed, wallet.address, 'liquidity_remove', 'Raydium CPMM', 'withdraw');
    expect(removed.tokens.get(pool.lpMint)).toBe(-500_000n);
    expect(removed.body.summary).toContain(`returned 0.0005 ${pool.lpMint.slice(0, 6)}`);
  });
});
