// Recorded mainnet instructions (sevenlabs-hq/carbon decoder fixtures, see fixtures/mainnet/SOURCES.md):
// the bytes came from mainnet transactions, the file names are carbon's reading of them. The decoder must
// reach the same instruction name and the kind that name stands for, on every one.
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ActionKind, identifyInstruction } from '../../src/chain/tx/instructions';
import { venueOf } from '../../src/chain/program-ids';

const ROOT = join(import.meta.dir, '../fixtures/mainnet/instructions-carbon');

interface RecordedInstruction {
  readonly program_id: string;
  readonly accounts: readonly { readonly pubkey: string; readonly is_signer: boolean; readonly is_writable: boolean }[];
  readonly data: string;
}

/** Per fixture directory: the program it must be for, and the kind of each recorded instruction. */
const EXPECTED: Record<string, { program: string; venue: string; kinds: Partial<Record<ActionKind, readonly string[]>> }> = {
  'meteora-dlmm': {
    program: 'LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo',
    venue: 'Meteora DLMM',
    kinds: {
      pool_create: [
        'initialize_lb_pair',
        'initialize_lb_pair2',
        'initialize_permission_lb_pair',
        'initialize_customizable_permissionless_lb_pair',
        'initialize_customizable_permissionless_lb_pair2',
      ],
      liquidity_add: [
        'add_liquidity',
        'add_liquidity_by_strategy',
        'add_liquidity_by_strategy_one_side',
        'add_liquidity_by_weight',
        'add_liquidity_one_side',
        'add_liquidity_one_side_precise',
      ],
      liquidity_remove: ['remove_liquidity', 'remove_liquidity2', 'remove_liquidity_by_range', 'remove_liquidity_by_range2', 'remove_all_liquidity'],
      swap: ['swap', 'swap2', 'swap_exact_out', 'swap_exact_out2', 'swap_with_price_impact2'],
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
      // operator and admin settings: named by no table, so they stay `unknown` rather than look like trading
      unknown: [
        'close_preset_parameter',
        'go_to_a_bin',
        'set_activation_point',
        'set_pair_status',
        'set_pair_status_permissionless',
        'set_pre_activation_duration',
        'set_pre_activation_swap_address',
        'update_base_fee_parameters',
      ],
    },
  },
  'orca-whirlpool': {
    program: 'whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc',
    venue: 'Orca Whirlpool',
    kinds: {
      pool_create: ['initialize_pool', 'initialize_pool_v2'],
      liquidity_add: ['increase_liquidity', 'increase_liquidity_v2'],
      liquidity_remove: ['decrease_liquidity', 'decrease_liquidity_v2'],
      swap: ['swap', 'swap_v2', 'two_hop_swap', 'two_hop_swap_v2'],
      fee_claim: ['collect_fees', 'collect_fees_v2', 'collect_reward', 'collect_reward_v2', 'collect_protocol_fees', 'collect_protocol_fees_v2'],
      account_management: [
        'open_position',
        'open_position_with_metadata',
        'close_position',
        'initialize_tick_array',
        'initialize_position_bundle',
        'initialize_position_bundle_with_metadata',
        'open_bundled_position',
        'close_bundled_position',
        'delete_position_bundle',
        'update_fees_and_rewards',
      ],
      unknown: [
        'initialize_config',
        'initialize_config_extension',
        'initialize_fee_tier',
        'initialize_reward_v2',
        'initialize_token_badge',
        'set_collect_protocol_fees_authority',
        'set_reward_emissions_v2',
      ],
    },
  },
  'raydium-clmm': {
    program: 'CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK',
    venue: 'Raydium CLMM',
    kinds: {
      pool_create: ['create_pool'],
      liquidity_add: ['open_position', 'open_position_v2', 'open_position_with_token22_nft', 'increase_liquidity', 'increase_liquidity_v2'],
      liquidity_remove: ['decrease_liquidity', 'decrease_liquidity_v2'],
      swap: ['swap', 'swap_v2', 'swap_router_base_in'],
      fee_claim: ['collect_fund_fee', 'collect_protocol_fee', 'collect_remaining_rewards'],
      account_management: ['close_position', 'update_reward_infos'],
      unknown: ['create_amm_config', 'initialize_reward', 'set_reward_params', 'update_amm_config', 'update_pool_status'],
    },
  },
  moonshot: {
    program: 'MoonCVVNZFSYkqNXP6bxHLPL6QQJiMagDL3qcqUQTrG',
    venue: 'Moonshot',
    kinds: { pool_create: ['token_mint', 'migrate_funds'], swap: ['buy', 'sell'] },
  },
  'lifinity-amm-v2': {
    program: '2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c',
    venue: 'Lifinity v2',
    kinds: { liquidity_add: ['deposit_all_token_types'], liquidity_remove: ['withdraw_all_token_types'], swap: ['swap'] },
  },
  'jupiter-dca': {
    program: 'DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M',
    venue: 'Jupiter DCA',
    kinds: {
      order_place: ['open_dca', 'open_dca_v2'],
      order_fill: ['initiate_flash_fill', 'fulfill_flash_fill'],
      order_cancel: ['close_dca', 'end_and_close'],
      fee_claim: ['withdraw_fees'],
    },
  },
};

