import { Type as t } from '@sinclair/typebox';
import { formatUnits, SOL_DECIMALS } from '../chain/format.ts';
import { big } from '../json.ts';
import { defineCapability } from './capability.ts';
import { EXAMPLE_WALLET } from './examples.ts';
import { base58Address, exactDecimal, u64, type RawJsonNumber } from './output.ts';
import { address, network } from './params.ts';

const rawJson = (JSON as unknown as { rawJSON(text: string): RawJsonNumber }).rawJSON;

/** SOL as a JSON number written digit for digit from the lamports (1234567890 -> 1.23456789), never through a float. */
export function lamportsToSol(lamports: bigint): RawJsonNumber {
  return rawJson(formatUnits(lamports, SOL_DECIMALS));
}

export const balance = defineCapability({
  name: 'balance',
  tool: 'get_chain_balance',
  method: 'GET',
  title: 'Native SOL balance',
  summary:
    "SOL balance of a wallet (lamports and SOL). Use it to check a wallet's funds.",
  description:
    'Native SOL balance of a wallet address, in lamports (integer) and SOL. Use it to check whether a wallet is funded before building a transaction.',
  paid: false,
  params: {
    wallet: address('Wallet address (base58)', EXAMPLE_WALLET),
    network: network(),
  },
  output: t.Object({
    wallet: base58Address('The wallet asked about'),
    balance_lamports: u64('Balance in lamports'),
    balance_sol: exactDecimal('Balance in SOL, exactly balance_lamports / 10^9'),
    slot: u64('Slot the balance was read at'),
  }),
  async run(ctx, { wallet, network }) {
    const res = await ctx.rpc(network).call<{ context: { slot: number }; value: number | bigint }>('getBalance', [wallet, { commitment: 'confirmed' }]);
    const lamports = big(res.value);
    return { wallet, balance_lamports: res.value, balance_sol: lamportsToSol(lamports), slot: res.context.slot };
  },
});
