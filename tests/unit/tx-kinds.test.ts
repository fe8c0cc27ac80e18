// Instruction-level kinds on recorded mainnet transactions, and the discriminator tables they rest on.
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../src/json';
import { type DecodeTxBody, describeTransaction } from '../../src/chain/tx/describe';
import { ACTION_KINDS, dominantKind, identifyInstruction } from '../../src/chain/tx/instructions';
import { accountRentOf, createdAccountSigners } from '../../src/chain/tx/changes';
import { normalizeTransaction, type NormalizedInstruction, type NormalizedTransaction } from '../../src/chain/tx/normalize';

const ROOT = join(import.meta.dir, '../fixtures/mainnet');
const decode = (file: string): DecodeTxBody =>
  describeTransaction(parseJson(readFileSync(join(ROOT, file), 'utf8')), { signature: 's', network: 'mainnet-beta' });

const ix = (programId: string, hex: string): NormalizedInstruction => ({
  topLevelIndex: 0,
  stackHeight: 1,
  programId,
  accounts: [],
  data: Uint8Array.from(Buffer.from(hex, 'hex')),
  parsed: null,
});

describe('discriminators', () => {
  // Prefixes seen in recorded transactions and in public decoders (e.g. a Go parser's jupDcaOpenV2 bytes
  // [142,119,43,109,162,52,11,177]); computed here from IDL names, so a typo in a name fails this test.
  test.each([
    ['6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', '66063d1201daebea', 'buy', 'swap'],
    ['6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', '181ec828051c0777', 'create', 'pool_create'],
    ['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', 'e517cb977ae3ad2a', 'route', 'swap'],
    ['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', 'c1209b3341d69c81', 'shared_accounts_route', 'swap'],
    ['DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M', '8e772b6da2340bb1', 'open_dca_v2', 'order_place'],
    ['CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', '8fbe5adac41e33de', 'swap_base_input', 'swap'],
    ['CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', 'f223c68952e1f2b6', 'deposit', 'liquidity_add'],
    ['pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA', 'e992d18ecf6840bc', 'create_pool', 'pool_create'],
    ['LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', '03dd95da6f8d76d5', 'add_liquidity_by_strategy2', 'liquidity_add'],
    ['whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', '851d59df45eeb00a', 'increase_liquidity_v2', 'liquidity_add'],
    ['SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf', 'c208a15799a419ab', 'vault_transaction_execute', 'multisig_execute'],
    ['MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA', '047e74353005d41f', 'lending_account_borrow', 'lending_borrow'],
    ['MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA', 'd6a997d5fba756db', 'lending_account_liquidate', 'liquidation'],
    // Metaplex's solita-generated clients (metaplex-program-library js/src/generated/instructions/*.ts)
    ['hausS13jsjafwWwGqZTUQRmWyvyxn9EQpqMwV1PBBmk', 'e8dbdf29dbecdcbe', 'cancel', 'order_cancel'],
    ['hausS13jsjafwWwGqZTUQRmWyvyxn9EQpqMwV1PBBmk', '254ad99d4f312306', 'execute_sale', 'nft_sale'],
    ['cndy3Z4yapfJBmL3ShUp5exZKqR3z33thTzeNMm2gRZ', 'd33906a70fdb23fb', 'mint_nft', 'nft_mint'],
    ['CndyV3LdqHUfDLmE5naZjVN8rBZz4tqhdefbAnjHG3JR', '3339e12fb69289a6', 'mint', 'nft_mint'],
  ])('%s %s is %s (%s)', (program, hex, name, kind) => {
    expect(identifyInstruction(ix(program, `${hex}00ff`))).toEqual({ name, kind: kind as never });
  });

  test('native indexes: Raydium AMM v4 deposit/withdraw/initialize2, Stake withdraw, Serum new_order_v3 after its version byte', () => {
    expect(identifyInstruction(ix('675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', '03'))).toEqual({ name: 'deposit', kind: 'liquidity_add' });
    expect(identifyInstruction(ix('675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', '04'))).toEqual({ name: 'withdraw', kind: 'liquidity_remove' });
    expect(identifyInstruction(ix('675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', '01fe'))).toEqual({ name: 'initialize2', kind: 'pool_create' });
    expect(identifyInstruction(ix('Stake11111111111111111111111111111111111111', '04000000'))).toEqual({ name: 'withdraw', kind: 'unstake' });
    expect(identifyInstruction(ix('srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX', '000a000000'))).toEqual({ name: 'new_order_v3', kind: 'order_place' });
  });

  // Borsh enums: the tag is the variant's position in GovernanceInstruction / AuctionInstruction
  test('SPL Governance and the legacy Metaplex Auction by their enum tag', () => {
    const gov = 'GovER5Lthms3bLBqWub97yVrMmEogzX7xNjdXpPPCVZw';
    const auction = 'auctxRXPeJoc4817jDhf4HbjnhEcr1cCXenosMhK5R8';
    expect(identifyInstruction(ix(gov, '06'))).toEqual({ name: 'create_proposal', kind: 'governance_proposal' });
    expect(identifyInstruction(ix(gov, '0d00'))).toEqual({ name: 'cast_vote', kind: 'governance_vote' });
    expect(identifyInstruction(ix(gov, '10'))).toEqual({ name: 'execute_transaction', kind: 'governance_execute' });
    expect(identifyInstruction(ix(gov, '01e803000000000000'))).toEqual({ name: 'deposit_governing_tokens', kind: 'governance_deposit' });
    expect(identifyInstruction(ix(gov, '02'))).toEqual({ name: 'withdraw_governing_tokens', kind: 'governance_withdraw' });
    expect(identifyInstruction(ix(gov, '24'))).toEqual({ name: 'unknown', kind: 'unknown' });
    expect(identifyInstruction(ix(auction, '00'))).toEqual({ name: 'cancel_bid', kind: 'order_cancel' });
    expect(identifyInstruction(ix(auction, '06'))).toEqual({ name: 'place_bid', kind: 'order_place' });
  });

  test('a known program with data it does not recognise is `unknown`; short data too; an unknown program is not named', () => {
    expect(identifyInstruction(ix('CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', '0000000000000000'))).toEqual({ name: 'unknown', kind: 'unknown' });
    expect(identifyInstruction(ix('CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', 'f223'))).toEqual({ name: 'unknown', kind: 'unknown' });
    expect(identifyInstruction(ix('11111111111111111111111111111111', '02'))).toEqual({ name: 'unknown', kind: 'unknown' });
    expect(identifyInstruction(ix('Zo1ggzTUKMY5bYnDvT5mtVeZxzf2FaLTbKkmvGUhUQk', 'f223c68952e1f2b6'))).toBeNull();
  });

  test('a transaction takes its most significant kind; none at all is unknown', () => {
    expect(dominantKind(['transfer', 'swap', 'account_management'])).toBe('swap');
    expect(dominantKind(['swap', 'liquidity_add'])).toBe('liquidity_add');
    expect(dominantKind(['account_management', 'unknown'])).toBe('unknown');
    expect(dominantKind([])).toBe('unknown');
    expect(new Set(ACTION_KINDS).size).toBe(ACTION_KINDS.length);
  });
});

