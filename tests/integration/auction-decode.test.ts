// A bid placed and cancelled on Metaplex Auction House, run by its real binary (tests/fixtures/programs/
// mpl_auction_house.so, from Metaplex's own JS SDK tests) on the sandbox chain, fetched back through the
// sandbox's mainnet-shaped getTransaction and decoded: the cancel is order_cancel, named, with the rent back.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { findAssociatedTokenPda } from '@solana-program/token';
import { address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { describeTransaction, type DecodeTxBody } from '../../src/chain/tx/describe.ts';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { rawResult, signedTransaction } from '../support/sandbox/testing.ts';
import * as ah from '../support/auction-house.ts';

const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
let chain: Sandbox;

beforeAll(async () => {
  chain = await startSandbox();
  chain.svm.addProgramFromFile(ah.AUCTION_HOUSE, join(import.meta.dir, '../fixtures/programs/mpl_auction_house.so'));
});
afterAll(() => chain.stop());

async function execute(signer: KeyPairSigner, ixs: Instruction[]): Promise<DecodeTxBody> {
  const sent = await chain.send(await signedTransaction(chain.url, signer, ixs));
  expect(sent.err).toBeNull();
  const result = await rawResult(chain.url, 'getTransaction', [sent.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
  return describeTransaction(result, { signature: sent.signature, network: 'mainnet-beta' });
}

test('an Auction House bid placed and then cancelled: order_place, then order_cancel with its rent back', async () => {
  const [authority, seller, bidder] = [await chain.newWallet(), await chain.newWallet(), await chain.newWallet()];
  const { ix: createIx, house } = await ah.createAuctionHouse(authority);
  await execute(authority, [createIx]);

  // the NFT: a 0-decimal mint with one token held by the seller, and its metadata account where Token Metadata keeps it
  const mint = await chain.createMint({ authority: chain.payer, decimals: 0 });
  await chain.mintTo(mint, chain.payer, seller.address, 1n);
  const [sellerToken] = await findAssociatedTokenPda({ owner: seller.address, mint, tokenProgram: TOKEN });
  chain.placeAccount(await ah.metadataAddress(mint), { owner: ah.TOKEN_METADATA, data: new Uint8Array(679).fill(4) });

  const price = 1_500_000_000n;
  const { ix: bidIx, tradeState, escrow } = await ah.publicBid(house, bidder, mint, sellerToken, price);
  const bid = await execute(bidder, [bidIx]);
  expect(bid.actions.map((a) => [a.program, a.name, a.kind])).toEqual([['Metaplex Auction House', 'public_buy', 'order_place']]);
  expect(bid.summary).toStartWith('Placed an order on Metaplex Auction House (public_buy): ');
  // the bidder's SOL went into the escrow (the bid) and the trade state (its rent), as LiteSVM holds them
  const parked = (chain.svm.getBalance(escrow) ?? 0n) + (chain.svm.getBalance(tradeState) ?? 0n);
  expect(chain.svm.getBalance(escrow)! >= price).toBe(true);
  expect(bid.balanceChanges.find((c) => c.asset === 'SOL')?.raw).toBe(`${-parked}`);

  const cancelled = await execute(bidder, [ah.cancelBid(house, bidder, mint, sellerToken, tradeState, price)]);
  expect([cancelled.kind, cancelled.category, cancelled.categoryMatched]).toEqual(['order_cancel', 'Transfer', false]);
  expect(cancelled.actions.map((a) => [a.programId, a.program, a.name, a.kind, a.source])).toEqual([
    [ah.AUCTION_HOUSE, 'Metaplex Auction House', 'cancel', 'order_cancel', 'table'],
  ]);
  expect(cancelled.summary).toMatch(/^Cancelled or closed an order on Metaplex Auction House \(cancel\): got [0-9.]+ SOL rent back from 1 account it closed$/);
});
