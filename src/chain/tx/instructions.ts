// What each instruction does, from its program id and instruction discriminator (pure).
//
// Anchor programs start instruction data with sha256("global:<instruction name>")[0..8]; the names
// below are the instruction names of each program's published IDL, and the 8-byte prefixes are
// computed from them here (tests pin a few against recorded mainnet transactions). Native programs
// (System, Token, Stake, Raydium AMM v4, Metaplex Token Metadata, Solend, Phoenix, OpenBook v1/Serum)
// use their own instruction index. Sources are listed in docs/decoding.md ("Where the names come from").

import { createHash } from 'node:crypto';
import {
  ASSOCIATED_TOKEN_PROGRAM,
  AUCTION_HOUSE_PROGRAM,
  BUBBLEGUM_PROGRAM,
  CANDY_MACHINE_V2_PROGRAM,
  CANDY_MACHINE_V3_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  KAMINO_LENDING_PROGRAM,
  MAGIC_EDEN_V2_PROGRAM,
  MARGINFI_PROGRAM,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  METAPLEX_AUCTION_PROGRAM,
  SOLEND_PROGRAM,
  SPL_GOVERNANCE_PROGRAM,
  SQUADS_V4_PROGRAM,
  STAKE_PROGRAM,
  SYSTEM_PROGRAM,
  TENSOR_MARKETPLACE_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_METADATA_PROGRAM,
  TOKEN_PROGRAM,
  VOTE_PROGRAM,
} from '../program-ids';
import type { NormalizedInstruction } from './normalize';

/**
 * What an instruction (and a transaction, by its most significant instruction) does.
 * Ordered from most to least significant: a transaction's kind is the first one its instructions reach.
 */
export const ACTION_KINDS = [
  'pool_create',
  'liquidity_add',
  'liquidity_remove',
  'liquidation',
  'order_fill',
  'order_place',
  'order_cancel',
  'nft_sale',
  'nft_mint',
  'lending_borrow',
  'lending_repay',
  'lending_deposit',
  'lending_withdraw',
  'multisig_execute',
  'governance_execute',
  'swap',
  'multisig_propose',
  'governance_proposal',
  'governance_vote',
  'fee_claim',
  'stake',
  'unstake',
  'governance_deposit',
  'governance_withdraw',
  'nft_transfer',
  'burn',
  'mint',
  'freeze',
  'thaw',
  // an unknown program that did something outweighs the transfers and account chores around it
  'unknown',
  'transfer',
  'account_management',
  'vote',
] as const;

export type ActionKind = (typeof ACTION_KINDS)[number];

/** Short words for a kind, for summaries ("liquidity deposit"). */
export const KIND_TEXT: Readonly<Record<ActionKind, string>> = {
  pool_create: 'pool creation',
  liquidity_add: 'liquidity deposit',
  liquidity_remove: 'liquidity withdrawal',
  liquidation: 'liquidation',
  order_fill: 'order fill',
  order_place: 'order placed',
  order_cancel: 'order cancelled or closed',
  nft_sale: 'NFT sale',
  nft_mint: 'NFT mint',
  lending_borrow: 'loan borrowed',
  lending_repay: 'loan repaid',
  lending_deposit: 'lending deposit',
  lending_withdraw: 'lending withdrawal',
  multisig_execute: 'multisig execution',
  governance_execute: 'governance proposal execution',
  swap: 'swap',
  multisig_propose: 'multisig proposal or vote',
  governance_proposal: 'governance proposal',
  governance_vote: 'governance vote',
  fee_claim: 'fee or reward claim',
  stake: 'stake delegation',
  unstake: 'stake deactivation or withdrawal',
  governance_deposit: 'governing tokens deposited',
  governance_withdraw: 'governing tokens withdrawn',
  nft_transfer: 'NFT transfer',
  burn: 'token burn',
  mint: 'token mint by its authority',
  freeze: 'token account frozen by its authority',
  thaw: 'token account thawed by its authority',
  transfer: 'transfer',
  account_management: 'account management',
  vote: 'validator vote',
  unknown: 'unrecognized instruction',
};

export interface InstructionAction {
  /** Instruction name as the program's IDL or source spells it ("add_liquidity_by_strategy2", "swap_base_in"). */
  readonly name: string;
  readonly kind: ActionKind;
}

type Groups = Partial<Record<ActionKind, readonly string[]>>;

function anchorDiscriminator(name: string): string {
  return createHash('sha256').update(`global:${name}`).digest().subarray(0, 8).toString('hex');
}

/** Anchor program: discriminator hex -> action. */
function anchor(groups: Groups): ReadonlyMap<string, InstructionAction> {
  const map = new Map<string, InstructionAction>();
  for (const [kind, names] of Object.entries(groups) as [ActionKind, readonly string[]][]) {
    for (const name of names) map.set(anchorDiscriminator(name), { name, kind });
  }
  return map;
}

