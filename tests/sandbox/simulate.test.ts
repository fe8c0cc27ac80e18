// simulateTransaction and getRecentPrioritizationFees.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { fixture, keys, rawResult, rawRpc, signedTransaction } from '../support/sandbox/testing.ts';

let sb: Sandbox;
let rpc: ReturnType<typeof createSolanaRpc>;
let alice: KeyPairSigner;
let bob: KeyPairSigner;

beforeAll(async () => {
  sb = await startSandbox();
  rpc = createSolanaRpc(sb.url);
  alice = await sb.newWallet();
  bob = await sb.newWallet(1_000_000_000n);
});
afterAll(() => sb.stop());

const signed = (ixs: Instruction[], payer = alice) => signedTransaction(sb.url, payer, ixs);

describe('simulateTransaction', () => {
  test('a good transaction: mainnet shape, balances, fee, and no state change', async () => {
    const tx = await signed([getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1_000_000n })]);
    const slot = await rpc.getSlot().send();
    const balance = (await rpc.getBalance(alice.address).send()).value;
    const r = await rawResult<any>(sb.url, 'simulateTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64', replaceRecentBlockhash: true }]);
    const ref = fixture<any>('simulateTransaction', 'system-transfer-missing-account-with-fee-and-balances-sava.json');
    expect(keys(r)).toEqual(keys(ref));
    expect(keys(r.value)).toEqual(keys(ref.value));
    expect(keys(r.value.replacementBlockhash)).toEqual(keys(ref.value.replacementBlockhash));
    expect(r.value).toMatchObject({ err: null, accounts: null, innerInstructions: null, returnData: null, unitsConsumed: 150, fee: 5000 });
    expect(r.value.logs).toEqual(['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);
    expect(BigInt(r.value.preBalances[0]) - BigInt(r.value.postBalances[0])).toBe(1_005_000n);
    expect(BigInt(r.value.postBalances[1]) - BigInt(r.value.preBalances[1])).toBe(1_000_000n);
    expect(r.value.replacementBlockhash.blockhash).toBe((await rpc.getLatestBlockhash().send()).value.blockhash);
    expect(await rpc.getSlot().send()).toBe(slot);
    expect((await rpc.getBalance(alice.address).send()).value).toBe(balance);
    // simulating does not "use up" the transaction: it still lands afterwards
    expect((await sb.send(tx)).err).toBeNull();
  });

  test('a failing transaction reports err, logs and the fee it would be charged, without changing state', async () => {
    const tx = await signed([getTransferSolInstruction({ source: alice, destination: bob.address, amount: 10n ** 15n })]);
    const balance = (await rpc.getBalance(alice.address).send()).value;
    const r = await rpc.simulateTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send();
    expect(r.value.err).toEqual({ InstructionError: [0n, { Custom: 1n }] } as never);
    expect(r.value.logs!.at(-1)).toBe('Program 11111111111111111111111111111111 failed: custom program error: 0x1');
    const raw = await rawResult<any>(sb.url, 'simulateTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64' }]);
    expect(raw.value.fee).toBe(5000);
    expect(BigInt(raw.value.preBalances[0]) - BigInt(raw.value.postBalances[0])).toBe(5000n);
    expect(raw.value.replacementBlockhash).toBeNull();
    expect((await rpc.getBalance(alice.address).send()).value).toBe(balance);
  });

  test('an unsigned transaction simulates with sigVerify off; sigVerify + replaceRecentBlockhash is refused', async () => {
    const { value } = await rpc.getLatestBlockhash().send();
    const unsigned = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(bob.address, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(value, m),
        (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: bob, destination: alice.address, amount: 5n + 1_000_000n })], m),
      ),
    );
    const wire = getBase64EncodedWireTransaction(unsigned);
    const ok = await rawResult<any>(sb.url, 'simulateTransaction', [wire, { encoding: 'base64' }]);
    expect(ok.value.err).toBeNull();
    const verify = await rawRpc(sb.url, 'simulateTransaction', [wire, { encoding: 'base64', sigVerify: true }]);
    expect(verify.body?.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    const both = await rawRpc(sb.url, 'simulateTransaction', [wire, { encoding: 'base64', sigVerify: true, replaceRecentBlockhash: true }]);
    expect(both.body?.error).toEqual({ code: -32602, message: 'sigVerify may not be used with replaceRecentBlockhash' });
    const garbage = await rawRpc(sb.url, 'simulateTransaction', ['AAAA', { encoding: 'base64' }]);
    expect(garbage.body?.error?.code).toBe(-32602);
  });

  test('innerInstructions and post-simulation accounts on request', async () => {
    const mint = await sb.createMint({ authority: alice, decimals: 0 });
    const tx = await signed([getTransferSolInstruction({ source: alice, destination: bob.address, amount: 42n })]);
    const r = await rawResult<any>(sb.url, 'simulateTransaction', [
      getBase64EncodedWireTransaction(tx),
      { encoding: 'base64', innerInstructions: true, accounts: { addresses: [bob.address, mint], encoding: 'jsonParsed' } },
    ]);
    expect(r.value.innerInstructions).toEqual([]);
    expect(r.value.accounts).toHaveLength(2);
    expect(BigInt(r.value.accounts[0].lamports)).toBe((await rpc.getBalance(bob.address).send()).value + 42n);
    expect(r.value.accounts[1].data.parsed.type).toBe('mint');
  });
});

