// Meteora DAMM v2 (cp_amm) instructions, encoded from its IDL (MeteoraAg/damm-v2-sdk src/idl/cp_amm.json):
// a customizable pool created with its first position, then liquidity added to and removed from that position.

import { address, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { anchorIx, Borsh, byteOrder, pda, r, rs, w, ws } from './encode.ts';

export const DAMM_V2 = address('cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG');
const POOL_AUTHORITY = address('HLnpSz9h2S4hiLQ43rnSD9XkcUThA7B8hQMKmDaiTLcC');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const TOKEN_2022 = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
const SYSTEM = address('11111111111111111111111111111111');
/** The full price range the SDK uses (MIN_SQRT_PRICE / MAX_SQRT_PRICE). */
const MIN_SQRT_PRICE = 4295048016n;
const MAX_SQRT_PRICE = 79226673521066979257578248091n;
/** Price 1 as a Q64.64 square root. */
const SQRT_PRICE_ONE = 1n << 64n;

export interface DammPool {
  pool: Address;
  position: Address;
  positionNftMint: Address;
  positionNftAccount: Address;
  mintA: Address;
  mintB: Address;
  vaultA: Address;
  vaultB: Address;
}

/** Liquidity whose full-range deposit at price 1 is about `tokens` raw units of each side. */
export const liquidityFor = (tokens: bigint) => tokens << 64n;

async function accounts(mintA: Address, mintB: Address, nftMint: Address): Promise<DammPool> {
  const [hi, lo] = byteOrder(mintA, mintB);
  const pool = await pda(DAMM_V2, ['cpool', hi, lo]);
  return {
    pool,
    position: await pda(DAMM_V2, ['position', nftMint]),
    positionNftMint: nftMint,
    positionNftAccount: await pda(DAMM_V2, ['position_nft_account', nftMint]),
    mintA,
    mintB,
    vaultA: await pda(DAMM_V2, ['token_vault', mintA, pool]),
    vaultB: await pda(DAMM_V2, ['token_vault', mintB, pool]),
  };
}

const eventAuthority = () => pda(DAMM_V2, ['__event_authority']);

/** initialize_customizable_pool: a 0.25% constant-fee pool at price 1 over the full range, seeded by `creator`. */
export async function createPool(creator: KeyPairSigner, mintA: Address, mintB: Address, liquidity: bigint, tokenA: Address, tokenB: Address) {
  const nft = await generateKeyPairSigner();
  const p = await accounts(mintA, mintB, nft.address);
  // BorshFeeTimeScheduler with no periods: cliff_fee_numerator, number_of_period, period_frequency, reduction_factor, mode
  const baseFee = new Borsh().u64(2_500_000n).u16(0).u64(0).u64(0).u8(0).done();
  const data = new Borsh()
    .bytes(anchorIx('initialize_customizable_pool'))
    .bytes(baseFee)
    .u16(0) // compounding_fee_bps
    .u8(0) // padding
    .u8(0) // dynamic_fee: None
    .u128(MIN_SQRT_PRICE)
    .u128(MAX_SQRT_PRICE)
    .bool(false) // has_alpha_vault
    .u128(liquidity)
    .u128(SQRT_PRICE_ONE)
    .u8(1) // activation_type: timestamp
    .u8(0) // collect_fee_mode: both tokens
    .u8(0) // activation_point: None (active now)
    .done();
  const ix: Instruction = {
    programAddress: DAMM_V2,
    accounts: [
      r(creator.address),
      ws(nft),
      w(p.positionNftAccount),
      ws(creator),
      r(POOL_AUTHORITY),
      w(p.pool),
      w(p.position),
      r(mintA),
      r(mintB),
      w(p.vaultA),
      w(p.vaultB),
      w(tokenA),
      w(tokenB),
      r(TOKEN),
      r(TOKEN),
      r(TOKEN_2022),
      r(SYSTEM),
      r(await eventAuthority()),
      r(DAMM_V2),
    ],
    data,
  };
  return { ix, pool: p };
}

async function modify(name: 'add_liquidity' | 'remove_liquidity', p: DammPool, owner: KeyPairSigner, liquidity: bigint, thresholdA: bigint, thresholdB: bigint, tokenA: Address, tokenB: Address): Promise<Instruction> {
  const data = new Borsh().bytes(anchorIx(name)).u128(liquidity).u64(thresholdA).u64(thresholdB).done();
  const common = [
    w(p.pool),
    w(p.position),
    w(tokenA),
    w(tokenB),
    w(p.vaultA),
    w(p.vaultB),
    r(p.mintA),
    r(p.mintB),
    r(p.positionNftAccount),
    rs(owner),
    r(TOKEN),
    r(TOKEN),
    r(await eventAuthority()),
    r(DAMM_V2),
  ];
  return { programAddress: DAMM_V2, accounts: name === 'remove_liquidity' ? [r(POOL_AUTHORITY), ...common] : common, data };
}

const U64_MAX = (1n << 64n) - 1n;
/** add_liquidity to the position, accepting any token amounts. */
export const addLiquidity = (p: DammPool, owner: KeyPairSigner, liquidity: bigint, tokenA: Address, tokenB: Address) =>
  modify('add_liquidity', p, owner, liquidity, U64_MAX, U64_MAX, tokenA, tokenB);
/** remove_liquidity from the position, accepting any token amounts. */
export const removeLiquidity = (p: DammPool, owner: KeyPairSigner, liquidity: bigint, tokenA: Address, tokenB: Address) =>
  modify('remove_liquidity', p, owner, liquidity, 0n, 0n, tokenA, tokenB);