/** Native program: instruction index -> [name, kind]. */
type Indexed = Readonly<Record<number, readonly [string, ActionKind]>>;

interface NativeSpec {
  /** Where the index sits and how wide it is: u8 at 0 (most), u32 LE at 0 (System, Stake), u32 LE at 1 (Serum: version byte first). */
  readonly at: 0 | 1;
  readonly width: 1 | 4;
  readonly index: Indexed;
}

// ---- Anchor programs (IDL instruction names) ---------------------------------------------------

const RAYDIUM_CPMM = anchor({
  pool_create: ['initialize', 'initialize_with_permission'],
  liquidity_add: ['deposit'],
  liquidity_remove: ['withdraw'],
  swap: ['swap_base_input', 'swap_base_output'],
  fee_claim: ['collect_protocol_fee', 'collect_fund_fee', 'collect_creator_fee'],
});

const RAYDIUM_CLMM = anchor({
  pool_create: ['create_pool'],
  liquidity_add: ['open_position', 'open_position_v2', 'open_position_with_token22_nft', 'increase_liquidity', 'increase_liquidity_v2'],
  liquidity_remove: ['decrease_liquidity', 'decrease_liquidity_v2'],
  swap: ['swap', 'swap_v2', 'swap_router_base_in'],
  fee_claim: ['collect_remaining_rewards', 'collect_protocol_fee', 'collect_fund_fee'],
  account_management: ['close_position', 'update_reward_infos'],
});

const RAYDIUM_LAUNCHLAB = anchor({
  pool_create: ['initialize', 'initialize_v2', 'initialize_with_token_2022', 'migrate_to_amm', 'migrate_to_cpswap'],
  swap: ['buy_exact_in', 'buy_exact_out', 'sell_exact_in', 'sell_exact_out'],
  fee_claim: ['claim_platform_fee', 'claim_vested_token', 'claim_creator_fee'],
});

const ORCA_WHIRLPOOL = anchor({
  pool_create: ['initialize_pool', 'initialize_pool_v2', 'initialize_pool_with_adaptive_fee'],
  liquidity_add: ['increase_liquidity', 'increase_liquidity_v2', 'increase_liquidity_by_token_amounts_v2'],
  liquidity_remove: ['decrease_liquidity', 'decrease_liquidity_v2'],
  swap: ['swap', 'swap_v2', 'two_hop_swap', 'two_hop_swap_v2'],
  fee_claim: ['collect_fees', 'collect_fees_v2', 'collect_reward', 'collect_reward_v2', 'collect_protocol_fees', 'collect_protocol_fees_v2'],
  account_management: [
    'open_position',
    'open_position_with_metadata',
    'open_position_with_token_extensions',
    'close_position',
    'close_position_with_token_extensions',
    'initialize_tick_array',
    'initialize_position_bundle',
    'initialize_position_bundle_with_metadata',
    'open_bundled_position',
    'close_bundled_position',
    'delete_position_bundle',
    // accrues a position's fees and rewards into the position account; moves no tokens
    'update_fees_and_rewards',
  ],
});

const METEORA_DLMM = anchor({
  pool_create: [
    'initialize_lb_pair',
    'initialize_lb_pair2',
    'initialize_permission_lb_pair',
    'initialize_customizable_permissionless_lb_pair',
    'initialize_customizable_permissionless_lb_pair2',
  ],
  liquidity_add: [
    'add_liquidity',
    'add_liquidity2',
    'add_liquidity_by_weight',
    'add_liquidity_by_strategy',
    'add_liquidity_by_strategy2',
    'add_liquidity_by_strategy_one_side',
    'add_liquidity_one_side',
    'add_liquidity_one_side_precise',
    'add_liquidity_one_side_precise2',
  ],
  liquidity_remove: ['remove_liquidity', 'remove_liquidity2', 'remove_liquidity_by_range', 'remove_liquidity_by_range2', 'remove_all_liquidity'],
  swap: ['swap', 'swap2', 'swap_exact_out', 'swap_exact_out2', 'swap_with_price_impact', 'swap_with_price_impact2'],
  fee_claim: ['claim_fee', 'claim_fee2', 'claim_reward', 'claim_reward2'],
  account_management: [
    'initialize_position',
    'initialize_position_pda',
    'initialize_position_by_operator',
    'close_position',
    'close_position2',
    'close_position_if_empty',
    'initialize_bin_array',
    'initialize_bin_array_bitmap_extension',
    'update_fees_and_rewards',
    'migrate_position',
    'migrate_bin_array',
  ],
});