describe('getRecentPrioritizationFees', () => {
  test('150 ascending slots ending at the current slot, showing a transaction\'s compute-unit price', async () => {
    const sig = await sb.transferSol(alice, bob.address, 1_000n, { computeUnitPrice: 123_456n });
    const tx = await rpc.getTransaction(sig, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    const fees = await rawResult<{ slot: number; prioritizationFee: number }[]>(sb.url, 'getRecentPrioritizationFees', []);
    const ref = fixture<any[]>('getRecentPrioritizationFees');
    expect(fees).toHaveLength(150);
    expect(keys(fees[0])).toEqual(keys(ref[0]));
    expect(fees.at(-1)!.slot).toBe(Number(await rpc.getSlot().send()));
    expect(fees.every((f, i) => i === 0 || f.slot === fees[i - 1]!.slot + 1)).toBe(true);
    expect(fees.find((f) => f.slot === Number(tx!.slot))!.prioritizationFee).toBe(123_456);
    expect(fees.filter((f) => f.prioritizationFee !== 0)).toHaveLength(1);
    // the fee actually charged is 5000 + ceil(price * limit / 1e6); limit = 2 builtins x 3000 CUs
    expect(BigInt(tx!.meta!.fee)).toBe(5000n + (123_456n * 6_000n + 999_999n) / 1_000_000n);
    const forBob = await rpc.getRecentPrioritizationFees([bob.address]).send();
    expect(forBob.find((f) => f.slot === tx!.slot)!.prioritizationFee).toBe(123_456n as never);
    const tooMany = await rawRpc(sb.url, 'getRecentPrioritizationFees', [Array(129).fill(bob.address)]);
    expect(tooMany.body?.error).toEqual({ code: -32602, message: 'Too many inputs provided; max 128' });
  });

  test('an explicit compute-unit limit drives the priority fee; failed transactions pay it too', async () => {
    const poor = await sb.newWallet(10_000_000n);
    const tx = await signed(
      [
        getSetComputeUnitLimitInstruction({ units: 50_000 }),
        getSetComputeUnitPriceInstruction({ microLamports: 1_000_000n }),
        getTransferSolInstruction({ source: poor, destination: bob.address, amount: 10n ** 12n }),
      ],
      poor,
    );
    const { signature, err } = await sb.send(tx, { skipPreflight: true });
    expect(err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    const got = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    expect(BigInt(got!.meta!.fee)).toBe(5000n + 50_000n);
    expect(BigInt((await rpc.getBalance(poor.address).send()).value)).toBe(10_000_000n - 55_000n);
    const sum = (xs: readonly bigint[]) => xs.reduce((a, b) => a + b, 0n);
    expect(sum(got!.meta!.preBalances) - sum(got!.meta!.postBalances)).toBe(got!.meta!.fee);
  });
});
