import { big } from '../json.ts';
import { defineCapability } from './capability.ts';
import { EXAMPLE_WALLET } from './examples.ts';
import { address, network } from './params.ts';

const LAMPORTS_PER_SOL = 1_000_000_000n;

export function lamportsToSol(lamports: bigint): number {
  // Whole and fractional parts separately, so balances beyond 2^53 lamports stay accurate to the lamport's magnitude.
  return Number(lamports / LAMPORTS_PER_SOL) + Number(lamports % LAMPORTS_PER_SOL) / 1e9;
}

export const balance = defineCapability({
  name: 'balance',
  tool: 'get_chain_balance',
  method: 'GET',
  title: 'Native SOL balance',
  description:
    'Native SOL balance of a wallet address, in lamports (integer) and SOL. Use it to check whether a wallet is funded before building a transaction.',
  paid: false,
  params: {
    wallet: address('Wallet address (base58)', EXAMPLE_WALLET),
    network: network(),
  },
  async run(ctx, { wallet, network }) {
    const res = await ctx.rpc(network).call<{ context: { slot: number }; value: number | bigint }>('getBalance', [wallet, { commitment: 'confirmed' }]);
    const lamports = big(res.value);
    return { wallet, balance_lamports: res.value, balance_sol: lamportsToSol(lamports), slot: res.context.slot };
  },
});
