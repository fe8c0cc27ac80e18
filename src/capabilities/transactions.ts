import { describeTransactionError } from '../chain/tx/errors.ts';
import { Type as t } from '@sinclair/typebox';
import { defineCapability } from './capability.ts';
import { base58Address, base58Signature, nodeError, nullable, u64 } from './output.ts';
import { EXAMPLE_SIGNATURE, EXAMPLE_WALLET } from './examples.ts';
import { address, integer, network, optionalSignature } from './params.ts';

export interface SignatureInfo {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: unknown;
  memo: string | null;
  confirmationStatus: string | null;
}

/** One getSignaturesForAddress entry as the gateway answers it: the node's fields plus a readable error. */
export function signatureEntry(s: SignatureInfo) {
  return {
    signature: s.signature,
    slot: s.slot,
    blockTime: s.blockTime,
    err: s.err,
    error: describeTransactionError(s.err)?.message ?? null,
    memo: s.memo,
    confirmationStatus: s.confirmationStatus,
  };
}

export const transactions = defineCapability({
  name: 'transactions',
  tool: 'get_recent_transactions',
  method: 'GET',
  title: 'Recent transactions',
  description:
    'Recent transaction signatures involving a wallet, newest first, with slot, block time (Unix seconds), error (null on success), memo and confirmation status. `limit` is 1-100 (default 10); pass `before` (a signature from a previous page) to page further back. Decode any of them with decode_tx.',
  paid: true,
  params: {
    wallet: address('Wallet address (base58)', EXAMPLE_WALLET),
    limit: integer('How many signatures (1-100)', { min: 1, max: 100, default: 10 }),
    before: optionalSignature('Page from this signature backwards (exclusive)', EXAMPLE_SIGNATURE),
    network: network(),
  },
  output: t.Object({
    wallet: base58Address('The wallet asked about'),
    count: t.Integer({ minimum: 0, maximum: 100 }),
    transactions: t.Array(
      t.Object({
        signature: base58Signature('Transaction signature'),
        slot: u64('Slot of the transaction'),
        blockTime: nullable(t.Integer({ description: 'Unix seconds; null when the node has none' })),
        err: nodeError('The node\'s error object; null on success'),
        error: nullable(t.String({ description: 'The error in words; null on success' })),
        memo: nullable(t.String()),
        confirmationStatus: nullable(t.String({ description: 'processed, confirmed or finalized' })),
      }),
      { description: 'Newest first' },
    ),
    nextBefore: nullable(base58Signature('Pass as `before` for the next page; null on the last page')),
  }),
  async run(ctx, { wallet, limit, before, network }) {
    const list = await ctx
      .rpc(network)
      .call<SignatureInfo[]>('getSignaturesForAddress', [wallet, { limit, commitment: 'confirmed', ...(before ? { before } : {}) }]);
    const txs = list.map(signatureEntry);
    return { wallet, count: txs.length, transactions: txs, nextBefore: txs.length === limit ? txs[txs.length - 1]!.signature : null };
  },
});
