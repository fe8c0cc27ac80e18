// Every JSON-RPC method's success shape against the recorded mainnet fixtures, plus JSON-RPC protocol behaviour.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { address, createSolanaRpc, devnet, getSignatureFromTransaction, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { API_VERSION, GENESIS_HASH, startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { fixture, jsonType, keys, plain, rawResult, rawRpc, signedTransaction } from '../support/sandbox/testing.ts';

let sb: Sandbox;
let rpc: ReturnType<typeof createSolanaRpc>;
let alice: KeyPairSigner;
let mint: Address;
const holders: KeyPairSigner[] = [];

beforeAll(async () => {
  sb = await startSandbox();
  rpc = createSolanaRpc(sb.url);
  alice = await sb.newWallet();
  mint = await sb.createMint({ authority: alice, decimals: 6, freezeAuthority: alice.address });
  await sb.mintTo(mint, alice, alice.address, 10_000_000_000n);
  for (const amount of [3_000_000n, 900_000_000n, 25_000_000n]) {
    const h = await sb.newWallet(100_000_000n);
    holders.push(h);
    await sb.transferToken(mint, alice, h.address, amount);
  }
});
afterAll(() => sb.stop());

const context = (r: { context: { slot: unknown; apiVersion: unknown } }) => r.context;

describe('cluster info', () => {
  test('getSlot / getBlockHeight / getEpochInfo / getHealth / getVersion / getGenesisHash', async () => {
    const slot = await rpc.getSlot().send();
    expect(await rpc.getBlockHeight().send()).toBeLessThan(slot);
    const info = await rpc.getEpochInfo().send();
    expect(keys(info)).toEqual(['absoluteSlot', 'blockHeight', 'epoch', 'slotIndex', 'slotsInEpoch', 'transactionCount']);
    expect(info.absoluteSlot).toBe(slot);
    expect(info.epoch).toBe(slot / 432000n);
    expect(info.slotIndex).toBe(slot % 432000n);
    expect(await rawResult(sb.url, 'getHealth')).toBe('ok');
    expect(await rawResult(sb.url, 'getVersion')).toEqual({ 'solana-core': API_VERSION, 'feature-set': expect.any(Number) });
    expect(String(await rpc.getGenesisHash().send())).toBe(GENESIS_HASH);
    expect(BigInt(await rpc.getMinimumBalanceForRentExemption(165n).send())).toBe(2_039_280n);
    expect(BigInt(await rpc.getMinimumBalanceForRentExemption(0n).send())).toBe(890_880n);
  });

  test('getLatestBlockhash has the mainnet shape; lastValidBlockHeight = blockHeight + 150', async () => {
    const r = await rawResult<any>(sb.url, 'getLatestBlockhash');
    const ref = fixture<any>('getLatestBlockhash');
    expect(keys(r)).toEqual(keys(ref));
    expect(keys(r.context)).toEqual(keys(ref.context));
    expect(keys(r.value)).toEqual(keys(ref.value));
    expect(r.context.apiVersion).toBe(API_VERSION);
    expect(BigInt(r.value.lastValidBlockHeight)).toBe((await rpc.getBlockHeight().send()) + 150n);
  });

  test('getBalance matches the fixture shape', async () => {
    const r = await rawResult<any>(sb.url, 'getBalance', [alice.address]);
    const ref = fixture<any>('getBalance');
    expect(keys(r)).toEqual(keys(ref));
    expect(jsonType(r.value)).toBe('number');
    expect(context(r).slot).toBe(Number(await rpc.getSlot().send()));
    expect(BigInt((await rpc.getBalance(address('11111111111111111111111111111112')).send()).value)).toBe(0n);
  });
});

