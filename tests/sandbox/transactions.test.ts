// Transactions through the sandbox: getTransaction shapes, fees, balances, token balances, failures, replays, memos.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageEncoder,
  compileTransactionMessage,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Nonce,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { fixture, jsonType, keys, plain, rawResult, rawRpc, signedTransaction } from '../support/sandbox/testing.ts';

let sb: Sandbox;
let rpc: ReturnType<typeof createSolanaRpc>;
let alice: KeyPairSigner;
let bob: KeyPairSigner;

beforeAll(async () => {
  sb = await startSandbox();
  rpc = createSolanaRpc(sb.url);
  alice = await sb.newWallet();
  bob = await sb.newWallet(2_000_000_000n);
});
afterAll(() => sb.stop());

type Meta = {
  err: unknown;
  status: unknown;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  logMessages: string[];
  innerInstructions: { index: number; instructions: unknown[] }[];
  preTokenBalances: Record<string, unknown>[];
  postTokenBalances: Record<string, unknown>[];
  computeUnitsConsumed: bigint;
};
type TxJson = { slot: bigint; blockTime: bigint; version?: unknown; meta: Meta; transaction: { signatures: string[]; message: { accountKeys: string[]; instructions: Record<string, unknown>[]; header: unknown; recentBlockhash: string } } };

/** getTransaction through @solana/kit (u64 values come back as bigint). */
async function getTx(sig: string, cfg: { encoding?: 'json' | 'base64' } = {}): Promise<TxJson> {
  const tx = await rpc.getTransaction(sig as Signature, { maxSupportedTransactionVersion: 0, encoding: (cfg.encoding ?? 'json') as 'json' }).send();
  return tx as unknown as TxJson;
}

/** A transaction message as getFeeForMessage takes it (base64 of the compiled message bytes). */
function getBase64EncodedMessage(message: Parameters<typeof compileTransactionMessage>[0]) {
  const bytes = getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message));
  return Buffer.from(bytes).toString('base64') as Parameters<typeof rpc.getFeeForMessage>[0];
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

const buildTx = (feePayer: KeyPairSigner, ixs: Instruction[], blockhash?: string) => signedTransaction(sb.url, feePayer, ixs, blockhash);

