import { describeTransaction } from '../chain/tx/describe.ts';
import { notFound } from '../errors.ts';
import { defineCapability } from './capability.ts';
import { EXAMPLE_SIGNATURE } from './examples.ts';
import { network, signature } from './params.ts';

const FETCH = { encoding: 'json', maxSupportedTransactionVersion: 0 } as const;

export const decodeTx = defineCapability({
  name: 'decode-tx',
  tool: 'decode_tx',
  method: 'GET',
  title: 'Decode a transaction',
  description:
    'Decodes a confirmed transaction into a category (Swap, MemeCoin or Transfer, judged by the program ids it actually invoked), a one-line summary of what moved for the fee payer ("Swapped 1.5 SOL for 212.3 USDC via Jupiter v6"), the venues recognized, slot, fee, time, status, the error of a failed transaction, and its program logs. Use it to understand what a signature did.',
  paid: true,
  params: { signature: signature('Transaction signature (base58)', EXAMPLE_SIGNATURE), network: network() },
  async run(ctx, { signature, network }) {
    const rpc = ctx.rpc(network);
    // A finalized transaction never changes: cache it for good (bounded LRU). A merely confirmed
    // one is fetched fresh, and an absent one is never cached: it may land a moment later.
    const tx =
      (await rpc.call('getTransaction', [signature, { ...FETCH, commitment: 'finalized' }], { cacheMs: Infinity, cacheWhen: (v) => v !== null })) ??
      (await rpc.call('getTransaction', [signature, { ...FETCH, commitment: 'confirmed' }]));
    if (tx === null) throw notFound('Transaction not found or not yet confirmed', { signature });
    return describeTransaction(tx, { signature, network });
  },
});
