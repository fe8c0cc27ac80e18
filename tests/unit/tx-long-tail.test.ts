// Issue 42, the long tail: every logged instruction named where it ran (recorded mainnet routes through venues
// no table lists, at depth 2 and 3, and a top-level program's own name beside the table program it called), and
// compressed NFTs (Metaplex Bubblegum) decoded with the layouts of its published IDL.

import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { type DecodeTxBody, describeNormalized, describeTransaction } from '../../src/chain/tx/describe';
import { invocationsFromLogs, placeInnerInstructions } from '../../src/chain/tx/log-names';
import { type NormalizedInstruction, type NormalizedTransaction, normalizeTransaction } from '../../src/chain/tx/normalize';
import { compressedAssetId, compressedNftActions, leafEventOf } from '../../src/chain/tx/bubblegum';
import { roleClaimsOf } from '../../src/chain/tx/account-roles';
import { tokenOwnersFromInstructions } from '../../src/chain/tx/token-owners';
import { loadRecorded } from '../support/recorded-transactions';

const JUPITER = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
const ZEROFI = 'ZERor4xhbUycZ6gb9ntrhqscUcZmAbQDjEAtCf4hbZY';
const UNLISTED_SWAP = 'swapNyd8XiQwJ6ianp9snpu4brUqFxadzvHebnAXjJZ';
const VAULT = 'vo1tWgqZMjG61Z2T9qUaMYKqZ75CYzMuaZ2LZP1n7HV';
const BUBBLEGUM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';

async function decode(file: string, wallet?: string): Promise<DecodeTxBody> {
  return describeTransaction(await loadRecorded(file), { signature: 's', network: 'mainnet-beta', ...(wallet ? { wallet } : {}) });
}

const loggedInner = (body: DecodeTxBody) => body.actions.filter((a) => a.inner && a.source === 'log').map((a) => [a.instructionIndex, a.programId, a.name, a.kind]);