const METEORA_DAMM_V1 = anchor({
  pool_create: [
    'initialize_permissionless_pool',
    'initialize_permissionless_pool_with_fee_tier',
    'initialize_permissionless_constant_product_pool_with_config',
    'initialize_permissionless_constant_product_pool_with_config2',
    'initialize_customizable_permissionless_constant_product_pool',
  ],
  liquidity_add: ['add_balance_liquidity', 'add_imbalance_liquidity', 'bootstrap_liquidity'],
  liquidity_remove: ['remove_balance_liquidity', 'remove_liquidity_single_side'],
  swap: ['swap'],
});

const METEORA_DAMM_V2 = anchor({
  pool_create: ['initialize_pool', 'initialize_pool_with_dynamic_config', 'initialize_customizable_pool'],
  liquidity_add: ['add_liquidity'],
  liquidity_remove: ['remove_liquidity', 'remove_all_liquidity'],
  swap: ['swap', 'swap2'],
  fee_claim: ['claim_position_fee', 'claim_reward'],
  account_management: ['create_position', 'close_position'],
});

const METEORA_DBC = anchor({
  pool_create: ['initialize_virtual_pool_with_spl_token', 'initialize_virtual_pool_with_token2022', 'migrate_meteora_damm', 'migration_damm_v2'],
  swap: ['swap', 'swap2'],
  fee_claim: ['claim_creator_trading_fee', 'claim_trading_fee', 'partner_withdraw_surplus', 'creator_withdraw_surplus'],
});

const PUMP_FUN = anchor({
  pool_create: ['create', 'create_v2', 'migrate'],
  swap: ['buy', 'sell', 'buy_exact_sol_in'],
  fee_claim: ['collect_creator_fee'],
  account_management: ['extend_account'],
});

const PUMP_SWAP = anchor({
  pool_create: ['create_pool'],
  liquidity_add: ['deposit'],
  liquidity_remove: ['withdraw'],
  swap: ['buy', 'sell', 'buy_exact_quote_in'],
  fee_claim: ['collect_coin_creator_fee'],
  account_management: ['extend_account'],
});

const MOONSHOT = anchor({ pool_create: ['token_mint', 'migrate_funds'], swap: ['buy', 'sell'] });

const LIFINITY_V2 = anchor({
  liquidity_add: ['deposit_all_token_types'],
  liquidity_remove: ['withdraw_all_token_types'],
  swap: ['swap'],
});

const JUPITER_V6 = anchor({
  swap: [
    'route',
    'shared_accounts_route',
    'exact_out_route',
    'shared_accounts_exact_out_route',
    'route_with_token_ledger',
    'shared_accounts_route_with_token_ledger',
    'route_v2',
    'shared_accounts_route_v2',
    'exact_out_route_v2',
    'shared_accounts_exact_out_route_v2',
  ],
  fee_claim: ['claim', 'claim_token'],
  account_management: ['create_token_account', 'create_token_ledger', 'set_token_ledger', 'create_open_orders'],
});

const JUPITER_V4 = anchor({ swap: ['route', 'route_with_token_ledger'] });

const JUPITER_DCA = anchor({
  order_place: ['open_dca', 'open_dca_v2', 'deposit'],
  order_fill: ['initiate_flash_fill', 'fulfill_flash_fill', 'initiate_dlmm_fill', 'fulfill_dlmm_fill'],
  order_cancel: ['close_dca', 'end_and_close', 'withdraw'],
  fee_claim: ['withdraw_fees'],
});

const JUPITER_LIMIT = anchor({
  order_place: ['initialize_order'],
  order_fill: ['fill_order', 'pre_flash_fill_order', 'flash_fill_order'],
  order_cancel: ['cancel_order', 'cancel_expired_order'],
  fee_claim: ['withdraw_fee'],
});

const OPENBOOK_V2 = anchor({
  pool_create: ['create_market'],
  order_place: ['place_order', 'place_orders', 'place_order_pegged', 'cancel_all_and_place_orders', 'edit_order', 'edit_order_pegged'],
  swap: ['place_take_order'],
  order_cancel: ['cancel_order', 'cancel_order_by_client_order_id', 'cancel_all_orders'],
  account_management: ['settle_funds', 'create_open_orders_account', 'create_open_orders_indexer', 'close_open_orders_account', 'deposit'],
});

const KAMINO_LENDING = anchor({
  lending_deposit: [
    'deposit_reserve_liquidity',
    'deposit_obligation_collateral',
    'deposit_obligation_collateral_v2',
    'deposit_reserve_liquidity_and_obligation_collateral',
    'deposit_reserve_liquidity_and_obligation_collateral_v2',
  ],
  lending_withdraw: [
    'redeem_reserve_collateral',
    'withdraw_obligation_collateral',
    'withdraw_obligation_collateral_v2',
    'withdraw_obligation_collateral_and_redeem_reserve_collateral',
    'withdraw_obligation_collateral_and_redeem_reserve_collateral_v2',
  ],
  lending_borrow: ['borrow_obligation_liquidity', 'borrow_obligation_liquidity_v2'],
  lending_repay: ['repay_obligation_liquidity', 'repay_obligation_liquidity_v2', 'repay_and_withdraw_and_redeem'],
  liquidation: ['liquidate_obligation_and_redeem_reserve_collateral', 'liquidate_obligation_and_redeem_reserve_collateral_v2'],
  account_management: ['init_obligation', 'init_user_metadata', 'refresh_reserve', 'refresh_obligation', 'refresh_obligation_farms_for_reserve'],
});