describe('SOL transfer', () => {
  let sig: Signature;
  let slotBefore: bigint;
  beforeAll(async () => {
    slotBefore = await rpc.getSlot().send();
    sig = await sb.transferSol(alice, bob.address, 123_456_789n);
  });

  test('getTransaction json matches the mainnet shape', async () => {
    const tx = await getTx(sig);
    const ref = fixture<Record<string, any>>('getTransaction', 'sol-transfer-gem-1.json');
    expect(keys(tx)).toEqual(keys(ref));
    expect(keys(tx.meta)).toEqual(keys(ref.meta));
    expect(keys(tx.transaction)).toEqual(keys(ref.transaction));
    expect(keys(tx.transaction.message)).toEqual(keys(ref.transaction.message));
    expect(keys(tx.transaction.message.instructions[0])).toEqual(keys(ref.transaction.message.instructions[0]));
    expect(tx.transaction.message.instructions[0]!.stackHeight).toBeNull();
    expect(tx.version).toBe(0);
    expect(tx.meta.status).toEqual({ Ok: null });
    expect(tx.meta.logMessages).toEqual(['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);
    expect(tx.meta.computeUnitsConsumed).toBe(150n);
    expect(tx.transaction.signatures).toEqual([sig]);
    for (const k of ['fee', 'slot', 'blockTime'] as const) expect(jsonType(k === 'fee' ? tx.meta.fee : tx[k])).toBe('number');
  });

  test('fee is conserved and balances move', async () => {
    const tx = await getTx(sig);
    expect(tx.meta.fee).toBe(5000n);
    expect(sum(tx.meta.preBalances) - sum(tx.meta.postBalances)).toBe(tx.meta.fee);
    const keysList = tx.transaction.message.accountKeys;
    const ia = keysList.indexOf(alice.address);
    const ib = keysList.indexOf(bob.address);
    expect(tx.meta.preBalances[ia]! - tx.meta.postBalances[ia]!).toBe(123_456_789n + 5000n);
    expect(tx.meta.postBalances[ib]! - tx.meta.preBalances[ib]!).toBe(123_456_789n);
    expect(BigInt((await rpc.getBalance(bob.address).send()).value)).toBe(tx.meta.postBalances[ib]!);
  });

  test('lands in a new slot whose blockTime tracks the clock', async () => {
    const tx = await getTx(sig);
    expect(tx.slot).toBe(slotBefore + 1n);
    expect(await rpc.getSlot().send()).toBe(tx.slot);
    expect(Number(tx.blockTime)).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(Number(tx.blockTime)).toBeLessThan(Date.now() / 1000 + 60);
    expect(await rpc.getBlockHeight().send()).toBeLessThan(tx.slot);
  });

  test('json is the default encoding; base64 and jsonParsed render the same transaction', async () => {
    const b64 = await getTx(sig, { encoding: 'base64' });
    const ref = fixture<Record<string, any>>('getTransaction', 'failed-ata-create-incorrect-program-id-base64-sava.json');
    expect(jsonType(b64.transaction)).toBe('array');
    expect((b64.transaction as unknown as string[])[1]).toBe('base64');
    expect(keys(b64.meta)).toEqual(keys(ref.meta));
    const parsed = await rawResult<any>(sb.url, 'getTransaction', [sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    const pref = fixture<Record<string, any>>('getTransaction-jsonParsed', 'jupiter-v6-sharedroute-usdc-sol-meteora-dlmm-jsonparsed-solbot.json');
    expect(keys(parsed.meta)).toEqual(keys(pref.meta));
    expect(keys(parsed.transaction.message)).toEqual(keys(pref.transaction.message));
    expect(keys(parsed.transaction.message.accountKeys[0])).toEqual(keys(pref.transaction.message.accountKeys[0]));
    expect(parsed.transaction.message.accountKeys[0]).toEqual({ pubkey: alice.address, writable: true, signer: true, source: 'transaction' });
    const ix = parsed.transaction.message.instructions[0];
    expect(keys(ix)).toEqual(keys(pref.transaction.message.instructions.find((i: any) => i.program === 'system')));
    expect(ix.parsed).toEqual({ info: { destination: bob.address, lamports: 123456789, source: alice.address }, type: 'transfer' });
  });

  test('a v0 transaction without maxSupportedTransactionVersion is -32015; unknown signature is null', async () => {
    const r = await rawRpc(sb.url, 'getTransaction', [sig]);
    expect(r.body?.error?.code).toBe(-32015);
    expect(r.body?.error?.message).toContain('"maxSupportedTransactionVersion": 0');
    const unknown = getSignatureFromTransaction(await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1n })]));
    expect(await rawResult(sb.url, 'getTransaction', [unknown, { maxSupportedTransactionVersion: 0 }])).toBeNull();
    await expect(rpc.getTransaction(unknown, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send()).resolves.toBeNull();
  });

  test('signature status and history', async () => {
    const { value } = await rpc.getSignatureStatuses([sig]).send();
    const ref = fixture<any>('getSignatureStatuses');
    expect(keys(value[0])).toEqual(keys(ref.value[0]));
    expect(value[0]).toMatchObject({ confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'finalized' });
    const history = await rpc.getSignaturesForAddress(bob.address).send();
    expect(history[0]!.signature).toBe(sig);
    expect(keys(history[0])).toEqual(keys(fixture<any[]>('getSignaturesForAddress')[0]));
  });
});

describe('memo', () => {
  test('memo is reported in mainnet format', async () => {
    const sig = await sb.transferSol(alice, bob.address, 1_000n, { memo: 'gm ☀' });
    const [entry] = await rpc.getSignaturesForAddress(alice.address, { limit: 1 }).send();
    expect(entry!.signature).toBe(sig);
    expect(entry!.memo).toBe(`[${new TextEncoder().encode('gm ☀').length}] gm ☀`);
    const parsed = await rawResult<any>(sb.url, 'getTransaction', [sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    expect(parsed.transaction.message.instructions.at(-1)).toMatchObject({ program: 'spl-memo', parsed: 'gm ☀' });
  });
});

describe('failures', () => {
  test('a failed transaction landed with skipPreflight is charged, recorded and in history', async () => {
    const poor = await sb.newWallet(50_000_000n);
    const sig = await sb.failingTransaction(poor);
    const tx = await getTx(sig);
    expect(plain(tx.meta.err)).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(plain(tx.meta.status)).toEqual({ Err: { InstructionError: [0, { Custom: 1 }] } });
    expect(tx.meta.fee).toBe(5000n);
    expect(sum(tx.meta.preBalances) - sum(tx.meta.postBalances)).toBe(5000n);
    expect(tx.meta.postBalances[0]).toBe(50_000_000n - 5000n);
    expect(tx.meta.logMessages.at(-1)).toBe('Program 11111111111111111111111111111111 failed: custom program error: 0x1');
    expect(BigInt((await rpc.getBalance(poor.address).send()).value)).toBe(50_000_000n - 5000n);
    const [entry] = await rpc.getSignaturesForAddress(poor.address, { limit: 1 }).send();
    expect(plain(entry)).toMatchObject({ signature: sig, err: { InstructionError: [0, { Custom: 1 }] }, confirmationStatus: 'finalized' });
    const { value } = await rpc.getSignatureStatuses([sig]).send();
    expect(plain(value[0]!.err)).toEqual({ InstructionError: [0, { Custom: 1 }] });
  });

  test('rent failure maps to InsufficientFundsForRent with account_index', async () => {
    const nobody = await generateKeyPairSigner();
    const tx = await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: nobody.address, amount: 123n })]);
    const { err, signature } = await sb.send(tx, { skipPreflight: true });
    expect(err).toEqual({ InsufficientFundsForRent: { account_index: 1 } });
    const got = await getTx(signature);
    expect(got.meta.fee).toBe(5000n);
    expect(got.meta.logMessages).toEqual(['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);
  });

  test('preflight rejection is -32002 with the simulation in data, and nothing lands', async () => {
    const slot = await rpc.getSlot().send();
    const tx = await buildTx(bob, [getTransferSolInstruction({ source: bob, destination: alice.address, amount: 10n ** 15n })]);
    const r = await rawRpc(sb.url, 'sendTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64' }]);
    const ref = fixture<any>('sendTransaction-preflight-error', 'jupiter-route-slippage-6001-gem.json');
    expect(r.body?.error?.code).toBe(-32002);
    expect(r.body?.error?.message).toBe('Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    expect(keys(r.body?.error?.data)).toEqual(keys(ref.data));
    expect(r.body?.error?.data).toMatchObject({ accounts: null, err: { InstructionError: [0, { Custom: 1 }] }, innerInstructions: null, replacementBlockhash: null, returnData: null, unitsConsumed: 150 });
    expect(await rpc.getSlot().send()).toBe(slot);
    expect(await rpc.getTransaction(getSignatureFromTransaction(tx), { maxSupportedTransactionVersion: 0, encoding: 'json' }).send()).toBeNull();
    // kit surfaces it as a SolanaError carrying the code
    try {
      await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send();
      throw new Error('expected a preflight failure');
    } catch (e) {
      expect(isSolanaError(e)).toBe(true);
      expect((e as { context: { __code: number } }).context.__code).toBe(-32002);
    }
  });

  test('a replayed transaction is rejected as AlreadyProcessed and does not land twice', async () => {
    const tx = await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 7_777n })]);
    const wire = getBase64EncodedWireTransaction(tx);
    const sig = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    const slot = await rpc.getSlot().send();
    const r = await rawRpc(sb.url, 'sendTransaction', [wire, { encoding: 'base64' }]);
    expect(r.body?.error?.code).toBe(-32002);
    expect(r.body?.error?.message).toBe('Transaction simulation failed: This transaction has already been processed');
    expect((r.body?.error?.data as { err: unknown }).err).toBe('AlreadyProcessed');
    // with skipPreflight the RPC just forwards it (mainnet returns the signature) but it never lands again
    expect(await rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: true }).send()).toBe(sig);
    expect(await rpc.getSlot().send()).toBe(slot);
    const history = await rpc.getSignaturesForAddress(alice.address, { limit: 5 }).send();
    expect(history.filter((h) => h.signature === sig)).toHaveLength(1);
  });

  test('an unknown blockhash is BlockhashNotFound; an older recent blockhash is accepted', async () => {
    const stale = await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1n + 1_000_000n })], 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    const r = await rawRpc(sb.url, 'sendTransaction', [getBase64EncodedWireTransaction(stale), { encoding: 'base64' }]);
    expect(r.body?.error?.code).toBe(-32002);
    expect(r.body?.error?.message).toBe('Transaction simulation failed: Blockhash not found');
    expect(r.body?.error?.data).toMatchObject({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 });

    const old = (await rpc.getLatestBlockhash().send()).value;
    await sb.transferSol(alice, bob.address, 1_000n);
    await sb.transferSol(alice, bob.address, 1_001n);
    expect((await rpc.getLatestBlockhash().send()).value.blockhash).not.toBe(old.blockhash);
    expect((await rpc.isBlockhashValid(old.blockhash).send()).value).toBe(true);
    const tx = await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1_002n })], old.blockhash);
    const { err } = await sb.send(tx);
    expect(err).toBeNull();
  });

  test('a bad signature is -32003 in preflight', async () => {
    const tx = await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 31_337n })]);
    const sigBytes = Object.values(tx.signatures)[0]!;
    (sigBytes as unknown as Uint8Array)[0] ^= 0xff;
    const r = await rawRpc(sb.url, 'sendTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64' }]);
    expect(r.body?.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
  });

  test('undecodable transactions are -32602', async () => {
    const r = await rawRpc(sb.url, 'sendTransaction', ['AQID', { encoding: 'base64' }]);
    expect(r.body?.error?.code).toBe(-32602);
    expect(r.body?.error?.message).toStartWith('failed to deserialize solana_transaction::versioned::VersionedTransaction');
    const bad58 = await rawRpc(sb.url, 'sendTransaction', ['0OIl']);
    expect(bad58.body?.error?.code).toBe(-32602);
    expect(bad58.body?.error?.message).toStartWith('invalid base58 encoding');
  });
});