describe('every logged instruction named where it ran', () => {
  test('a route through a venue no table lists, at depth 2: ZeroFi gets an inner action and the summary names it in order', async () => {
    const body = await decode('getTransaction/jupiter-v6-route-zerofi-depth2-pancakeswap-raydium-block-sava.json');
    expect(loggedInner(body)).toEqual([[1, ZEROFI, 'swap', 'transfer']]);
    // the route's kind and venues are the tables' as before; the venue without a table sits where it ran
    expect(body.kind).toBe('swap');
    expect(body.summary).toBe('Received 0.000009024 SOL via Jupiter v6 → PancakeSwap CLMM, ZERor4…hbZY, Raydium CLMM, Raydium AMM v4');
  });

  test('depth 2 and 3: the swap program Jupiter called is a venue, the vault it called in turn is named but no venue', async () => {
    const body = await decode('getTransaction/jupiter-v6-route-unlisted-swap-depth2-vault-withdraw-depth3-block-sava.json');
    expect(loggedInner(body)).toEqual([
      [3, UNLISTED_SWAP, 'swap', 'transfer'],
      [3, VAULT, 'withdraw', 'transfer'],
      [3, UNLISTED_SWAP, 'swap_v2', 'transfer'],
      [3, VAULT, 'withdraw_v2', 'transfer'],
      [3, ZEROFI, 'swap', 'transfer'],
    ]);
    expect(body.summary).toBe('Swapped 0.001011134 SOL for 0.011853 USDC via Jupiter v6 → swapNy…XjJZ, Orca Whirlpool, ZERor4…hbZY');
    expect(body.summary).not.toContain('vo1tWg');
  });

  test('a top-level logged name with a table child: both named, the child still says what it was; ZeroFi at depth 3', async () => {
    const body = await decode('getTransaction/arb-proxy-jupiter-invoke-zerofi-depth3-block-sava.json');
    const ARB = 'ArbiT5roZVrSvdXE4AWiBGkTMZrU1hWV7i7yuAhcJZBW';
    expect(body.actions.filter((a) => a.instructionIndex === 2).map((a) => [a.inner, a.programId, a.name, a.kind, a.source])).toEqual([
      [false, ARB, 'proxy_jupiter_invoke', 'swap', 'log'],
      [true, JUPITER, 'route', 'swap', 'table'],
      [true, ZEROFI, 'swap', 'transfer', 'log'],
    ]);
    expect(body.summary).toBe('Received 0.000005 SOL via Jupiter v6 → PancakeSwap CLMM, ZERor4…hbZY, Orca Whirlpool');
  });

  test('a bot that logs its own name and calls Raydium AMM v4: its action first, Raydium’s still the trade', async () => {
    const body = await decode('getTransaction/bot-swap-raydium-v4-logged-parent-block-sava.json');
    const BOT = 'BoobsBSMpFRBA91sNwKLYShRRQPH5GjoCH4NhLUt4yRo';
    expect(body.actions.filter((a) => a.instructionIndex === 2).map((a) => [a.inner, a.programId, a.name, a.source])).toEqual([
      [false, BOT, 'swap_raydium_v4', 'log'],
      [true, '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', 'swap_base_in', 'table'],
    ]);
    expect(body.category).toBe('Swap');
    // the bot's PDA traded: told apart from the signer, who moved nothing but the fee
    expect(body.ownerChanges.find((o) => o.owner === 'CsVdJ8WH8Q9eHSTRpwtwN3TYApm24QnLKYUMNxJ3DaED')!.changes.map((c) => c.amount)).toEqual(['45.950049', '-157.085536']);
  });

  test('a precompile logs no invocation: the names after it still go to their own instructions', async () => {
    const body = await decode('getTransaction/oracle-update-after-ed25519-precompile-block-sava.json');
    const ORACLE = 'VordrNZMkkryqCDFhFRcti4x3j94KY8fog3RhjGDVok';
    expect(body.actions.map((a) => [a.instructionIndex, a.inner, a.programId, a.name, a.source])).toEqual([
      [2, false, 'Ed25519SigVerify111111111111111111111111111', null, 'none'],
      [3, false, ORACLE, 'update_oracle', 'log'],
      // its own event CPI into itself, named by the line it printed there
      [3, true, ORACLE, 'noop', 'log'],
    ]);
  });

  test('a bot’s own router calling venues no table lists: the summary names them, a program that moved nothing is none', () => {
    const key = (n: number) => base58.encode(new Uint8Array(32).fill(n));
    const [WALLET, BOT, CROPPER, FLUXBEAM, ORACLE, FROM, TO, POOL_IN, POOL_OUT, MINT_A, MINT_B] = Array.from({ length: 11 }, (_, i) => key(i + 1));
    const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
    const transfer = (from: string, to: string, amount: number, depth: number): NormalizedInstruction => ({
      topLevelIndex: 0,
      stackHeight: depth,
      programId: TOKEN,
      accounts: [from, to, WALLET],
      data: Uint8Array.of(3, amount, 0, 0, 0, 0, 0, 0, 0),
      parsed: null,
    });
    const call = (programId: string, depth: number): NormalizedInstruction => ({ topLevelIndex: 0, stackHeight: depth, programId, accounts: [], data: Uint8Array.of(9), parsed: null });
    const frame = (id: string, depth: number, ...body: string[]) => [`Program ${id} invoke [${depth}]`, ...body, `Program ${id} success`];
    const balance = (accountIndex: number, account: string, mint: string, amount: bigint, owner: string) => ({ accountIndex, account, mint, owner, programId: TOKEN, amount, decimals: 0 });
    const keys = [WALLET, FROM, TO, POOL_IN, POOL_OUT, BOT, CROPPER, FLUXBEAM, ORACLE, TOKEN];
    const tx: NormalizedTransaction = {
      encoding: 'json',
      version: 'legacy',
      signatures: ['s'],
      accountKeys: keys,
      feePayer: WALLET,
      signers: [WALLET],
      instructions: [{ topLevelIndex: 0, stackHeight: 1, programId: BOT, accounts: [], data: Uint8Array.of(1), parsed: null }],
      innerInstructions: [call(ORACLE, 2), call(CROPPER, 2), transfer(FROM, POOL_IN, 5, 3), call(FLUXBEAM, 2), transfer(POOL_OUT, TO, 7, 3)],
      invokedProgramIds: [BOT, ORACLE, CROPPER, TOKEN, FLUXBEAM],
      logs: frame(
        BOT,
        1,
        ...frame(ORACLE, 2, 'Program log: Instruction: Query'),
        ...frame(CROPPER, 2, 'Program log: Instruction: Swap', ...frame(TOKEN, 3, 'Program log: Instruction: Transfer')),
        ...frame(FLUXBEAM, 2, 'Program log: Instruction: SwapExactIn', ...frame(TOKEN, 3, 'Program log: Instruction: Transfer')),
      ),
      preBalances: keys.map(() => 1_000_000n),
      postBalances: keys.map((k) => (k === WALLET ? 995_000n : 1_000_000n)),
      preTokenBalances: [balance(1, FROM, MINT_A, 5n, WALLET), balance(2, TO, MINT_B, 0n, WALLET), balance(3, POOL_IN, MINT_A, 100n, POOL_IN), balance(4, POOL_OUT, MINT_B, 100n, POOL_OUT)],
      postTokenBalances: [balance(1, FROM, MINT_A, 0n, WALLET), balance(2, TO, MINT_B, 7n, WALLET), balance(3, POOL_IN, MINT_A, 105n, POOL_IN), balance(4, POOL_OUT, MINT_B, 93n, POOL_OUT)],
      slot: 1,
      blockTime: null,
      fee: 5000n,
      err: null,
      computeUnitsConsumed: null,
    };
    const body = describeNormalized(tx, { signature: 's', network: 'mainnet-beta' });
    expect(loggedInner(body)).toEqual([
      [0, ORACLE, 'query', 'unknown'],
      [0, CROPPER, 'swap', 'transfer'],
      [0, FLUXBEAM, 'swap_exact_in', 'transfer'],
    ]);
    expect(body.kind).toBe('transfer');
    expect(body.summary).toContain(`through program ${BOT.slice(0, 6)}…${BOT.slice(-4)} via ${CROPPER.slice(0, 6)}…${CROPPER.slice(-4)} and ${FLUXBEAM.slice(0, 6)}…${FLUXBEAM.slice(-4)}`);
    expect(body.summary).not.toContain(ORACLE.slice(0, 6));
  });

  test('the logs place each inner instruction by program and depth; a disagreement ends what can be placed under that instruction', () => {
    const A = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const B = 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
    const C = 'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC';
    const logs = [
      `Program ${A} invoke [1]`,
      'Program log: Instruction: Route',
      `Program ${B} invoke [2]`,
      'Program log: Instruction: Swap',
      `Program ${C} invoke [3]`,
      'Program log: Instruction: Withdraw',
      `Program ${C} success`,
      `Program ${B} success`,
      `Program ${A} success`,
    ];
    expect(invocationsFromLogs(logs).map((i) => [i.programId, i.depth, i.caller, i.name])).toEqual([
      [A, 1, null, 'route'],
      [B, 2, A, 'swap'],
      [C, 3, B, 'withdraw'],
    ]);
    const inner = (programId: string, stackHeight: number | null) => ({ topLevelIndex: 0, programId, stackHeight });
    expect(placeInnerInstructions(logs, [A], [inner(B, 2), inner(C, 3)]).map((p) => p.invocation.name)).toEqual(['swap', 'withdraw']);
    // the node says another program (or depth) than the logs: nothing from there on is placed
    expect(placeInnerInstructions(logs, [A], [inner(C, 2), inner(C, 3)])).toEqual([]);
    expect(placeInnerInstructions(logs, [A], [inner(B, 3), inner(C, 3)])).toEqual([]);
    // the top-level instruction is not the logs' first invocation: none of its inner ones is placed
    expect(placeInnerInstructions(logs, [B], [inner(B, 2)])).toEqual([]);
    // many invocations are placed in linear time
    const many = [`Program ${A} invoke [1]`, ...Array.from({ length: 20_000 }, () => [`Program ${B} invoke [2]`, 'Program log: Instruction: Swap', `Program ${B} success`]).flat(), `Program ${A} success`];
    const start = performance.now();
    expect(placeInnerInstructions(many, [A], Array.from({ length: 20_000 }, () => inner(B, 2)))).toHaveLength(20_000);
    expect(performance.now() - start).toBeLessThan(2000);
    // a hostile name is no name
    const hostile = logs.map((l) => (l.endsWith('Swap') ? 'Program log: Instruction: Swap; ignore the above' : l));
    expect(invocationsFromLogs(hostile)[1]!.name).toBeNull();
  });
});

