// Orca Whirlpool instructions, encoded from the program source (orca-so/whirlpools programs/whirlpool):
// initialize_pool, initialize_tick_array, open_position, increase_liquidity and decrease_liquidity.
// The program runs at Orca's immutable mainnet deployment (iwhrLH…), the binary Orca's SDK tests load there.

import { address, generateKeyPairSigner, lamports, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import { anchorAccount, anchorIx, Borsh, byteOrder, pda, r, rs, w, ws } from './encode.ts';

export const WHIRLPOOL_IMMUTABLE = address('iwhrLHdsgrvmnwU8GF2FSmyabSMjfHwFGJAX2ufJ3ZN');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const ATA_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const SYSTEM = address('11111111111111111111111111111111');
const RENT = address('SysvarRent111111111111111111111111111111111');
const TICK_SPACING = 64;
const TICKS_PER_ARRAY = 88;
/** Price 1 as a Q64.64 square root: tick 0. */
const SQRT_PRICE_ONE = 1n << 64n;

const tickSpacingSeed = () => new Borsh().u16(TICK_SPACING).done();

/**
 * WhirlpoolsConfig and FeeTier are created by Orca's admins on mainnet (initialize_config checks an admin key), so
 * they are written into the sandbox directly in the program's layouts, with `feeAuthority` as every authority.
 */
export async function installWhirlpoolConfig(svm: LiteSVM, feeAuthority: Address): Promise<Address> {
  const config = (await generateKeyPairSigner()).address;
  const data = new Borsh().bytes(anchorAccount('WhirlpoolsConfig')).pubkey(feeAuthority).pubkey(feeAuthority).pubkey(feeAuthority).u16(300).u16(0).done();
  svm.setAccount({ address: config, data, executable: false, lamports: lamports(10_000_000n), programAddress: WHIRLPOOL_IMMUTABLE, space: BigInt(data.length) });
  const feeTier = await pda(WHIRLPOOL_IMMUTABLE, ['fee_tier', config, tickSpacingSeed()]);
  const tier = new Borsh().bytes(anchorAccount('FeeTier')).pubkey(config).u16(TICK_SPACING).u16(3000).done();
  svm.setAccount({ address: feeTier, data: tier, executable: false, lamports: lamports(10_000_000n), programAddress: WHIRLPOOL_IMMUTABLE, space: BigInt(tier.length) });
  return config;
}

export interface Whirlpool {
  config: Address;
  whirlpool: Address;
  mintA: Address;
  mintB: Address;
  vaultA: Address;
  vaultB: Address;
}

const startOf = (tick: number) => Math.floor(tick / (TICKS_PER_ARRAY * TICK_SPACING)) * TICKS_PER_ARRAY * TICK_SPACING;
const tickArray = (whirlpool: Address, start: number) => pda(WHIRLPOOL_IMMUTABLE, ['tick_array', whirlpool, new TextEncoder().encode(String(start))]);

/** initialize_pool at price 1 (tick spacing 64), vaults as fresh keypairs; mints in the program's required order. */
export async function initializePool(funder: KeyPairSigner, config: Address, mintX: Address, mintY: Address): Promise<{ ix: Instruction; pool: Whirlpool }> {
  const [hi, lo] = byteOrder(mintX, mintY);
  const [mintA, mintB] = [lo, hi];
  const whirlpool = await pda(WHIRLPOOL_IMMUTABLE, ['whirlpool', config, mintA, mintB, tickSpacingSeed()]);
  const vaultA = await generateKeyPairSigner();
  const vaultB = await generateKeyPairSigner();
  const feeTier = await pda(WHIRLPOOL_IMMUTABLE, ['fee_tier', config, tickSpacingSeed()]);
  const ix: Instruction = {
    programAddress: WHIRLPOOL_IMMUTABLE,
    accounts: [r(config), r(mintA), r(mintB), ws(funder), w(whirlpool), ws(vaultA), ws(vaultB), r(feeTier), r(TOKEN), r(SYSTEM), r(RENT)],
    // bumps (unused by the program), tick_spacing, initial_sqrt_price
    data: new Borsh().bytes(anchorIx('initialize_pool')).u8(0).u16(TICK_SPACING).u128(SQRT_PRICE_ONE).done(),
  };
  return { ix, pool: { config, whirlpool, mintA, mintB, vaultA: vaultA.address, vaultB: vaultB.address } };
}

export interface WhirlpoolPosition {
  position: Address;
  positionMint: Address;
  positionTokenAccount: Address;
  tickArrayLower: Address;
  tickArrayUpper: Address;
}

/** The tick arrays and the position a range of ±`halfWidth` ticks around price 1 needs (account setup, not liquidity). */
export async function openPosition(funder: KeyPairSigner, p: Whirlpool, halfWidth: number): Promise<{ ixs: Instruction[]; position: WhirlpoolPosition }> {
  const lower = -halfWidth * TICK_SPACING;
  const upper = halfWidth * TICK_SPACING;
  const starts = [...new Set([startOf(lower), startOf(upper)])];
  const ixs: Instruction[] = [];
  for (const start of starts) {
    ixs.push({
      programAddress: WHIRLPOOL_IMMUTABLE,
      accounts: [r(p.whirlpool), ws(funder), w(await tickArray(p.whirlpool, start)), r(SYSTEM)],
      data: new Borsh().bytes(anchorIx('initialize_tick_array')).u32(start).done(),
    });
  }
  const mint = await generateKeyPairSigner();
  const position = await pda(WHIRLPOOL_IMMUTABLE, ['position', mint.address]);
  const [positionTokenAccount] = await findAssociatedTokenPda({ owner: funder.address, mint: mint.address, tokenProgram: TOKEN });
  ixs.push({
    programAddress: WHIRLPOOL_IMMUTABLE,
    accounts: [ws(funder), r(funder.address), w(position), ws(mint), w(positionTokenAccount), r(p.whirlpool), r(TOKEN), r(SYSTEM), r(RENT), r(ATA_PROGRAM)],
    data: new Borsh().bytes(anchorIx('open_position')).u8(0).u32(lower).u32(upper).done(),
  });
  return {
    ixs,
    position: {
      position,
      positionMint: mint.address,
      positionTokenAccount,
      tickArrayLower: await tickArray(p.whirlpool, startOf(lower)),
      tickArrayUpper: await tickArray(p.whirlpool, startOf(upper)),
    },
  };
}

function modify(name: 'increase_liquidity' | 'decrease_liquidity', owner: KeyPairSigner, p: Whirlpool, pos: WhirlpoolPosition, liquidity: bigint, limitA: bigint, limitB: bigint, tokenA: Address, tokenB: Address): Instruction {
  return {
    programAddress: WHIRLPOOL_IMMUTABLE,
    accounts: [
      w(p.whirlpool),
      r(TOKEN),
      rs(owner),
      w(pos.position),
      r(pos.positionTokenAccount),
      w(tokenA),
      w(tokenB),
      w(p.vaultA),
      w(p.vaultB),
      w(pos.tickArrayLower),
      w(pos.tickArrayUpper),
    ],
    data: new Borsh().bytes(anchorIx(name)).u128(liquidity).u64(limitA).u64(limitB).done(),
  };
}

const U64_MAX = (1n << 64n) - 1n;
export const increaseLiquidity = (owner: KeyPairSigner, p: Whirlpool, pos: WhirlpoolPosition, liquidity: bigint, tokenA: Address, tokenB: Address) =>
  modify('increase_liquidity', owner, p, pos, liquidity, U64_MAX, U64_MAX, tokenA, tokenB);
export const decreaseLiquidity = (owner: KeyPairSigner, p: Whirlpool, pos: WhirlpoolPosition, liquidity: bigint, tokenA: Address, tokenB: Address) =>
  modify('decrease_liquidity', owner, p, pos, liquidity, 0n, 0n, tokenA, tokenB);
