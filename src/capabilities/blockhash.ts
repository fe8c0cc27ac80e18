import { Type as t } from '@sinclair/typebox';
import { andThen } from '../maybe.ts';
import { defineCapability } from './capability.ts';
import { u64 } from './output.ts';
import { network } from './params.ts';

export const blockhash = defineCapability({
  name: 'blockhash',
  tool: 'get_chain_blockhash',
  method: 'GET',
  title: 'Latest finalized blockhash',
  summary:
    "The latest finalized blockhash and its last valid block height, for building a transaction.",
  description:
    'Latest finalized blockhash and the last block height at which a transaction using it is still valid. Use it as the recent blockhash when building a transaction.',
  paid: false,
  params: { network: network() },
  output: t.Object({
    blockhash: t.String({ description: 'Recent blockhash (base58, 32 bytes)', minLength: 32, maxLength: 44 }),
    lastValidBlockHeight: u64('Last block height at which a transaction using this blockhash is still accepted'),
    slot: u64('Slot the blockhash was read at'),
  }),
  run(ctx, { network }) {
    const latest = ctx
      .rpc(network)
      .call<{ context: { slot: number }; value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [{ commitment: 'finalized' }], {
        // A finalized blockhash stays usable for ~60 s; one second of reuse spares the node bursts,
        // and for two more seconds the refresh happens behind the answer, so no caller waits on it.
        cacheMs: 1000,
        staleMs: 2000,
      });
    return andThen(latest, (res) => ({ blockhash: res.value.blockhash, lastValidBlockHeight: res.value.lastValidBlockHeight, slot: res.context.slot }));
  },
});
