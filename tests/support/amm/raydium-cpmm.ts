// Raydium CPMM (raydium_cp_swap) instructions, encoded from its IDL (raydium-io/raydium-idl
// raydium_cpmm/raydium_cp_swap.json) and the program's seeds: initialize, deposit and withdraw.

import { address, generateKeyPairSigner, lamports, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import type { LiteSVM } from 'litesvm';
import { anchorAccount, anchorIx, Borsh, byteOrder, pda, r, rs, w, ws } from './encode.ts';

export const RAYDIUM_CPMM = address('CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C');
/** The program's hard-coded receiver of the pool-creation fee: a wrapped-SOL token account on mainnet. */
export const CREATE_POOL_FEE_RECEIVER = address('DNXgeM9EiiaAbaWvwjHj9fQQLAX5ZsfHyvmYUNRAdNC8');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_PROGRAM = TOKEN;
const TOKEN_2022 = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
const ATA_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const SYSTEM = address('11111111111111111111111111111111');
const RENT = address('SysvarRent111111111111111111111111111111111');
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const NATIVE_MINT = address('So11111111111111111111111111111111111111112');

/**
 * AmmConfig and the fee receiver are created by Raydium's admin on mainnet (admin-only create_amm_config), so
 * they are written into the sandbox directly, in the program's layouts: a 0.25% trade fee config charging
 * mainnet's 0.15 SOL creation fee, and a wrapped-SOL token account at the receiver's hard-coded address.
 */
export async function installCpmmConfig(svm: LiteSVM, feeOwner: Address): Promise<{ ammConfig: Address; createPoolFee: bigint }> {
  const ammConfig = (await generateKeyPairSigner()).address;
  const createPoolFee = 150_000_000n;
  const data = new Borsh()
    .bytes(anchorAccount('AmmConfig'))
    .u8(255) // bump
    .bool(false) // disable_create_pool
    .u16(0) // index
    .u64(2500) // trade_fee_rate (hundredths of a bip)
    .u64(120_000) // protocol_fee_rate
    .u64(40_000) // fund_fee_rate
    .u64(createPoolFee)
    .pubkey(feeOwner)
    .pubkey(feeOwner)
    .bytes(new Uint8Array(8 * 16))
    .done();
  svm.setAccount({ address: ammConfig, data, executable: false, lamports: lamports(10_000_000n), programAddress: RAYDIUM_CPMM, space: BigInt(data.length) });
  const rent = 2_039_280n;
  const receiver = new Borsh()
    .pubkey(NATIVE_MINT)
    .pubkey(feeOwner)
    .u64(0) // amount
    .u32(0).bytes(new Uint8Array(32)) // delegate: None
    .u8(1) // initialized
    .u32(1).u64(rent) // is_native: Some(rent-exempt reserve)
    .u64(0) // delegated_amount
    .u32(0).bytes(new Uint8Array(32)) // close_authority: None
    .done();
  svm.setAccount({ address: CREATE_POOL_FEE_RECEIVER, data: receiver, executable: false, lamports: lamports(rent), programAddress: TOKEN, space: BigInt(receiver.length) });
  return { ammConfig, createPoolFee };
}

export interface CpmmPool {
  pool: Address;
  authority: Address;
  lpMint: Address;
  mint0: Address;
  mint1: Address;
  vault0: Address;
  vault1: Address;
  observation: Address;
}

export async function poolAccounts(ammConfig: Address, mintA: Address, mintB: Address): Promise<CpmmPool> {
  const [hi, lo] = byteOrder(mintA, mintB);
  // token_0 must be the smaller mint
  const [mint0, mint1] = [lo, hi];
  const pool = await pda(RAYDIUM_CPMM, ['pool', ammConfig, mint0, mint1]);
  return {
    pool,
    authority: await pda(RAYDIUM_CPMM, ['vault_and_lp_mint_auth_seed']),
    lpMint: await pda(RAYDIUM_CPMM, ['pool_lp_mint', pool]),
    mint0,
    mint1,
    vault0: await pda(RAYDIUM_CPMM, ['pool_vault', pool, mint0]),
    vault1: await pda(RAYDIUM_CPMM, ['pool_vault', pool, mint1]),
    observation: await pda(RAYDIUM_CPMM, ['observation', pool]),
  };
}

/** initialize: the creator seeds the pool with amount0 of mint0 and amount1 of mint1 and gets the LP tokens. */
export function initialize(creator: KeyPairSigner, ammConfig: Address, p: CpmmPool, amount0: bigint, amount1: bigint, accounts: { token0: Address; token1: Address; lp: Address }): Instruction {
  return {
    programAddress: RAYDIUM_CPMM,
    accounts: [
      ws(creator),
      r(ammConfig),
      r(p.authority),
      w(p.pool),
      r(p.mint0),
      r(p.mint1),
      w(p.lpMint),
      w(accounts.token0),
      w(accounts.token1),
      w(accounts.lp),
      w(p.vault0),
      w(p.vault1),
      w(CREATE_POOL_FEE_RECEIVER),
      w(p.observation),
      r(TOKEN),
      r(TOKEN),
      r(TOKEN),
      r(ATA_PROGRAM),
      r(SYSTEM),
      r(RENT),
    ],
    data: new Borsh().bytes(anchorIx('initialize')).u64(amount0).u64(amount1).u64(0).done(),
  };
}

function lpChange(name: 'deposit' | 'withdraw', owner: KeyPairSigner, p: CpmmPool, lpAmount: bigint, limit0: bigint, limit1: bigint, accounts: { token0: Address; token1: Address; lp: Address }): Instruction {
  const metas = [
    rs(owner),
    r(p.authority),
    w(p.pool),
    w(accounts.lp),
    w(accounts.token0),
    w(accounts.token1),
    w(p.vault0),
    w(p.vault1),
    r(TOKEN),
    r(TOKEN_2022),
    r(p.mint0),
    r(p.mint1),
    w(p.lpMint),
  ];
  return {
    programAddress: RAYDIUM_CPMM,
    accounts: name === 'withdraw' ? [...metas, r(MEMO)] : metas,
    data: new Borsh().bytes(anchorIx(name)).u64(lpAmount).u64(limit0).u64(limit1).done(),
  };
}

const U64_MAX = (1n << 64n) - 1n;
/** deposit: mint lpAmount LP tokens for whatever share of both tokens they cost. */
export const deposit = (owner: KeyPairSigner, p: CpmmPool, lpAmount: bigint, accounts: { token0: Address; token1: Address; lp: Address }) =>
  lpChange('deposit', owner, p, lpAmount, U64_MAX, U64_MAX, accounts);
/** withdraw: burn lpAmount LP tokens for their share of both tokens. */
export const withdraw = (owner: KeyPairSigner, p: CpmmPool, lpAmount: bigint, accounts: { token0: Address; token1: Address; lp: Address }) =>
  lpChange('withdraw', owner, p, lpAmount, 0n, 0n, accounts);

/** swap_base_input: sells exactly `amountIn` of the input mint for at least `minimumOut` of the other (classic SPL Token mints). */
export function swapBaseInput(owner: KeyPairSigner, ammConfig: Address, p: CpmmPool, inputMint: Address, amountIn: bigint, minimumOut: bigint, accounts: { input: Address; output: Address }): Instruction {
  const zeroIn = inputMint === p.mint0;
  return {
    programAddress: RAYDIUM_CPMM,
    accounts: [
      rs(owner),
      r(p.authority),
      r(ammConfig),
      w(p.pool),
      w(accounts.input),
      w(accounts.output),
      w(zeroIn ? p.vault0 : p.vault1),
      w(zeroIn ? p.vault1 : p.vault0),
      r(TOKEN),
      r(TOKEN),
      r(zeroIn ? p.mint0 : p.mint1),
      r(zeroIn ? p.mint1 : p.mint0),
      w(p.observation),
    ],
    data: new Borsh().bytes(anchorIx('swap_base_input')).u64(amountIn).u64(minimumOut).done(),
  };
}