const MARGINFI = anchor({
  lending_deposit: ['lending_account_deposit'],
  lending_withdraw: ['lending_account_withdraw'],
  lending_borrow: ['lending_account_borrow'],
  lending_repay: ['lending_account_repay'],
  liquidation: ['lending_account_liquidate'],
  account_management: ['marginfi_account_initialize', 'lending_account_close_balance', 'lending_account_start_flashloan', 'lending_account_end_flashloan'],
});

const SQUADS_V4 = anchor({
  multisig_execute: ['vault_transaction_execute', 'config_transaction_execute', 'batch_execute_transaction'],
  multisig_propose: [
    'vault_transaction_create',
    'config_transaction_create',
    'batch_create',
    'batch_add_transaction',
    'proposal_create',
    'proposal_activate',
    'proposal_approve',
    'proposal_reject',
    'proposal_cancel',
  ],
  account_management: ['multisig_create', 'multisig_create_v2'],
});

const MAGIC_EDEN_V2 = anchor({
  nft_sale: ['execute_sale', 'execute_sale_v2', 'mip1_execute_sale_v2', 'ocp_execute_sale_v2'],
  order_place: ['sell', 'buy', 'buy_v2', 'mip1_sell', 'ocp_sell'],
  order_cancel: ['cancel_sell', 'cancel_buy', 'mip1_cancel_sell', 'ocp_cancel_sell'],
  account_management: ['deposit', 'withdraw'],
});

const TENSOR_MARKETPLACE = anchor({
  nft_sale: ['buy', 'buy_core', 'buy_t22', 'buy_spl'],
  order_place: ['list', 'list_core', 'list_t22', 'bid'],
  order_cancel: ['delist', 'delist_core', 'delist_t22', 'cancel_bid'],
});

// Every instruction of Bubblegum's published IDL (metaplex-foundation/mpl-bubblegum idls/bubblegum.json 0.12.0,
// names in snake_case; bubblegum.ts reads their accounts and arguments).
const BUBBLEGUM = anchor({
  nft_mint: ['mint_v1', 'mint_to_collection_v1', 'mint_v2'],
  nft_transfer: ['transfer', 'transfer_v2'],
  burn: ['burn', 'burn_v2'],
  freeze: ['freeze_v2', 'delegate_and_freeze_v2'],
  thaw: ['thaw_v2', 'thaw_and_revoke_v2'],
  account_management: [
    'create_tree',
    'create_tree_v2',
    'close_tree_v2',
    'collect_v2',
    'set_tree_delegate',
    'set_decompressable_state',
    'set_decompressible_state',
    'verify_creator',
    'verify_creator_v2',
    'unverify_creator',
    'unverify_creator_v2',
    'verify_collection',
    'unverify_collection',
    'set_and_verify_collection',
    'set_collection_v2',
    'set_non_transferable_v2',
    'update_metadata',
    'update_metadata_v2',
    'update_asset_data_v2',
    'delegate',
    'delegate_v2',
    'redeem',
    'cancel_redeem',
    'decompress_v1',
    'compress',
  ],
});

// metaplex-foundation/metaplex-program-library auction-house/program/src/lib.rs (#[program] fns).
const AUCTION_HOUSE = anchor({
  nft_sale: ['execute_sale', 'execute_partial_sale', 'auctioneer_execute_sale', 'auctioneer_execute_partial_sale', 'execute_sale_remaining_accounts'],
  order_place: ['buy', 'auctioneer_buy', 'public_buy', 'auctioneer_public_buy', 'sell', 'auctioneer_sell', 'sell_remaining_accounts'],
  order_cancel: ['cancel', 'auctioneer_cancel', 'cancel_remaining_accounts'],
  fee_claim: ['withdraw_from_fee', 'withdraw_from_treasury'],
  account_management: [
    'create_auction_house',
    'update_auction_house',
    // escrow: the bidder's funds parked for (or taken back from) its bids
    'deposit',
    'auctioneer_deposit',
    'withdraw',
    'auctioneer_withdraw',
    'close_escrow_account',
    'delegate_auctioneer',
    'update_auctioneer',
    'print_listing_receipt',
    'cancel_listing_receipt',
    'print_bid_receipt',
    'cancel_bid_receipt',
    'print_purchase_receipt',
  ],
});