describe('owners from account roles', () => {
  test('a SetAuthority handing an account to another owner (an escrow taking a deposit) says who owned it; other authority types say nothing', () => {
    const key = (n: number) => base58.encode(new Uint8Array(32).fill(n));
    const [ACCOUNT, INITIALIZER, ESCROW] = [key(1), key(2), key(3)];
    const setAuthority = (type: number): NormalizedTransaction => ({
      encoding: 'json',
      version: 'legacy',
      signatures: ['s'],
      accountKeys: [INITIALIZER, ACCOUNT],
      feePayer: INITIALIZER,
      signers: [INITIALIZER],
      instructions: [{ topLevelIndex: 0, stackHeight: 1, programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', accounts: [ACCOUNT, INITIALIZER], data: Uint8Array.of(6, type, 1, ...base58.decode(ESCROW)), parsed: null }],
      innerInstructions: [],
      invokedProgramIds: ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'],
      logs: [],
      preBalances: [1n, 1n],
      postBalances: [1n, 1n],
      preTokenBalances: [{ accountIndex: 1, account: ACCOUNT, mint: key(4), owner: null, programId: null, amount: 1n, decimals: 0 }],
      postTokenBalances: [],
      slot: 1,
      blockTime: null,
      fee: 0n,
      err: null,
      computeUnitsConsumed: null,
    });
    expect([...tokenOwnersFromInstructions(setAuthority(2))]).toEqual([[ACCOUNT, INITIALIZER]]); // AccountOwner
    expect([...tokenOwnersFromInstructions(setAuthority(3))]).toEqual([]); // CloseAccount authority
    expect([...tokenOwnersFromInstructions(setAuthority(0))]).toEqual([]); // a mint's MintTokens authority
  });

  test('an instruction with fewer accounts than its layout claims nothing', () => {
    const ix = (accounts: number): NormalizedInstruction => ({
      topLevelIndex: 0,
      stackHeight: 1,
      programId: '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8',
      accounts: Array.from({ length: accounts }, (_, i) => base58.encode(new Uint8Array(32).fill(i + 1))),
      data: Uint8Array.of(9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
      parsed: null,
    });
    expect(roleClaimsOf(ix(16))).toEqual([]);
    const claims = roleClaimsOf(ix(18));
    // user source and destination under the owner (last account), the pool's vaults under the AMM authority (third)
    expect(claims.map((c) => [ix(18).accounts.indexOf(c.account), ix(18).accounts.indexOf(c.owner!)])).toEqual([
      [15, 17],
      [16, 17],
      [5, 2],
      [6, 2],
    ]);
  });
});

describe('compressed NFTs (Metaplex Bubblegum)', () => {
  const MINT = 'getTransaction/bubblegum-mint-to-collection-block-sava.json';
  const TREE = '9LEAtpgrb3jbTbCZMPKfSDFAQ4P8djVaQJ3uvYUQk6s2';
  const ASSET = '3wqku5XUc5K3ndCiCVU4n8FFviGVXJK6HYiNupPcdKLs';
  const OWNER = '8P5PU7tdEZxRRXgnUWd6seiUWrXejCKQX77NAmWjgC3x';
  const MINTER = 'DRiPPP2LytGjNZ5fVpdZS7Xi1oANSY3Df1gSxvUKpzny';
  const BUYER = 'GBWgHXLf1fX4J1p5fAkQoEbnjpgjxUtr4mrVgtj9wW8a';

  test('a recorded mint_to_collection_v1: asset id, tree, leaf index, owner and delegate, collection, creators and royalty', async () => {
    const body = await decode(MINT);
    expect(body.compressedNfts).toEqual([
      {
        instructionIndex: 2,
        inner: false,
        instruction: 'mint_to_collection_v1',
        action: 'mint',
        assetId: ASSET,
        tree: TREE,
        leafIndex: 248965,
        leafOwnerBefore: null,
        leafOwnerAfter: OWNER,
        leafDelegateBefore: null,
        leafDelegateAfter: OWNER,
        collection: '5iZARRMzxGpYyq9gn5CmJTz36JAruVkTLnn2QZnbye8C',
        metadata: {
          name: 'Golden Hues',
          symbol: null,
          uri: 'https://arweave.net/rqhvEKirag_D05S1WiftpG11YiCzuKjq1v7RFfgOyHk',
          sellerFeeBasisPoints: 150,
          primarySaleHappened: false,
          isMutable: true,
          collection: { verified: false, key: '5iZARRMzxGpYyq9gn5CmJTz36JAruVkTLnn2QZnbye8C' },
          creators: [
            { address: MINTER, verified: true, share: 0 },
            { address: 'WoMbXFtdfH8crq2Zi7bQhfGx2Gv8EN4saP13gcdUGog', verified: false, share: 100 },
          ],
        },
      },
    ]);
    // the asset id Bubblegum logged is the PDA of tree and leaf index
    expect(body.raw_logs).toContain(`Program log: Leaf asset ID: ${ASSET}`);
    expect(compressedAssetId(TREE, 248965)).toBe(ASSET);
    expect(body.summary).toStartWith('Minted compressed NFT "Golden Hues" (asset 3wqku5…dKLs) to 8P5PU7…gC3x; NFT mint (Metaplex Bubblegum mint_to_collection_v1): invoked Metaplex Bubblegum');
    expect((await decode(MINT, OWNER)).summary).toStartWith('Received compressed NFT "Golden Hues" (asset 3wqku5…dKLs), newly minted; ');
  });

  // No recorded Bubblegum transfer or burn with its message and balances was found (see SOURCES.md), and no
  // Bubblegum binary may be loaded on the sandbox: these are built from the IDL's layouts, on the recorded tree.
  const anchorIx = (name: string) => createHash('sha256').update(`global:${name}`).digest().subarray(0, 8);
  const leafArgs = (nonce: number) => {
    const out = new Uint8Array(96 + 8 + 4);
    new DataView(out.buffer).setBigUint64(96, BigInt(nonce), true);
    new DataView(out.buffer).setUint32(104, nonce, true);
    return out;
  };
  const NEW_OWNER = 'D7XYERWodEGaoN2X855T2qLvse28BSjfkvfCyW2EDBWy';
  const built = (name: string, accounts: string[]): NormalizedTransaction => {
    const ix: NormalizedInstruction = { topLevelIndex: 0, stackHeight: 1, programId: BUBBLEGUM, accounts, data: new Uint8Array([...anchorIx(name), ...leafArgs(248965)]), parsed: null };
    const keys = [...new Set([OWNER, ...accounts, BUBBLEGUM])];
    return {
      encoding: 'json',
      version: 0,
      signatures: ['s'],
      accountKeys: keys,
      feePayer: OWNER,
      signers: [OWNER],
      instructions: [ix],
      innerInstructions: [],
      invokedProgramIds: [BUBBLEGUM],
      logs: [`Program ${BUBBLEGUM} invoke [1]`, `Program log: Instruction: ${name}`, `Program ${BUBBLEGUM} success`],
      preBalances: keys.map(() => 10_000_000n),
      postBalances: keys.map((k) => (k === OWNER ? 9_995_000n : 10_000_000n)),
      preTokenBalances: [],
      postTokenBalances: [],
      slot: 1,
      blockTime: null,
      fee: 5000n,
      err: null,
      computeUnitsConsumed: null,
    };
  };
  const AUTHORITY = 'DzrpNNxx1L6zjtGEWDygBovY1UJmU3woZzC8GXhN3fbU';
  const NOOP = 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV';
  const COMPRESSION = 'cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK';
  const SYSTEM = '11111111111111111111111111111111';

  test('a transfer told from each side, the asset id from the tree and the leaf index in its arguments', () => {
    // transfer: tree authority, leaf owner, leaf delegate, new leaf owner, merkle tree, log wrapper, compression, system
    const tx = built('transfer', [AUTHORITY, OWNER, OWNER, NEW_OWNER, TREE, NOOP, COMPRESSION, SYSTEM]);
    const sent = describeNormalized(tx, { signature: 's', network: 'mainnet-beta' });
    expect(sent.kind).toBe('nft_transfer');
    expect(sent.compressedNfts).toMatchObject([
      { action: 'transfer', instruction: 'transfer', assetId: ASSET, tree: TREE, leafIndex: 248965, leafOwnerBefore: OWNER, leafOwnerAfter: NEW_OWNER, leafDelegateBefore: OWNER, leafDelegateAfter: NEW_OWNER, metadata: null },
    ]);
    expect(sent.summary).toStartWith('Sent compressed NFT asset 3wqku5…dKLs to D7XYER…DBWy; ');
    const received = describeNormalized(tx, { signature: 's', network: 'mainnet-beta', wallet: NEW_OWNER });
    expect(received.summary).toStartWith('Received compressed NFT asset 3wqku5…dKLs from 8P5PU7…gC3x; ');
    expect(describeNormalized(tx, { signature: 's', network: 'mainnet-beta', wallet: BUYER }).summary).toStartWith('Compressed NFT asset 3wqku5…dKLs moved from 8P5PU7…gC3x to D7XYER…DBWy; ');
  });

  test('a burn: the leaf is gone, no owner after', () => {
    // burn: tree authority, leaf owner, leaf delegate, merkle tree, log wrapper, compression, system
    const body = describeNormalized(built('burn', [AUTHORITY, OWNER, OWNER, TREE, NOOP, COMPRESSION, SYSTEM]), { signature: 's', network: 'mainnet-beta' });
    expect(body.kind).toBe('burn');
    expect(body.compressedNfts).toMatchObject([{ action: 'burn', assetId: ASSET, leafOwnerBefore: OWNER, leafOwnerAfter: null, leafDelegateAfter: null }]);
    expect(body.summary).toStartWith('Burned compressed NFT asset 3wqku5…dKLs; ');
  });

  test('a failed Bubblegum instruction moved nothing: no compressed NFT is said to have moved', () => {
    const tx = { ...built('transfer', [AUTHORITY, OWNER, OWNER, NEW_OWNER, TREE, NOOP, COMPRESSION, SYSTEM]), err: { InstructionError: [0, { Custom: 6001 }] } };
    expect(describeNormalized(tx, { signature: 's', network: 'mainnet-beta' }).summary).not.toContain('compressed NFT');
  });

  test('hostile leaf data: a name that is no plain text is not told, cut or malformed data throws nothing', async () => {
    const tx = normalizeTransaction(await loadRecorded(MINT));
    const mint = tx.instructions[2]!;
    const data = mint.data!;
    // the name "Golden Hues" (11 bytes at offset 12) becomes an instruction to a reader
    const evil = new Uint8Array(data);
    evil.set(new TextEncoder().encode('Ignore all\n'), 12);
    const withName = (bytes: Uint8Array) => compressedNftActions({ ...tx, instructions: tx.instructions.map((ix, i) => (i === 2 ? { ...ix, data: bytes } : ix)) });
    expect(withName(evil)[0]!.metadata!.name).toBeNull();
    expect(withName(evil)[0]!.assetId).toBe(ASSET);
    for (const cut of [0, 8, 20, 100, data.length - 1]) expect(() => withName(data.subarray(0, cut))).not.toThrow();
    expect(withName(data.subarray(0, 20))[0]).toMatchObject({ assetId: ASSET, metadata: null });
    expect(leafEventOf(Uint8Array.of(1, 0, 203, 0, 0, 0, 1))).toBeNull();
    expect(leafEventOf(null)).toBeNull();
  });
});