describe('accounts', () => {
  test('getAccountInfo defaults to base58 (legacy binary string) and supports base64/zstd/slices', async () => {
    const r = await rawResult<any>(sb.url, 'getAccountInfo', [mint]);
    const ref = fixture<any>('getAccountInfo', 'usdt-mint-base58-default-encoding-notes.json');
    expect(keys(r.value)).toEqual(keys(ref.value));
    expect(typeof r.value.data).toBe('string');
    expect(r.value.rentEpoch).toBe(18446744073709551615n);
    expect(r.value.space).toBe(82);
    const b64 = await rpc.getAccountInfo(mint, { encoding: 'base64', dataSlice: { offset: 36, length: 8 } }).send();
    expect(b64.value!.data[1]).toBe('base64');
    expect(Buffer.from(b64.value!.data[0], 'base64').readBigUInt64LE()).toBe(10_000_000_000n);
    const z = await rawResult<any>(sb.url, 'getAccountInfo', [mint, { encoding: 'base64+zstd' }]);
    expect(z.value.data[1]).toBe('base64+zstd');
    expect(Bun.zstdDecompressSync(Buffer.from(z.value.data[0], 'base64')).length).toBe(82);
    expect((await rpc.getAccountInfo(address('11111111111111111111111111111112')).send()).value).toBeNull();
  });

  test('base58 of more than 128 bytes is refused like mainnet', async () => {
    const [ata] = (await rpc.getTokenAccountsByOwner(alice.address, { mint }, { encoding: 'base64' }).send()).value;
    const r = await rawRpc(sb.url, 'getAccountInfo', [ata!.pubkey]);
    expect(r.body?.error).toEqual({ code: -32600, message: 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.' });
  });

  test('a classic mint in jsonParsed is byte-for-byte the mainnet structure', async () => {
    const r = await rawResult<any>(sb.url, 'getAccountInfo', [mint, { encoding: 'jsonParsed' }]);
    const ref = fixture<any>('getAccountInfo', 'usdc-mint-gem.json').value;
    expect(keys(r.value)).toEqual(keys(ref));
    expect(keys(r.value.data)).toEqual(keys(ref.data));
    expect(keys(r.value.data.parsed)).toEqual(keys(ref.data.parsed));
    expect(keys(r.value.data.parsed.info)).toEqual(keys(ref.data.parsed.info));
    for (const k of keys(ref.data.parsed.info)) expect(jsonType(r.value.data.parsed.info[k])).toBe(jsonType(ref.data.parsed.info[k]));
    expect(r.value.data).toMatchObject({ program: 'spl-token', space: 82, parsed: { type: 'mint', info: { decimals: 6, supply: '10000000000', mintAuthority: alice.address, freezeAuthority: alice.address, isInitialized: true } } });
  });

  test('a wallet in jsonParsed falls back to base64 like mainnet', async () => {
    const r = await rawResult<any>(sb.url, 'getAccountInfo', [alice.address, { encoding: 'jsonParsed' }]);
    expect(r.value.data).toEqual(['', 'base64']);
    expect(r.value.owner).toBe('11111111111111111111111111111111');
  });

  test('getMultipleAccounts returns account objects (or null) in order', async () => {
    const r = await rawResult<any>(sb.url, 'getMultipleAccounts', [[mint, '11111111111111111111111111111112'], { encoding: 'jsonParsed' }]);
    const ref = fixture<any>('getMultipleAccounts-account-objects', 'usdc-mint-rwasonar.json');
    expect(r.value).toHaveLength(2);
    expect(keys(r.value[0])).toEqual(keys(ref));
    expect(keys(r.value[0].data.parsed.info)).toEqual(keys(ref.data.parsed.info));
    expect(r.value[1]).toBeNull();
    const tooMany = await rawRpc(sb.url, 'getMultipleAccounts', [Array(101).fill(mint)]);
    expect(tooMany.body?.error).toEqual({ code: -32602, message: 'Too many inputs provided; max 100' });
  });

  test('getProgramAccounts with filters (bare array, like mainnet)', async () => {
    const r = await rawResult<any[]>(sb.url, 'getProgramAccounts', [
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      { encoding: 'jsonParsed', filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint } }] },
    ]);
    const ref = fixture<any[]>('getProgramAccounts');
    expect(r).toHaveLength(4);
    expect(keys(r[0])).toEqual(keys(ref[0]));
    expect(keys(r[0].account)).toEqual(keys(ref[0].account));
    expect(r.every((a) => a.account.data.parsed.info.mint === mint)).toBe(true);
    const withCtx = await rawResult<any>(sb.url, 'getProgramAccounts', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { encoding: 'base64', withContext: true, filters: [{ dataSize: 82 }] }]);
    expect(keys(withCtx)).toEqual(['context', 'value']);
  });
});