// metaplex-program-library candy-machine/program/src/lib.rs (Candy Machine v2).
const CANDY_MACHINE_V2 = anchor({
  nft_mint: ['mint_nft'],
  thaw: ['thaw_nft'],
  fee_claim: ['withdraw_funds'],
  account_management: [
    'initialize_candy_machine',
    'update_candy_machine',
    'update_authority',
    'add_config_lines',
    'set_collection',
    'remove_collection',
    'set_collection_during_mint',
    'set_freeze',
    'remove_freeze',
    'unlock_funds',
  ],
});

// metaplex-program-library candy-machine-core/program/src/lib.rs (Candy Machine Core, v3).
const CANDY_MACHINE_V3 = anchor({
  nft_mint: ['mint', 'mint_v2'],
  account_management: [
    'initialize',
    'initialize_v2',
    'add_config_lines',
    'set_authority',
    'set_collection',
    'set_collection_v2',
    'set_mint_authority',
    'set_token_standard',
    'update',
    // closes the candy machine, rent back to its authority
    'withdraw',
  ],
});

// ---- native programs (own instruction index) ---------------------------------------------------

const SYSTEM: NativeSpec = {
  at: 0,
  width: 4,
  index: {
    0: ['create_account', 'account_management'],
    1: ['assign', 'account_management'],
    2: ['transfer', 'transfer'],
    3: ['create_account_with_seed', 'account_management'],
    4: ['advance_nonce_account', 'account_management'],
    5: ['withdraw_nonce_account', 'account_management'],
    6: ['initialize_nonce_account', 'account_management'],
    7: ['authorize_nonce_account', 'account_management'],
    8: ['allocate', 'account_management'],
    9: ['allocate_with_seed', 'account_management'],
    10: ['assign_with_seed', 'account_management'],
    11: ['transfer_with_seed', 'transfer'],
    12: ['upgrade_nonce_account', 'account_management'],
  },
};

const TOKEN_INDEX: Indexed = {
  0: ['initialize_mint', 'account_management'],
  1: ['initialize_account', 'account_management'],
  3: ['transfer', 'transfer'],
  4: ['approve', 'account_management'],
  5: ['revoke', 'account_management'],
  6: ['set_authority', 'account_management'],
  7: ['mint_to', 'mint'],
  8: ['burn', 'burn'],
  9: ['close_account', 'account_management'],
  10: ['freeze_account', 'freeze'],
  11: ['thaw_account', 'thaw'],
  12: ['transfer_checked', 'transfer'],
  13: ['approve_checked', 'account_management'],
  14: ['mint_to_checked', 'mint'],
  15: ['burn_checked', 'burn'],
  16: ['initialize_account2', 'account_management'],
  17: ['sync_native', 'account_management'],
  18: ['initialize_account3', 'account_management'],
  20: ['initialize_mint2', 'account_management'],
};

const STAKE: NativeSpec = {
  at: 0,
  width: 4,
  index: {
    0: ['initialize', 'account_management'],
    1: ['authorize', 'account_management'],
    2: ['delegate_stake', 'stake'],
    3: ['split', 'account_management'],
    4: ['withdraw', 'unstake'],
    5: ['deactivate', 'unstake'],
    7: ['merge', 'account_management'],
    9: ['initialize_checked', 'account_management'],
    10: ['authorize_checked', 'account_management'],
    16: ['move_stake', 'account_management'],
    17: ['move_lamports', 'account_management'],
  },
};

// raydium-io/raydium-amm program/src/instruction.rs (AmmInstruction, tag = first byte).
const RAYDIUM_AMM_V4: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    0: ['initialize', 'pool_create'],
    1: ['initialize2', 'pool_create'],
    3: ['deposit', 'liquidity_add'],
    4: ['withdraw', 'liquidity_remove'],
    9: ['swap_base_in', 'swap'],
    10: ['pre_initialize', 'pool_create'],
    11: ['swap_base_out', 'swap'],
    16: ['swap_base_in_v2', 'swap'],
    17: ['swap_base_out_v2', 'swap'],
  },
};

// metaplex-foundation/mpl-token-metadata MetadataInstruction (Shank, tag = first byte).
const TOKEN_METADATA: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    11: ['mint_new_edition_from_master_edition_via_token', 'nft_mint'],
    13: ['mint_new_edition_from_master_edition_via_vault_proxy', 'nft_mint'],
    17: ['create_master_edition_v3', 'account_management'],
    26: ['freeze_delegated_account', 'freeze'],
    27: ['thaw_delegated_account', 'thaw'],
    29: ['burn_nft', 'burn'],
    33: ['create_metadata_account_v3', 'account_management'],
    37: ['burn_edition_nft', 'burn'],
    41: ['burn', 'burn'],
    42: ['create', 'account_management'],
    43: ['mint', 'nft_mint'],
    49: ['transfer', 'nft_transfer'],
    50: ['update', 'account_management'],
    55: ['print', 'nft_mint'],
  },
};