describe('tokens', () => {
  let mint: Address;
  let sig: Signature;
  beforeAll(async () => {
    mint = await sb.createMint({ authority: alice, decimals: 6 });
    await sb.mintTo(mint, alice, alice.address, 1_000_000_000n);
    sig = await sb.transferToken(mint, alice, bob.address, 250_500_000n);
  });

  test('transferChecked records pre/post token balances like mainnet', async () => {
    const tx = await getTx(sig);
    const ref = fixture<any>('getTransaction', 'spl-usdc-transfer-create-ata-gem.json');
    expect(tx.meta.preTokenBalances).toHaveLength(1);
    expect(tx.meta.postTokenBalances).toHaveLength(2);
    expect(keys(tx.meta.postTokenBalances[0])).toEqual(keys(ref.meta.postTokenBalances[0]));
    expect(keys(tx.meta.postTokenBalances[0]!.uiTokenAmount)).toEqual(keys(ref.meta.postTokenBalances[0].uiTokenAmount));
    const byOwner = Object.fromEntries(tx.meta.postTokenBalances.map((b) => [b.owner as string, b]));
    expect(byOwner[bob.address]).toMatchObject({ mint, programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', uiTokenAmount: { amount: '250500000', decimals: 6, uiAmount: 250.5, uiAmountString: '250.5' } });
    expect(byOwner[alice.address]).toMatchObject({ uiTokenAmount: { amount: '749500000', uiAmountString: '749.5' } });
    expect(tx.meta.preTokenBalances[0]).toMatchObject({ owner: alice.address, uiTokenAmount: { amount: '1000000000', uiAmount: 1000 } });
    // ATA creation shows up as inner instructions of instruction 0
    expect(tx.meta.innerInstructions[0]!.index).toBe(0);
    expect(keys(tx.meta.innerInstructions[0]!.instructions[0])).toEqual(keys(ref.meta.innerInstructions[0].instructions[0]));
    expect(sum(tx.meta.preBalances) - sum(tx.meta.postBalances)).toBe(tx.meta.fee);
  });

  test('jsonParsed transferChecked and token accounts by owner', async () => {
    const parsed = await rawResult<any>(sb.url, 'getTransaction', [sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    const transfer = parsed.transaction.message.instructions[1];
    expect(transfer).toMatchObject({ program: 'spl-token', parsed: { type: 'transferChecked', info: { mint, authority: alice.address } } });
    expect(transfer.parsed.info.tokenAmount).toEqual({ uiAmount: 250.5, decimals: 6, amount: '250500000', uiAmountString: '250.5' });
    const inner = parsed.meta.innerInstructions[0].instructions.map((i: any) => i.parsed?.type);
    expect(inner).toEqual(['getAccountDataSize', 'createAccount', 'initializeImmutableOwner', 'initializeAccount3']);

    const { value } = await rpc.getTokenAccountsByOwner(bob.address, { mint }, { encoding: 'jsonParsed' }).send();
    const ref = fixture<any>('getTokenAccountsByOwner');
    expect(value).toHaveLength(1);
    expect(keys(value[0])).toEqual(keys(ref.value[0]));
    expect(keys(value[0]!.account)).toEqual(keys(ref.value[0].account));
    expect(keys(value[0]!.account.data)).toEqual(keys(ref.value[0].account.data));
    expect(keys(value[0]!.account.data.parsed.info)).toEqual(keys(ref.value[0].account.data.parsed.info));
    expect(value[0]!.account.data.parsed.info.tokenAmount as unknown).toEqual({ amount: '250500000', decimals: 6, uiAmount: 250.5, uiAmountString: '250.5' });
    expect((value[0]!.account as unknown as { rentEpoch: bigint }).rentEpoch).toBe(18446744073709551615n);
  });
});

describe('v0 features', () => {
  test('address lookup tables: loadedAddresses, balances over all keys, lookupTable source in jsonParsed', async () => {
    const carol = await generateKeyPairSigner();
    const dave = await generateKeyPairSigner();
    const table = (await generateKeyPairSigner()).address;
    // An active lookup table (LookupTableMeta: type 1, deactivation_slot u64::MAX, authority alice) holding carol and dave.
    const data = new Uint8Array(56 + 64);
    const view = new DataView(data.buffer);
    view.setUint32(0, 1, true);
    view.setBigUint64(4, 2n ** 64n - 1n, true);
    data[21] = 1;
    data.set(getAddressEncoder().encode(alice.address), 22);
    data.set(getAddressEncoder().encode(carol.address), 56);
    data.set(getAddressEncoder().encode(dave.address), 88);
    sb.svm.setAccount({ address: table, data, executable: false, lamports: lamports(10_000_000n), programAddress: address('AddressLookupTab1e1111111111111111111111111'), space: BigInt(data.length) });

    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = compressTransactionMessageUsingAddressLookupTables(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(alice, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) =>
          appendTransactionMessageInstructions(
            [
              getTransferSolInstruction({ source: alice, destination: carol.address, amount: 1_000_000n }),
              getTransferSolInstruction({ source: alice, destination: dave.address, amount: 2_000_000n }),
            ],
            m,
          ),
      ),
      { [table]: [carol.address, dave.address] },
    );
    const tx = await signTransactionMessageWithSigners(message);
    const sig = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send();

    const got = await rawResult<any>(sb.url, 'getTransaction', [sig, { maxSupportedTransactionVersion: 0 }]);
    const [lookup] = got.transaction.message.addressTableLookups;
    expect(lookup.accountKey).toBe(table);
    expect([...lookup.writableIndexes].sort()).toEqual([0, 1]);
    expect(lookup.readonlyIndexes).toEqual([]);
    const inTable = [carol.address, dave.address];
    const loaded = lookup.writableIndexes.map((i: number) => inTable[i]);
    expect(got.meta.loadedAddresses).toEqual({ writable: loaded, readonly: [] });
    const n = got.transaction.message.accountKeys.length + 2;
    expect(got.meta.preBalances).toHaveLength(n);
    const amounts: Record<string, number> = { [carol.address]: 1_000_000, [dave.address]: 2_000_000 };
    expect(got.meta.postBalances.slice(-2)).toEqual(loaded.map((a: string) => amounts[a]));
    const ref = fixture<any>('getTransaction', 'jupiter-v6-sharedroute-sol-usdt-dlmm-solfi-gem.json');
    expect(keys(got.transaction.message.addressTableLookups[0])).toEqual(keys(ref.transaction.message.addressTableLookups[0]));
    const parsed = await rawResult<any>(sb.url, 'getTransaction', [sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    expect(parsed.transaction.message.accountKeys.slice(-2)).toEqual(
      loaded.map((pubkey: string) => ({ pubkey, writable: true, signer: false, source: 'lookupTable' })),
    );
    const history = await rpc.getSignaturesForAddress(dave.address).send();
    expect(history.map((h) => h.signature)).toEqual([sig]);
  });

  test('durable nonce transactions land without a recent blockhash', async () => {
    const nonceAccount = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(80n).send();
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const setup = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(alice, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) =>
          appendTransactionMessageInstructions(
            [
              getCreateAccountInstruction({ payer: alice, newAccount: nonceAccount, lamports: rent, space: 80, programAddress: address('11111111111111111111111111111111') }),
              getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: alice.address }),
            ],
            m,
          ),
      ),
    );
    expect((await sb.send(setup)).err).toBeNull();
    const info = await rpc.getAccountInfo(nonceAccount.address, { encoding: 'base64' }).send();
    const nonce = getBase58Decoder().decode(Buffer.from(info.value!.data[0], 'base64').subarray(40, 72)) as Nonce;
    expect((await rpc.isBlockhashValid(nonce as unknown as Blockhash).send()).value).toBe(false);
    const tx = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(alice, m),
        (m) => setTransactionMessageLifetimeUsingDurableNonce({ nonce, nonceAccountAddress: nonceAccount.address, nonceAuthorityAddress: alice.address }, m),
        (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: alice, destination: bob.address, amount: 4_242n })], m),
      ),
    );
    const { err, signature } = await sb.send(tx);
    expect(err).toBeNull();
    const got = await rawResult<any>(sb.url, 'getTransaction', [signature, { maxSupportedTransactionVersion: 0 }]);
    expect(got.transaction.message.recentBlockhash).toBe(nonce);
  });
});

