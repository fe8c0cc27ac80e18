// SPL Governance executed by its real binary (v3.1.3, tests/fixtures/programs/spl_governance.so) on the sandbox
// chain: a realm, a deposit of governing tokens, a governance, a proposal and a vote, each fetched back through
// the sandbox's mainnet-shaped getTransaction and decoded by kind, name and summary.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { findAssociatedTokenPda } from '@solana-program/token';
import { address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { describeTransaction, type DecodeTxBody } from '../../src/chain/tx/describe.ts';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { rawResult, signedTransaction } from '../support/sandbox/testing.ts';
import * as gov from '../support/governance.ts';

const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
let chain: Sandbox;

beforeAll(async () => {
  chain = await startSandbox();
  chain.svm.addProgramFromFile(gov.GOVERNANCE, join(import.meta.dir, '../fixtures/programs/spl_governance.so'));
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
  expect(deposited.balanceChanges.find((c) => c.asset === mint)?.raw).toBe('-250000000');

  const { ix: governanceIx, governance } = await gov.createGovernance(realm, member);
  await execute(member, [governanceIx]);

  const { ix: proposalIx, proposal } = await gov.createProposal(realm, governance, member, 'Fund the decoder');
  const proposed = await execute(member, [proposalIx]);
  expect([proposed.kind, proposed.category, proposed.categoryMatched]).toEqual(['governance_proposal', 'Transfer', false]);
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