// solendprotocol/solana-program-library token-lending LendingInstruction (tag = first byte).
const SOLEND: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    3: ['refresh_reserve', 'account_management'],
    4: ['deposit_reserve_liquidity', 'lending_deposit'],
    5: ['redeem_reserve_collateral', 'lending_withdraw'],
    6: ['init_obligation', 'account_management'],
    7: ['refresh_obligation', 'account_management'],
    8: ['deposit_obligation_collateral', 'lending_deposit'],
    9: ['withdraw_obligation_collateral', 'lending_withdraw'],
    10: ['borrow_obligation_liquidity', 'lending_borrow'],
    11: ['repay_obligation_liquidity', 'lending_repay'],
    12: ['liquidate_obligation', 'liquidation'],
    14: ['deposit_reserve_liquidity_and_obligation_collateral', 'lending_deposit'],
    15: ['withdraw_obligation_collateral_and_redeem_reserve_collateral', 'lending_withdraw'],
    17: ['liquidate_obligation_and_redeem_reserve_collateral', 'liquidation'],
  },
};

// Ellipsis-Labs/phoenix-v1 src/program/instruction.rs (PhoenixInstruction, tag = first byte).
const PHOENIX: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    0: ['swap', 'swap'],
    1: ['swap_with_free_funds', 'swap'],
    2: ['place_limit_order', 'order_place'],
    3: ['place_limit_order_with_free_funds', 'order_place'],
    4: ['reduce_order', 'order_cancel'],
    5: ['reduce_order_with_free_funds', 'order_cancel'],
    6: ['cancel_all_orders', 'order_cancel'],
    7: ['cancel_all_orders_with_free_funds', 'order_cancel'],
    8: ['cancel_up_to', 'order_cancel'],
    9: ['cancel_up_to_with_free_funds', 'order_cancel'],
    10: ['cancel_multiple_orders_by_id', 'order_cancel'],
    11: ['cancel_multiple_orders_by_id_with_free_funds', 'order_cancel'],
    12: ['withdraw_funds', 'account_management'],
    13: ['deposit_funds', 'account_management'],
    16: ['place_multiple_post_only_orders', 'order_place'],
    17: ['place_multiple_post_only_orders_with_free_funds', 'order_place'],
  },
};

// openbook-dex/program dex/src/instruction.rs (MarketInstruction: version byte 0, then u32 LE tag).
const SERUM: NativeSpec = {
  at: 1,
  width: 4,
  index: {
    0: ['initialize_market', 'pool_create'],
    1: ['new_order', 'order_place'],
    4: ['cancel_order', 'order_cancel'],
    5: ['settle_funds', 'account_management'],
    6: ['cancel_order_by_client_id', 'order_cancel'],
    10: ['new_order_v3', 'order_place'],
    11: ['cancel_order_v2', 'order_cancel'],
    12: ['cancel_order_by_client_id_v2', 'order_cancel'],
    14: ['close_open_orders', 'account_management'],
    15: ['init_open_orders', 'account_management'],
    18: ['send_take', 'swap'],
  },
};

// solana-program-library token-swap program/src/instruction.rs (SwapInstruction, tag = first byte), also Orca's
// two deployments of it.
const TOKEN_SWAP: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    0: ['initialize', 'pool_create'],
    1: ['swap', 'swap'],
    2: ['deposit_all_token_types', 'liquidity_add'],
    3: ['withdraw_all_token_types', 'liquidity_remove'],
    4: ['deposit_single_token_type_exact_amount_in', 'liquidity_add'],
    5: ['withdraw_single_token_type_exact_amount_out', 'liquidity_remove'],
  },
};

