import { defineCapability } from './capability.ts';
import { network } from './params.ts';

export const blockhash = defineCapability({
  name: 'blockhash',
  tool: 'get_chain_blockhash',
  method: 'GET',
  title: 'Latest finalized blockhash',
  description:
    'Latest finalized blockhash and the last block height at which a transaction using it is still valid. Use it as the recent blockhash when building a transaction.',
  paid: false,
  params: { network: network() },
  async run(ctx, { network }) {
    const res = await ctx
      .rpc(network)
      .call<{ context: { slot: number }; value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [{ commitment: 'finalized' }], {
        // A finalized blockhash stays usable for ~60 s; one second of reuse spares the node bursts.
        cacheMs: 1000,
      });
    return { blockhash: res.value.blockhash, lastValidBlockHeight: res.value.lastValidBlockHeight, slot: res.context.slot };
  },
});