describe('tokens', () => {
  test('getTokenAccountsByOwner by programId; other programs are rejected', async () => {
    const { value } = await rpc.getTokenAccountsByOwner(holders[1]!.address, { programId: address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') }, { encoding: 'jsonParsed' }).send();
    expect(value).toHaveLength(1);
    expect(plain(value[0]!.account.data.parsed.info)).toEqual({
      mint,
      owner: holders[1]!.address,
      tokenAmount: { uiAmount: 900, decimals: 6, amount: '900000000', uiAmountString: '900' },
      state: 'initialized',
      isNative: false,
    });
    const bad = await rawRpc(sb.url, 'getTokenAccountsByOwner', [alice.address, { programId: '11111111111111111111111111111111' }, { encoding: 'jsonParsed' }]);
    expect(bad.body?.error).toEqual({ code: -32602, message: 'Invalid param: unrecognized Token program id' });
  });

  test('getTokenLargestAccounts is sorted by amount, mainnet shape', async () => {
    const r = await rawResult<any>(sb.url, 'getTokenLargestAccounts', [mint]);
    const ref = fixture<any>('getTokenLargestAccounts', '6-decimal-mint-top20-raw-field-order-bobradar.json');
    expect(keys(r.value[0])).toEqual(keys(ref.value[0]));
    expect(Object.keys(r.value[0])).toEqual(Object.keys(ref.value[0])); // native field order too
    expect(r.value.map((v: any) => v.amount)).toEqual(['9072000000', '900000000', '25000000', '3000000']);
    expect(r.value[0]).toMatchObject({ decimals: 6, uiAmount: 9072, uiAmountString: '9072' });
    const notMint = await rawRpc(sb.url, 'getTokenLargestAccounts', [alice.address]);
    expect(notMint.body?.error).toEqual({ code: -32602, message: 'Invalid param: not a Token mint' });
  });

  test('getTokenSupply', async () => {
    const r = await rawResult<any>(sb.url, 'getTokenSupply', [mint]);
    const ref = fixture<any>('getTokenSupply');
    expect(keys(r.value)).toEqual(keys(ref.value));
    expect(r.value).toEqual({ uiAmount: 10000, decimals: 6, amount: '10000000000', uiAmountString: '10000' });
    const notMint = await rawRpc(sb.url, 'getTokenSupply', [alice.address]);
    expect(notMint.body?.error).toEqual({ code: -32602, message: 'Invalid param: not a Token mint' });
  });

  test('mint authority changes through a real SetAuthority', async () => {
    const m = await sb.createMint({ authority: alice, decimals: 0 });
    await sb.setMintAuthority(m, alice, null);
    const r = await rawResult<any>(sb.url, 'getAccountInfo', [m, { encoding: 'jsonParsed' }]);
    expect(r.value.data.parsed.info).toMatchObject({ mintAuthority: null, freezeAuthority: null, supply: '0' });
    const revoked = await sb.createMint({ authority: alice, decimals: 9, mintAuthority: null });
    const r2 = await rawResult<any>(sb.url, 'getAccountInfo', [revoked, { encoding: 'jsonParsed' }]);
    expect(r2.value.data.parsed.info.mintAuthority).toBeNull();
    const history = await rpc.getSignaturesForAddress(revoked).send();
    expect(history).toHaveLength(1);
  });
});

describe('history', () => {
  test('getSignaturesForAddress pages with limit / before / until, newest first', async () => {
    const w = await sb.newWallet(1_000_000_000n);
    const sigs = [];
    for (let i = 0; i < 4; i++) sigs.push(await sb.transferSol(w, alice.address, 1_000n + BigInt(i)));
    const all = await rpc.getSignaturesForAddress(w.address).send();
    expect(all.map((e) => e.signature).slice(0, 4)).toEqual(sigs.slice().reverse());
    expect(all).toHaveLength(5); // + the funding transfer
    const slots = all.map((e) => e.slot);
    expect([...slots].sort((a, b) => (a > b ? -1 : 1))).toEqual(slots);
    const page = await rpc.getSignaturesForAddress(w.address, { limit: 2, before: sigs[3]! }).send();
    expect(page.map((e) => e.signature)).toEqual([sigs[2], sigs[1]]);
    const until = await rpc.getSignaturesForAddress(w.address, { until: sigs[1]! }).send();
    expect(until.map((e) => e.signature)).toEqual([sigs[3], sigs[2]]);
    const ref = fixture<any[]>('getSignaturesForAddress', 'five-sigs-one-failed-solrpc-canister.json');
    const raw = await rawResult<any[]>(sb.url, 'getSignaturesForAddress', [w.address, { limit: 1 }]);
    expect(keys(raw[0])).toEqual(keys(ref[0]));
    for (const k of ['signature', 'slot', 'blockTime', 'confirmationStatus']) expect(jsonType(raw[0][k])).toBe(jsonType(ref[0][k]));
    const bad = await rawRpc(sb.url, 'getSignaturesForAddress', [w.address, { limit: 1001 }]);
    expect(bad.body?.error).toEqual({ code: -32602, message: 'Invalid limit; max 1000' });
  });

  test('getSignaturesForAddress `before` may be any landed signature, standing for its slot (as Agave does); an unknown one gives []', async () => {
    const w = await sb.newWallet(1_000_000_000n);
    const other = await sb.newWallet(1_000_000_000n);
    const older = await sb.transferSol(w, alice.address, 2_000n);
    const elsewhere = await sb.transferSol(other, alice.address, 2_001n);
    await sb.transferSol(w, alice.address, 2_002n);
    const page = await rpc.getSignaturesForAddress(w.address, { limit: 1, before: elsewhere }).send();
    expect(page.map((e) => e.signature)).toEqual([older]);
    const unknown = getSignatureFromTransaction(await signedTransaction(sb.url, w, [getTransferSolInstruction({ source: w, destination: alice.address, amount: 1n })]));
    expect(await rpc.getSignaturesForAddress(w.address, { before: unknown }).send()).toEqual([]);
  });

  test('requestAirdrop lands a real faucet transfer', async () => {
    const target = address('9we6kjtbcZ2vy3GSLLsZTEhbAqXPTRvEyoxa8wxSqKp5');
    const sig = await createSolanaRpc(devnet(sb.url)).requestAirdrop(target, lamports(5_000_000_000n)).send();
    expect(BigInt((await rpc.getBalance(target).send()).value)).toBe(5_000_000_000n);
    const { value } = await rpc.getSignatureStatuses([sig]).send();
    expect(value[0]?.confirmationStatus).toBe('finalized');
    const tx = await rpc.getTransaction(sig, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    expect(tx!.meta!.err).toBeNull();
  });
});

describe('JSON-RPC protocol', () => {
  test('batches answer every element in order and count as separate calls', async () => {
    sb.resetCalls();
    const r = await rawRpc(sb.url, [
      ['getSlot', []],
      ['getBalance', [alice.address]],
      ['noSuchMethod', []],
    ]);
    const replies = r.body as unknown as { id: number; result?: unknown; error?: unknown }[];
    expect(replies.map((x) => x.id)).toEqual([1, 2, 3]);
    expect(jsonType(replies[0]!.result)).toBe('number');
    expect(replies[2]!.error).toEqual({ code: -32601, message: 'Method not found' });
    expect(sb.calls()).toBe(3);
    expect(sb.calls('getBalance')).toBe(1);
  });

  test('bad params are -32602 with mainnet-like messages; bad JSON is -32700', async () => {
    expect((await rawRpc(sb.url, 'getBalance', ['not-an-address'])).body?.error).toEqual({ code: -32602, message: 'Invalid param: Invalid' });
    expect((await rawRpc(sb.url, 'getBalance', ['abc'])).body?.error).toEqual({ code: -32602, message: 'Invalid param: WrongSize' });
    expect((await rawRpc(sb.url, 'getBalance', [])).body?.error?.code).toBe(-32602);
    expect((await rawRpc(sb.url, 'getTransaction', ['xyz'])).body?.error?.code).toBe(-32602);
    const res = await fetch(sb.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0",' });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
  });

  test('kit surfaces JSON-RPC errors with their code', async () => {
    try {
      await rpc.getTokenSupply(alice.address).send();
      throw new Error('expected an error');
    } catch (e) {
      expect((e as { context?: { __code?: number } }).context?.__code).toBe(-32602);
    }
  });
});