// Mythic-Project/spl-governance governance/program/src/instruction.rs (GovernanceInstruction, Borsh: tag = first byte).
const SPL_GOVERNANCE: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    0: ['create_realm', 'account_management'],
    1: ['deposit_governing_tokens', 'governance_deposit'],
    2: ['withdraw_governing_tokens', 'governance_withdraw'],
    3: ['set_governance_delegate', 'account_management'],
    4: ['create_governance', 'account_management'],
    5: ['create_program_governance', 'account_management'],
    6: ['create_proposal', 'governance_proposal'],
    7: ['add_signatory', 'governance_proposal'],
    8: ['remove_signatory', 'governance_proposal'],
    9: ['insert_transaction', 'governance_proposal'],
    10: ['remove_transaction', 'governance_proposal'],
    11: ['cancel_proposal', 'governance_proposal'],
    12: ['sign_off_proposal', 'governance_proposal'],
    13: ['cast_vote', 'governance_vote'],
    14: ['finalize_vote', 'governance_vote'],
    15: ['relinquish_vote', 'governance_vote'],
    16: ['execute_transaction', 'governance_execute'],
    17: ['create_mint_governance', 'account_management'],
    18: ['create_token_governance', 'account_management'],
    19: ['set_governance_config', 'account_management'],
    20: ['flag_transaction_error', 'governance_proposal'],
    21: ['set_realm_authority', 'account_management'],
    22: ['set_realm_config', 'account_management'],
    23: ['create_token_owner_record', 'account_management'],
    24: ['update_program_metadata', 'account_management'],
    25: ['create_native_treasury', 'account_management'],
    26: ['revoke_governing_tokens', 'governance_withdraw'],
    27: ['refund_proposal_deposit', 'governance_proposal'],
    28: ['complete_proposal', 'governance_proposal'],
    29: ['create_transaction_buffer', 'governance_proposal'],
    30: ['extend_transaction_buffer', 'governance_proposal'],
    31: ['close_transaction_buffer', 'governance_proposal'],
    32: ['insert_versioned_transaction_from_buffer', 'governance_proposal'],
    33: ['insert_versioned_transaction', 'governance_proposal'],
    34: ['execute_versioned_transaction', 'governance_execute'],
    35: ['remove_versioned_transaction', 'governance_proposal'],
  },
};

// metaplex-program-library auction/program/src/instruction.rs (AuctionInstruction, Borsh: tag = first byte).
const METAPLEX_AUCTION: NativeSpec = {
  at: 0,
  width: 1,
  index: {
    0: ['cancel_bid', 'order_cancel'],
    1: ['create_auction', 'order_place'],
    2: ['claim_bid', 'nft_sale'],
    3: ['end_auction', 'account_management'],
    4: ['start_auction', 'account_management'],
    5: ['set_authority', 'account_management'],
    6: ['place_bid', 'order_place'],
    7: ['create_auction_v2', 'order_place'],
  },
};

const ANCHOR_PROGRAMS: ReadonlyMap<string, ReadonlyMap<string, InstructionAction>> = new Map([
  ['CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', RAYDIUM_CPMM],
  ['CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK', RAYDIUM_CLMM],
  ['LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj', RAYDIUM_LAUNCHLAB],
  ['whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', ORCA_WHIRLPOOL],
  ['iwhrLHdsgrvmnwU8GF2FSmyabSMjfHwFGJAX2ufJ3ZN', ORCA_WHIRLPOOL],
  ['LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', METEORA_DLMM],
  ['Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB', METEORA_DAMM_V1],
  ['cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG', METEORA_DAMM_V2],
  ['dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN', METEORA_DBC],
  ['6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', PUMP_FUN],
  ['pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA', PUMP_SWAP],
  ['MoonCVVNZFSYkqNXP6bxHLPL6QQJiMagDL3qcqUQTrG', MOONSHOT],
  ['2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c', LIFINITY_V2],
  ['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', JUPITER_V6],
  ['JUP4Fb2cqiRUcaTHdrPC8h2gNsA2ETXiPDD33WcGuJB', JUPITER_V4],
  ['DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M', JUPITER_DCA],
  ['j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X', JUPITER_LIMIT],
  ['jupoNjAxXgZ4rjzxzPMP4oxduvQsQtZzyknqvzYNrNu', JUPITER_LIMIT],
  ['opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb', OPENBOOK_V2],
  [KAMINO_LENDING_PROGRAM, KAMINO_LENDING],
  [MARGINFI_PROGRAM, MARGINFI],
  [SQUADS_V4_PROGRAM, SQUADS_V4],
  [MAGIC_EDEN_V2_PROGRAM, MAGIC_EDEN_V2],
  [TENSOR_MARKETPLACE_PROGRAM, TENSOR_MARKETPLACE],
  [BUBBLEGUM_PROGRAM, BUBBLEGUM],
  [AUCTION_HOUSE_PROGRAM, AUCTION_HOUSE],
  [CANDY_MACHINE_V2_PROGRAM, CANDY_MACHINE_V2],
  [CANDY_MACHINE_V3_PROGRAM, CANDY_MACHINE_V3],
]);

const NATIVE_PROGRAMS: ReadonlyMap<string, NativeSpec> = new Map([
  [SYSTEM_PROGRAM, SYSTEM],
  [TOKEN_PROGRAM, { at: 0, width: 1, index: TOKEN_INDEX }],
  [TOKEN_2022_PROGRAM, { at: 0, width: 1, index: TOKEN_INDEX }],
  [STAKE_PROGRAM, STAKE],
  ['675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', RAYDIUM_AMM_V4],
  [TOKEN_METADATA_PROGRAM, TOKEN_METADATA],
  [SOLEND_PROGRAM, SOLEND],
  ['PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY', PHOENIX],
  ['srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX', SERUM],
  ['9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', SERUM],
  [SPL_GOVERNANCE_PROGRAM, SPL_GOVERNANCE],
  [METAPLEX_AUCTION_PROGRAM, METAPLEX_AUCTION],
  ['SwaPpA9LAaLfeLi3a68M4DjnLqgtticKg6CnyNwgAC8', TOKEN_SWAP],
  ['DjVE6JNiYqPL2QXyCUUh8rNjHrbz9hXHNYt99MQ59qw1', TOKEN_SWAP],
  ['9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP', TOKEN_SWAP],
]);

