// SPL Governance (GovER5…, v3.1.3: tests/fixtures/programs/spl_governance.so) instructions, encoded from the
// program's source (Mythic-Project/spl-governance governance/program/src/instruction.rs: GovernanceInstruction,
// Borsh, and the account lists of its create_realm, deposit_governing_tokens, create_governance,
// create_proposal, sign_off_proposal and cast_vote builders) and its PDA seeds.

import { address, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { Borsh, pda, r, rs, w, ws } from './amm/encode.ts';

export const GOVERNANCE = address('GovER5Lthms3bLBqWub97yVrMmEogzX7xNjdXpPPCVZw');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const SYSTEM = address('11111111111111111111111111111111');
const RENT = address('SysvarRent111111111111111111111111111111111');

const str = (b: Borsh, s: string) => {
  const bytes = new TextEncoder().encode(s);
  return b.u32(bytes.length).bytes(bytes);
};

export interface Realm {
  realm: Address;
  mint: Address;
  holding: Address;
  config: Address;
}

/** CreateRealm: community mint only (no council), Liquid tokens, no voter-weight add-ins. */
export async function createRealm(payer: KeyPairSigner, mint: Address, name: string): Promise<{ ix: Instruction; realm: Realm }> {
  const realm = await pda(GOVERNANCE, ['governance', new TextEncoder().encode(name)]);
  const holding = await pda(GOVERNANCE, ['governance', realm, mint]);
  const config = await pda(GOVERNANCE, ['realm-config', realm]);
  const data = str(new Borsh().u8(0), name)
    .bool(false) // use_council_mint
    .u64(1) // min_community_weight_to_create_governance
    .u8(0) // MintMaxVoterWeightSource::SupplyFraction
    .u64(10_000_000_000n) // 100%
    .bool(false) // community: use_voter_weight_addin
    .bool(false) // community: use_max_voter_weight_addin
    .u8(0) // community: GoverningTokenType::Liquid
    .bool(false) // council: use_voter_weight_addin
    .bool(false) // council: use_max_voter_weight_addin
    .u8(2) // council: GoverningTokenType::Dormant
    .done();
  return {
    ix: { programAddress: GOVERNANCE, accounts: [w(realm), r(payer.address), r(mint), w(holding), ws(payer), r(SYSTEM), r(TOKEN), r(RENT), w(config)], data },
    realm: { realm, mint, holding, config },
  };
}

export const tokenOwnerRecord = (realm: Realm, owner: Address) => pda(GOVERNANCE, ['governance', realm.realm, realm.mint, owner]);

/** DepositGoverningTokens from the owner's token account (the owner signs as source authority and pays). */
export async function depositGoverningTokens(realm: Realm, owner: KeyPairSigner, source: Address, amount: bigint): Promise<Instruction> {
  const record = await tokenOwnerRecord(realm, owner.address);
  return {
    programAddress: GOVERNANCE,
    accounts: [r(realm.realm), w(realm.holding), w(source), rs(owner), rs(owner), w(record), ws(owner), r(SYSTEM), r(TOKEN), r(realm.config)],
    data: new Borsh().u8(1).u64(amount).done(),
  };
}

/** CreateGovernance over a fresh governed-account seed: 60% yes of the community, council disabled. */
export async function createGovernance(realm: Realm, owner: KeyPairSigner): Promise<{ ix: Instruction; governance: Address }> {
  const governed = (await generateKeyPairSigner()).address;
  const governance = await pda(GOVERNANCE, ['account-governance', realm.realm, governed]);
  const record = await tokenOwnerRecord(realm, owner.address);
  const data = new Borsh()
    .u8(4)
    .u8(0) // community_vote_threshold: YesVotePercentage
    .u8(60)
    .u64(1) // min_community_weight_to_create_proposal
    .u32(0) // min_transaction_hold_up_time
    .u32(3600) // voting_base_time
    .u8(0) // community_vote_tipping: Strict
    .u8(2) // council_vote_threshold: Disabled
    .u8(2) // council_veto_vote_threshold: Disabled
    .u64(2n ** 64n - 1n) // min_council_weight_to_create_proposal
    .u8(0) // council_vote_tipping: Strict
    .u8(2) // community_veto_vote_threshold: Disabled
    .u32(0) // voting_cool_off_time
    .u8(10) // deposit_exempt_proposal_count
    .done();
  return {
    ix: { programAddress: GOVERNANCE, accounts: [r(realm.realm), w(governance), r(governed), r(record), ws(owner), r(SYSTEM), rs(owner), r(realm.config)], data },
    governance,
  };
}

/** CreateProposal: a single-choice proposal with a deny option, by the owner of a token owner record. */
export async function createProposal(realm: Realm, governance: Address, owner: KeyPairSigner, name: string): Promise<{ ix: Instruction; proposal: Address }> {
  const seed = (await generateKeyPairSigner()).address;
  const proposal = await pda(GOVERNANCE, ['governance', governance, realm.mint, seed]);
  const record = await tokenOwnerRecord(realm, owner.address);
  const deposit = await pda(GOVERNANCE, ['proposal-deposit', proposal, owner.address]);
  const b = str(new Borsh().u8(6), name);
  str(b, 'https://example.org/proposal');
  const data = str(b.u8(0).u32(1), 'Approve').bool(true).pubkey(seed).done();
  return {
    ix: {
      programAddress: GOVERNANCE,
      accounts: [r(realm.realm), w(proposal), w(governance), w(record), r(realm.mint), rs(owner), ws(owner), r(SYSTEM), r(realm.config), w(deposit)],
      data,
    },
    proposal,
  };
}

/** SignOffProposal by its owner (a proposal without signatories): Draft -> Voting. */
export async function signOffProposal(realm: Realm, governance: Address, proposal: Address, owner: KeyPairSigner): Promise<Instruction> {
  const record = await tokenOwnerRecord(realm, owner.address);
  return { programAddress: GOVERNANCE, accounts: [r(realm.realm), r(governance), w(proposal), rs(owner), r(record)], data: Uint8Array.of(12) };
}

/** CastVote: Approve the single option with all the voter's weight. */
export async function castVote(realm: Realm, governance: Address, proposal: Address, proposalOwner: Address, voter: KeyPairSigner): Promise<Instruction> {
  const ownerRecord = await tokenOwnerRecord(realm, proposalOwner);
  const voterRecord = await tokenOwnerRecord(realm, voter.address);
  const voteRecord = await pda(GOVERNANCE, ['governance', proposal, voterRecord]);
  return {
    programAddress: GOVERNANCE,
    accounts: [
      r(realm.realm),
      w(governance),
      w(proposal),
      w(ownerRecord),
      w(voterRecord),
      rs(voter),
      w(voteRecord),
      r(realm.mint),
      ws(voter),
      r(SYSTEM),
      r(realm.config),
    ],
    data: new Borsh().u8(13).u8(0).u32(1).u8(0).u8(100).done(),
  };
}