const recorded = (dir: string, name: string): RecordedInstruction =>
  JSON.parse(readFileSync(join(ROOT, dir, `${name}_ix.json`), 'utf8')) as RecordedInstruction;

const identify = (r: RecordedInstruction) =>
  identifyInstruction({
    topLevelIndex: 0,
    stackHeight: 1,
    programId: r.program_id,
    accounts: r.accounts.map((a) => a.pubkey),
    data: Uint8Array.from(Buffer.from(r.data, 'hex')),
    parsed: null,
  });

const cases = Object.entries(EXPECTED).flatMap(([dir, e]) =>
  Object.entries(e.kinds).flatMap(([kind, names]) => (names ?? []).map((name) => [dir, name, kind as ActionKind] as const)),
);

test('every recorded instruction file has an expectation, and every expectation a file', () => {
  const onDisk = readdirSync(ROOT).flatMap((dir) => readdirSync(join(ROOT, dir)).map((f) => `${dir}/${f.replace(/_ix\.json$/, '')}`));
  expect(onDisk.sort()).toEqual(cases.map(([dir, name]) => `${dir}/${name}`).sort());
});

describe('recorded mainnet instructions', () => {
  test.each(cases)('%s %s is %s', (dir, name, kind) => {
    const r = recorded(dir, name);
    expect(r.program_id).toBe(EXPECTED[dir]!.program);
    expect(venueOf(r.program_id)?.name).toBe(EXPECTED[dir]!.venue);
    expect(identify(r)).toEqual(kind === 'unknown' ? { name: 'unknown', kind: 'unknown' } : { name, kind });
  });
});

// The liquidity kinds on three concentrated-liquidity AMMs, each backed by mainnet instruction bytes.
test.each(['meteora-dlmm', 'orca-whirlpool', 'raydium-clmm'])('%s: pool creation, deposit and withdrawal are each recorded', (dir) => {
  const seen = new Set(cases.filter(([d]) => d === dir).map(([, name]) => identify(recorded(dir, name))?.kind));
  for (const kind of ['pool_create', 'liquidity_add', 'liquidity_remove'] as const) expect(seen.has(kind)).toBe(true);
});

// A one-byte change to a recorded discriminator must not still read as the same instruction.
test.each(cases.filter(([, , kind]) => kind !== 'unknown'))('%s %s with a corrupted discriminator is not named', (dir, name) => {
  const r = recorded(dir, name);
  const bytes = Buffer.from(r.data, 'hex');
  bytes[0] = bytes[0]! ^ 0xff;
  const hit = identify({ ...r, data: bytes.toString('hex') });
  expect(hit?.name).not.toBe(name);
});