describe('legacy transactions and fee queries', () => {
  test('legacy: no `version` unless maxSupportedTransactionVersion is sent, then "legacy"', async () => {
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(alice, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: alice, destination: bob.address, amount: 9_999n })], m),
    );
    const feeQuote = await rpc.getFeeForMessage(getBase64EncodedMessage(message)).send();
    const { signature } = await sb.send(await signTransactionMessageWithSigners(message));
    const bare = await rawResult<any>(sb.url, 'getTransaction', [signature]);
    expect('version' in bare).toBe(false);
    expect(bare.transaction.message.addressTableLookups).toBeUndefined();
    expect(bare.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    const versioned = await rawResult<any>(sb.url, 'getTransaction', [signature, { maxSupportedTransactionVersion: 0 }]);
    expect(versioned.version).toBe('legacy');
    expect(BigInt(feeQuote.value!)).toBe(BigInt(versioned.meta.fee));
  });

  test('getTransaction refuses commitment processed like mainnet', async () => {
    const [latest] = await rpc.getSignaturesForAddress(alice.address, { limit: 1 }).send();
    const r = await rawRpc(sb.url, 'getTransaction', [latest!.signature, { commitment: 'processed', maxSupportedTransactionVersion: 0 }]);
    expect(r.body?.error).toEqual({ code: -32602, message: 'Method does not support commitment below `confirmed`' });
  });
});