/** Programs whose instructions do nothing a reader needs to hear about (fee settings, memos). */
const SILENT_PROGRAMS: ReadonlySet<string> = new Set([COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM, MEMO_V1_PROGRAM]);

/** The node's parsed instruction types (jsonParsed) -> kind, for System/Token/ATA/Stake/Vote. */
const PARSED_KINDS: Readonly<Record<string, ActionKind>> = {
  transfer: 'transfer',
  transferWithSeed: 'transfer',
  transferChecked: 'transfer',
  transferCheckedWithFee: 'transfer',
  mintTo: 'mint',
  mintToChecked: 'mint',
  burn: 'burn',
  burnChecked: 'burn',
  freezeAccount: 'freeze',
  thawAccount: 'thaw',
  delegate: 'stake',
  deactivate: 'unstake',
  withdraw: 'unstake',
};

function indexAt(data: Uint8Array, spec: NativeSpec): number | null {
  if (data.length < spec.at + spec.width) return null;
  if (spec.width === 1) return data[spec.at]!;
  const i = spec.at;
  return data[i]! + data[i + 1]! * 0x100 + data[i + 2]! * 0x10000 + data[i + 3]! * 0x1000000;
}

function parsedAction(ix: NormalizedInstruction): InstructionAction | null {
  const type = ix.parsed?.type;
  if (ix.programId === VOTE_PROGRAM) return { name: type ?? 'vote', kind: 'vote' };
  if (!type) return null;
  const kind = PARSED_KINDS[type];
  // "withdraw"/"delegate" mean stake moves only for the Stake program
  if (kind && (kind !== 'stake' && kind !== 'unstake' ? true : ix.programId === STAKE_PROGRAM)) return { name: type, kind };
  return { name: type, kind: 'account_management' };
}

/**
 * What one instruction does, or null when its program is not one the decoder knows (or is a silent
 * one: compute budget, memo). A known program with an unrecognized discriminator is `unknown`.
 */
export function identifyInstruction(ix: NormalizedInstruction): InstructionAction | null {
  if (SILENT_PROGRAMS.has(ix.programId)) return null;
  if (ix.parsed) return parsedAction(ix);
  if (ix.programId === VOTE_PROGRAM) return { name: 'vote', kind: 'vote' };
  if (ix.programId === ASSOCIATED_TOKEN_PROGRAM) {
    const tag = ix.data?.[0] ?? 0;
    return { name: tag === 1 ? 'create_idempotent' : tag === 2 ? 'recover_nested' : 'create', kind: 'account_management' };
  }
  const data = ix.data ?? new Uint8Array(0);
  const anchorTable = ANCHOR_PROGRAMS.get(ix.programId);
  if (anchorTable) {
    const hit = data.length >= 8 ? anchorTable.get(Buffer.from(data.subarray(0, 8)).toString('hex')) : undefined;
    return hit ?? { name: 'unknown', kind: 'unknown' };
  }
  const native = NATIVE_PROGRAMS.get(ix.programId);
  if (native) {
    // Token-2022 TransferFeeExtension (26) / TransferCheckedWithFee (1)
    if (ix.programId === TOKEN_2022_PROGRAM && data[0] === 26 && data[1] === 1) return { name: 'transfer_checked_with_fee', kind: 'transfer' };
    const index = indexAt(data, native);
    const hit = index === null ? undefined : native.index[index];
    return hit ? { name: hit[0], kind: hit[1] } : { name: 'unknown', kind: 'unknown' };
  }
  return null;
}

/** Programs the decoder can name instructions of (for tests and documentation). */
export function decodableProgramIds(): string[] {
  return [...ANCHOR_PROGRAMS.keys(), ...NATIVE_PROGRAMS.keys(), ASSOCIATED_TOKEN_PROGRAM, VOTE_PROGRAM];
}

/** A transaction's kind: the most significant of its actions' kinds ('unknown' when it has none). */
export function dominantKind(kinds: Iterable<ActionKind>): ActionKind {
  let best: number | null = null;
  for (const k of kinds) best = Math.min(best ?? Number.POSITIVE_INFINITY, ACTION_KINDS.indexOf(k));
  return best === null ? 'unknown' : ACTION_KINDS[best]!;
}