describe('recorded transactions: what they did, not only which programs ran', () => {
  test('pool creation and liquidity removal are their kind, not Swap', () => {
    const created = decode('getTransaction-jsonParsed/raydium-amm-v4-create-pool-initialize2-helius-notification-happ.json');
    expect([created.kind, created.category, created.categoryFit]).toEqual(['pool_create', 'Transfer', 'nearest']);
    // the LP tokens are what the creator received, not a purchase
    expect(created.summary).not.toContain('Swapped');
    const removed = decode('getTransaction/meteora-dlmm-remove-liquidity-claim-close-block-sava.json');
    expect([removed.kind, removed.category]).toEqual(['liquidity_remove', 'Transfer']);
    expect(removed.actions.map((a) => a.name)).toContain('remove_liquidity_by_range2');
    expect(removed.actions.map((a) => a.name)).toContain('claim_fee2');
  });

  test('a DCA order placed, closed and ended is an order, not a Swap', () => {
    for (const [file, kind] of [
      ['getTransaction/jupiter-dca-open-dca-v2-jeffro.json', 'order_place'],
      ['getTransaction/jupiter-dca-close-dca-jeffro.json', 'order_cancel'],
      ['getTransaction/jupiter-dca-end-and-close-jeffro.json', 'order_cancel'],
    ] as const) {
      const body = decode(file);
      expect([body.kind, body.category, body.categoryFit]).toEqual([kind, 'Transfer', 'nearest']);
      expect(body.programs.filter((p) => p.venue !== null).map((p) => p.name)).toEqual(['Jupiter DCA']);
    }
  });

  test('end_and_close is signed by the keeper; the DCA owner who got the funds is in ownerChanges', () => {
    const body = decode('getTransaction/jupiter-dca-end-and-close-jeffro.json');
    const owners = body.ownerChanges.filter((o) => !o.signer && o.changes.length > 0);
    expect(owners.length).toBeGreaterThan(0);
    expect(body.ownerChanges[0]).toMatchObject({ signer: true, feePayer: true, changes: [] });
  });

  test('a failed route names the instruction that failed, not the venue that never finished', () => {
    const body = decode('getTransaction/failed-pumpswap-sell-route-ata-create-illegal-owner-block-sava.json');
    expect(body.error).toMatchObject({ instructionIndex: 5, programId: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL' });
    expect(body.summary).toStartWith('Failed: instruction 5 (Associated Token Account) create reverted with illegal owner (IllegalOwner)');
    expect(body.summary).not.toContain('PumpSwap swap reverted');
    const actionAt5 = body.actions.find((a) => a.instructionIndex === 5);
    expect(actionAt5).toMatchObject({ program: 'Associated Token Account', name: 'create', kind: 'account_management' });
  });

  test('a two-signer transaction reports both signers exactly (pre/post balances, fee to the payer only)', () => {
    const body = decode('getTransaction/raydium-clmm-swap-two-signers-block-sava.json');
    expect(body.signers).toEqual(['3ScoKDdLWf8KSqjJTMBpUykftmkD77UJMvDYHzmzM7Zt', 'fpBLKsMxrDs3KBwSPvR9SxCQDvYFhdrRp7totey2cUf']);
    const exact = (o: (typeof body.ownerChanges)[number]) => [o.owner, o.feeLamports, o.changes.map((c) => [c.asset.slice(0, 6), c.raw, c.decimals])];
    // payer: lamports 4985411167 -> 3870345280 with a 13000 fee; token 1361077586601 -> 4263464831043
    // co-signer: lamports 3772461547 -> 5196011203; token 3923876054143 -> 213939266884
    expect(body.ownerChanges.filter((o) => o.signer).map(exact)).toEqual([
      ['3ScoKDdLWf8KSqjJTMBpUykftmkD77UJMvDYHzmzM7Zt', 13000, [['SOL', '-1115052887', 9], ['D7LHMh', '2902387244442', 6]]],
      ['fpBLKsMxrDs3KBwSPvR9SxCQDvYFhdrRp7totey2cUf', 0, [['SOL', '1423549656', 9], ['D7LHMh', '-3709936787259', 6]]],
    ]);
    expect(body.summary).toContain('co-signer fpBLKs…2cUf received 1.423549656 SOL and sent 3709936.787259 D7LHMh…wP3W');
  });

  test('a new mint signing its own creation is not a co-signer (Pump.fun create): its lamports are the creator\'s rent', () => {
    const body = decode('getTransaction/pumpfun-create-and-buy-jeffro.json');
    const mint = '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump';
    expect(body.signers).toContain(mint);
    expect(body.ownerChanges.map((o) => o.owner)).not.toContain(mint);
    expect(body.summary).not.toContain('co-signer');
    // a co-signing wallet that existed before is still reported (raydium-clmm two-signer test above)
    expect(decode('getTransaction/raydium-clmm-swap-two-signers-block-sava.json').ownerChanges.filter((o) => o.signer)).toHaveLength(2);
  });

  test('a co-signer the System Program gave space (a DLMM position keypair) is a created account; a funded wallet is not', () => {
    const system = (topLevelIndex: number, accounts: string[], index: number): NormalizedInstruction => ({
      topLevelIndex,
      stackHeight: 1,
      programId: '11111111111111111111111111111111',
      accounts,
      data: Uint8Array.from([index, 0, 0, 0, ...new Array(8).fill(1)]),
      parsed: null,
    });
    const tx = {
      accountKeys: ['payer', 'position', 'wallet', '11111111111111111111111111111111'],
      feePayer: 'payer',
      signers: ['payer', 'position', 'wallet'],
      preBalances: [10n, 0n, 0n, 1n],
      postBalances: [5n, 3n, 2n, 1n],
      preTokenBalances: [],
      postTokenBalances: [],
      // CreateAccount(payer -> position) at the top level; Transfer(payer -> wallet) as an inner instruction
      instructions: [system(0, ['payer', 'position'], 0)],
      innerInstructions: [{ ...system(0, ['payer', 'wallet'], 2), stackHeight: 2 }],
    } as unknown as NormalizedTransaction;
    expect([...createdAccountSigners(tx)]).toEqual(['position']);
    // jsonParsed nodes name it instead of carrying the bytes
    const parsed = { ...tx, instructions: [{ ...tx.instructions[0]!, data: null, parsed: { type: 'createAccount', info: { newAccount: 'position' } } }] } as unknown as NormalizedTransaction;
    expect([...createdAccountSigners(parsed)]).toEqual(['position']);
  });

  test('rent of the accounts a pool action opens or closes is not SOL deposited or returned', () => {
    const tx = normalizeTransaction(parseJson(readFileSync(join(ROOT, 'getTransaction-jsonParsed/raydium-amm-v4-create-pool-initialize2-helius-notification-happ.json'), 'utf8')));
    // six new pool accounts; the new wSOL vault counts only its 0.00203928 SOL rent, not the 19.01 SOL it holds
    expect(accountRentOf(tx, tx.feePayer)).toEqual({ lamports: 51_281_280n, opened: 6, closed: 0 });
    // only the fee payer pays rent
    expect(accountRentOf(tx, '5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1')).toEqual({ lamports: 0n, opened: 0, closed: 0 });
    const closed = normalizeTransaction(parseJson(readFileSync(join(ROOT, 'getTransaction/meteora-dlmm-remove-liquidity-claim-close-block-sava.json'), 'utf8')));
    expect(accountRentOf(closed, closed.feePayer)).toEqual({ lamports: -57_406_080n, opened: 0, closed: 1 });
  });

  test('lending, NFT and order-book instructions get their kinds', () => {
    expect(decode('getTransaction/kamino-lending-repay-block-sava.json').kind).toBe('lending_repay');
    expect(decode('getTransaction/bubblegum-mint-to-collection-block-sava.json').kind).toBe('nft_mint');
    expect(decode('getTransaction/magic-eden-v2-nft-listing-block-sava.json').kind).toBe('order_place');
    expect(decode('getTransaction/openbook-v2-cancel-all-and-place-orders-block-sava.json').kind).toBe('order_place');
    expect(decode('getTransaction/token-burn-close-account-two-signers-block-sava.json').kind).toBe('burn');
  });
});
