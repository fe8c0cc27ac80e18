import { TX_ERROR } from './decode-tx.ts';
import { Type as t } from '@sinclair/typebox';
import { defineCapability } from './capability.ts';
import { DECODED_ITEM, DECODED_LIMIT, HISTORY_TOKEN_ACCOUNTS, TOKEN_ACCOUNTS_ERROR, decodedHistory, historyItem, signatureEntry, type SignatureInfo } from './decoded-history.ts';
import { base58Address, nodeError, base58Signature, nullable, u64 } from './output.ts';
import { EXAMPLE_SIGNATURE, EXAMPLE_WALLET } from './examples.ts';
import { InvalidField, address, flag, integer, network, optionalSignature } from './params.ts';

export { signatureEntry, type SignatureInfo };

export const transactions = defineCapability({
  name: 'transactions',
  tool: 'get_recent_transactions',
  method: 'GET',
  title: 'Recent transactions',
  summary:
    "A wallet's recent signatures, newest first (slot, time, error, memo); `before` pages back. With `decode`, each also says what it did for the wallet and the wallet's exact SOL and token changes.",
  description:
    'Recent transaction signatures involving a wallet, newest first, with slot, block time (Unix seconds), error (null on success), memo and confirmation status. `limit` is 1-100 (default 10); pass `before` (a signature from a previous page) to page further back. Decode any of them with decode_tx. ' +
    `With \`decode\` true (limit 1-${DECODED_LIMIT}), each item also says what it did from the wallet's own side, as decode_tx with \`wallet\` would: summary, kind, category, status, walletChanges (the wallet's exact SOL and token changes), counterparties, fee and feePayer; a transaction the node could not return carries decodeError instead and the rest of the page stands. ` +
    `The decoded history also holds the transactions that named only one of the wallet's token accounts (a token sent to an existing account), from up to ${HISTORY_TOKEN_ACCOUNTS} of its token accounts (those holding tokens first; tokenAccountsSearched says how many), merged newest first; \`tokenAccounts\` false leaves them out.`,
  paid: true,
  params: {
    wallet: address('Wallet address (base58)', EXAMPLE_WALLET),
    limit: integer(`How many signatures (1-100; 1-${DECODED_LIMIT} with decode)`, { min: 1, max: 100, default: 10 }),
    before: optionalSignature('Page from this signature backwards (exclusive)', EXAMPLE_SIGNATURE),
    decode: flag("Decode each transaction from the wallet's side", false),
    tokenAccounts: flag(`With decode: add the transactions that named only one of the wallet's token accounts (up to ${HISTORY_TOKEN_ACCOUNTS})`, true),
    network: network(),
  },
  refine({ decode, limit }) {
    if (decode && limit > DECODED_LIMIT) throw new InvalidField('limit', `with decode, limit must be a whole number from 1 to ${DECODED_LIMIT}`);
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
        error: nullable(TX_ERROR),
        memo: nullable(t.String({ description: "The memos' texts (the node's [length] prefixes taken off), joined by '; '; null without one" })),
        confirmationStatus: nullable(t.String({ description: 'processed, confirmed or finalized' })),
        ...DECODED_ITEM,
      }),
      { description: 'Newest first' },
    ),
    nextBefore: nullable(base58Signature('Pass as `before` for the next page; null on the last page')),
    tokenAccountsHeld: t.Optional(
      nullable(t.Integer({ minimum: 0, description: 'With decode: how many token accounts the wallet holds under both token programs; null when the node could not list them' })),
    ),
    tokenAccountsSearched: t.Optional(
      t.Integer({ minimum: 0, maximum: HISTORY_TOKEN_ACCOUNTS, description: 'With decode: how many of them had their own signatures merged into this page (0 with tokenAccounts false)' }),
    ),
    tokenAccountsError: t.Optional(TOKEN_ACCOUNTS_ERROR),
  }),
  async run(ctx, { wallet, limit, before, decode, tokenAccounts, network }) {
    const rpc = ctx.rpc(network);
    if (decode) {
      const history = await decodedHistory(rpc, { wallet, limit, before, network, tokenAccounts });
      const txs = history.items.map(historyItem);
      return {
        wallet,
        count: txs.length,
        transactions: txs,
        nextBefore: txs.length === limit ? txs[txs.length - 1]!.signature : null,
        tokenAccountsHeld: history.tokenAccountsHeld,
        tokenAccountsSearched: history.tokenAccountsSearched,
        ...(history.tokenAccountsError ? { tokenAccountsError: history.tokenAccountsError } : {}),
      };
    }
    const list = await rpc.call<SignatureInfo[]>('getSignaturesForAddress', [wallet, { limit, commitment: 'confirmed', ...(before ? { before } : {}) }]);
    const txs = list.map(signatureEntry);
    return { wallet, count: txs.length, transactions: txs, nextBefore: txs.length === limit ? txs[txs.length - 1]!.signature : null };
  },
});
