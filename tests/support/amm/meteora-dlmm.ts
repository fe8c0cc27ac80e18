// Meteora DLMM (lb_clmm) instructions, encoded from its IDL (MeteoraAg/dlmm-sdk idls/dlmm.json): a customizable
// permissionless pair, its bin arrays and a position, liquidity added by strategy and removed by bin range.

import { address, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { anchorIx, Borsh, byteOrder, pda, r, rs, w, ws } from './encode.ts';

export const DLMM = address('LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo');
/** The base key the SDK derives customizable permissionless pairs from (ILM_BASE). */
const ILM_BASE = address('MFGQxwAmB91SwuYX36okv2Qmdc9aMuHTwWGUrp4AtB1');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const SYSTEM = address('11111111111111111111111111111111');
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const BINS_PER_ARRAY = 70;
const BIN_STEP = 10;

export interface DlmmPair {
  lbPair: Address;
  mintX: Address;
  mintY: Address;
  reserveX: Address;
  reserveY: Address;
}

const eventAuthority = () => pda(DLMM, ['__event_authority']);
export const oracleOf = (lbPair: Address) => pda(DLMM, ['oracle', lbPair]);
const binArrayIndex = (bin: number) => Math.floor(bin / BINS_PER_ARRAY);
const binArray = (lbPair: Address, index: number) => pda(DLMM, ['bin_array', lbPair, new Borsh().u64(BigInt(index)).done()]);

/** initialize_customizable_permissionless_lb_pair2 at bin 0 (price 1), bin step 10, a 0.25% base fee. */
export async function createPair(funder: KeyPairSigner, mintX: Address, mintY: Address, userTokenX: Address, userTokenY: Address): Promise<{ ix: Instruction; pair: DlmmPair }> {
  const [hi, lo] = byteOrder(mintX, mintY);
  const lbPair = await pda(DLMM, [ILM_BASE, lo, hi]);
  const pair = { lbPair, mintX, mintY, reserveX: await pda(DLMM, [lbPair, mintX]), reserveY: await pda(DLMM, [lbPair, mintY]) };
  const data = new Borsh()
    .bytes(anchorIx('initialize_customizable_permissionless_lb_pair2'))
    .u32(0) // active_id
    .u16(BIN_STEP)
    .u16(25_000) // base_factor: 25 bps × 10,000 / bin step
    .u8(0) // activation_type: slot
    .bool(false) // has_alpha_vault
    .u8(0) // activation_point: None (now)
    .bool(false) // creator_pool_on_off_control
    .u8(0) // base_fee_power_factor
    .u8(0) // concrete_function_type
    .u8(0) // collect_fee_mode
    .bytes(new Uint8Array(60))
    .done();
  const ix: Instruction = {
    programAddress: DLMM,
    accounts: [
      w(lbPair),
      r(DLMM), // bin_array_bitmap_extension: not needed near bin 0
      r(mintX),
      r(mintY),
      w(pair.reserveX),
      w(pair.reserveY),
      w(await oracleOf(lbPair)),
      r(userTokenX),
      ws(funder),
      r(DLMM), // token_badge_x: none
      r(DLMM), // token_badge_y: none
      r(TOKEN),
      r(TOKEN),
      r(SYSTEM),
      r(userTokenY),
      r(await eventAuthority()),
      r(DLMM),
    ],
    data,
  };
  return { ix, pair };
}

export interface DlmmPosition {
  position: Address;
  lower: number;
  upper: number;
  binArrays: Address[];
}

/** The bin arrays a ±`half` bin range needs and a position over it (account setup, not liquidity). */
export async function openPosition(owner: KeyPairSigner, pair: DlmmPair, half: number): Promise<{ ixs: Instruction[]; position: DlmmPosition }> {
  const lower = -half;
  const upper = half;
  const indexes = [...new Set([binArrayIndex(lower), binArrayIndex(upper)])];
  const binArrays = await Promise.all(indexes.map((i) => binArray(pair.lbPair, i)));
  const ixs: Instruction[] = indexes.map((index, k) => ({
    programAddress: DLMM,
    accounts: [r(pair.lbPair), w(binArrays[k]!), ws(owner), r(SYSTEM)],
    data: new Borsh().bytes(anchorIx('initialize_bin_array')).u64(BigInt(index)).done(),
  }));
  const position = await generateKeyPairSigner();
  ixs.push({
    programAddress: DLMM,
    accounts: [ws(owner), ws(position), r(pair.lbPair), rs(owner), r(SYSTEM), r(await eventAuthority()), r(DLMM)],
    data: new Borsh().bytes(anchorIx('initialize_position2')).u32(lower).u32(upper - lower + 1).done(),
  });
  return { ixs, position: { position: position.address, lower, upper, binArrays } };
}

async function common(owner: KeyPairSigner, pair: DlmmPair, pos: DlmmPosition, tokenX: Address, tokenY: Address) {
  return [
    w(pos.position),
    w(pair.lbPair),
    r(DLMM), // bin_array_bitmap_extension: none
    w(tokenX),
    w(tokenY),
    w(pair.reserveX),
    w(pair.reserveY),
    r(pair.mintX),
    r(pair.mintY),
    rs(owner),
    r(TOKEN),
    r(TOKEN),
  ];
}

/** add_liquidity_by_strategy2, spot shape over the whole position, both sides. */
export async function addLiquidity(owner: KeyPairSigner, pair: DlmmPair, pos: DlmmPosition, amountX: bigint, amountY: bigint, tokenX: Address, tokenY: Address): Promise<Instruction> {
  const data = new Borsh()
    .bytes(anchorIx('add_liquidity_by_strategy2'))
    .u64(amountX)
    .u64(amountY)
    .u32(0) // active_id observed
    .u32(3) // max_active_bin_slippage
    .u32(pos.lower)
    .u32(pos.upper)
    .u8(6) // StrategyType::SpotImBalanced
    .bytes(new Uint8Array(64))
    .u32(0) // remaining_accounts_info: no transfer-hook slices
    .done();
  return {
    programAddress: DLMM,
    accounts: [...(await common(owner, pair, pos, tokenX, tokenY)), r(await eventAuthority()), r(DLMM), ...pos.binArrays.map(w)],
    data,
  };
}

/** remove_liquidity_by_range2 over the whole position, `bps` of each bin. */
export async function removeLiquidity(owner: KeyPairSigner, pair: DlmmPair, pos: DlmmPosition, bps: number, tokenX: Address, tokenY: Address): Promise<Instruction> {
  const data = new Borsh().bytes(anchorIx('remove_liquidity_by_range2')).u32(pos.lower).u32(pos.upper).u16(bps).u32(0).done();
  return {
    programAddress: DLMM,
    accounts: [...(await common(owner, pair, pos, tokenX, tokenY)), r(MEMO), r(await eventAuthority()), r(DLMM), ...pos.binArrays.map(w)],
    data,
  };
}