describe('blockhash expiry', () => {
  test('a blockhash is valid for 150 blocks, then sendTransaction reports BlockhashNotFound', async () => {
    const { value: old } = await rpc.getLatestBlockhash().send();
    const tx = await buildTx(alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 151n + 1_000_000n })], old.blockhash);
    const filler = await sb.newWallet(1_000_000_000n);
    while ((await rpc.getBlockHeight().send()) < old.lastValidBlockHeight) await sb.transferSol(filler, bob.address, 1_000n);
    expect(await rpc.getBlockHeight().send()).toBe(old.lastValidBlockHeight);
    expect((await rpc.isBlockhashValid(old.blockhash).send()).value).toBe(true);
    await sb.transferSol(filler, bob.address, 1_000n);
    expect((await rpc.isBlockhashValid(old.blockhash).send()).value).toBe(false);
    const r = await rawRpc(sb.url, 'sendTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64' }]);
    expect(r.body?.error?.message).toBe('Transaction simulation failed: Blockhash not found');
    // skipPreflight: the RPC returns the signature (as mainnet does) but the transaction never lands
    const slot = await rpc.getSlot().send();
    expect(await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: true }).send()).toBe(getSignatureFromTransaction(tx));
    expect(await rpc.getSlot().send()).toBe(slot);
    expect((await rpc.getSignatureStatuses([getSignatureFromTransaction(tx)]).send()).value[0]).toBeNull();
  });
});
