// Well-known programs outside trading, run by their real binaries (tests/fixtures/programs, sources and sha256
// in its SOURCES.md) on the sandbox chain, each transaction fetched back through the sandbox's mainnet-shaped
// getTransaction and decoded by kind, name and summary: SPL Governance v3.1.3 (a realm, a deposit of governing
// tokens, a governance, a proposal and a vote) and Metaplex Auction House (a bid placed, then cancelled).
// No recorded mainnet transaction of either was found in the stored repositories.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { findAssociatedTokenPda } from '@solana-program/token';
import { address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { describeTransaction, type DecodeTxBody } from '../../src/chain/tx/describe.ts';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { rawResult, signedTransaction } from '../support/sandbox/testing.ts';
import * as ah from '../support/auction-house.ts';
import * as gov from '../support/governance.ts';
import { payerChanges } from '../support/decoded.ts';

const PROGRAMS = join(import.meta.dir, '../fixtures/programs');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
let chain: Sandbox;

beforeAll(async () => {
  chain = await startSandbox();
  chain.svm.addProgramFromFile(gov.GOVERNANCE, join(PROGRAMS, 'spl_governance.so'));
  chain.svm.addProgramFromFile(ah.AUCTION_HOUSE, join(PROGRAMS, 'mpl_auction_house.so'));
});
afterAll(() => chain.stop());

async function execute(signer: KeyPairSigner, ixs: Instruction[]): Promise<DecodeTxBody> {
  const sent = await chain.send(await signedTransaction(chain.url, signer, ixs));
  expect(sent.err).toBeNull();
  const result = await rawResult(chain.url, 'getTransaction', [sent.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
  return describeTransaction(result, { signature: sent.signature, network: 'mainnet-beta' });
}

test('a DAO on SPL Governance: deposit, proposal and vote are named and given their kinds', async () => {
  const member = await chain.newWallet();
  const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
  await chain.mintTo(mint, chain.payer, member.address, 1_000_000_000n);
  const [source] = await findAssociatedTokenPda({ owner: member.address, mint, tokenProgram: TOKEN });

  const { ix: realmIx, realm } = await gov.createRealm(member, mint, 'Decode test DAO');
  const created = await execute(member, [realmIx]);
  expect(created.actions.map((a) => [a.program, a.name, a.kind])).toEqual([['SPL Governance', 'create_realm', 'account_management']]);

  const deposited = await execute(member, [await gov.depositGoverningTokens(realm, member, source, 250_000_000n)]);
  expect([deposited.kind, deposited.actions[0]!.name]).toEqual(['governance_deposit', 'deposit_governing_tokens']);
  expect(deposited.summary).toStartWith('Governing tokens deposited on SPL Governance (deposit_governing_tokens): deposited 250 ');
  expect(deposited.summary).toEndWith('(plus 0.0028536 SOL rent for 1 account it opened)');
  expect(payerChanges(deposited).changes.find((c) => c.asset === mint)?.raw).toBe('-250000000');

  const { ix: governanceIx, governance } = await gov.createGovernance(realm, member);
  await execute(member, [governanceIx]);

  const { ix: proposalIx, proposal } = await gov.createProposal(realm, governance, member, 'Fund the decoder');
  const proposed = await execute(member, [proposalIx]);
  expect([proposed.kind, proposed.category, proposed.categoryFit]).toEqual(['governance_proposal', 'Transfer', 'nearest']);
  expect(proposed.actions.map((a) => [a.programId, a.program, a.name, a.kind, a.source])).toEqual([
    [gov.GOVERNANCE, 'SPL Governance', 'create_proposal', 'governance_proposal', 'table'],
  ]);
  // what the proposer paid is the rent of the proposal's accounts, and the summary says so
  expect(proposed.summary).toMatch(/^Governance proposal on SPL Governance \(create_proposal\): paid [0-9.]+ SOL rent for [0-9]+ accounts? it opened$/);
  expect(proposed.summary).not.toContain('Not a swap or transfer');

  await execute(member, [await gov.signOffProposal(realm, governance, proposal, member)]);
  const voted = await execute(member, [await gov.castVote(realm, governance, proposal, member.address, member)]);
  expect([voted.kind, voted.actions[0]!.name]).toEqual(['governance_vote', 'cast_vote']);
  expect(voted.summary).toMatch(/^Governance vote on SPL Governance \(cast_vote\): paid [0-9.]+ SOL rent for 1 account it opened$/);
});

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
  expect(payerChanges(bid).changes.find((c) => c.asset === 'SOL')?.raw).toBe(`${-parked}`);

  const cancelled = await execute(bidder, [ah.cancelBid(house, bidder, mint, sellerToken, tradeState, price)]);
  expect([cancelled.kind, cancelled.category, cancelled.categoryFit]).toEqual(['order_cancel', 'Transfer', 'nearest']);
  expect(cancelled.actions.map((a) => [a.programId, a.program, a.name, a.kind, a.source])).toEqual([
    [ah.AUCTION_HOUSE, 'Metaplex Auction House', 'cancel', 'order_cancel', 'table'],
  ]);
  expect(cancelled.summary).toMatch(/^Cancelled or closed an order on Metaplex Auction House \(cancel\): got [0-9.]+ SOL rent back from 1 account it closed$/);
});
