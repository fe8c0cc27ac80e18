// The recorded mainnet responses that are not transactions or mints: preflight errors, signature
// lists, signature statuses and simulations, through the pure functions the capabilities answer with.
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeTransactionError } from '../../src/chain/tx/errors.ts';
import { signatureEntry, type SignatureInfo } from '../../src/capabilities/transactions.ts';
import { simulationBody } from '../../src/capabilities/simulate.ts';

const fixture = (path: string) => JSON.parse(readFileSync(join(import.meta.dir, '../fixtures/mainnet', path), 'utf8'));

describe('sendTransaction preflight errors name the failing program and its error', () => {
  test.each([
    ['jupiter-route-slippage-6001-gem.json', 3, 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', 6001, 'SlippageToleranceExceeded'],
    ['jupiter-slippage-6001-mixin.json', 3, 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', 6001, 'SlippageToleranceExceeded'],
    ['raydium-v4-insufficient-funds-0x28-mixin.json', 4, '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', 40, 'InsufficientFunds'],
  ])('%s', (file, index, program, code, name) => {
    const e = fixture(`sendTransaction-preflight-error/${file}`);
    const info = describeTransactionError(e.data.err, { logs: e.data.logs })!;
    expect(info).toMatchObject({ instructionIndex: index, failedProgramId: program, customCode: code, name });
    expect(info.message).toContain(`0x${code.toString(16)}`);
    expect(info.message).toContain(name);
  });
});

describe('getSignaturesForAddress entries keep the node fields and add a readable error', () => {
  test('InsufficientFundsForRent in object form, with the account index', () => {
    const list: SignatureInfo[] = fixture('getSignaturesForAddress/ten-sigs-insufficient-funds-for-rent-errors-sava.json');
    const entries = list.map(signatureEntry);
    expect(entries.filter((e) => e.err === null).every((e) => e.error === null)).toBe(true);
    for (const e of entries.filter((e) => e.err !== null)) expect(e.error?.raw).toEqual(e.err);
    const failed = entries.filter((e) => e.err !== null);
    expect(failed).toHaveLength(7);
    expect(failed[0]!.error?.message).toBe('transaction rejected: insufficient funds for rent (InsufficientFundsForRent, account index 1)');
    expect(failed.at(-1)!.error?.message).toContain('account index 0');
    expect(entries[1]).toMatchObject({ signature: list[1]!.signature, slot: 275181771, blockTime: 1719891284, memo: null, confirmationStatus: 'finalized' });
  });

  test('a custom error without logs is named by code only (no program to attribute it to)', () => {
    const entries = (fixture('getSignaturesForAddress/five-sigs-one-failed-solrpc-canister.json') as SignatureInfo[]).map(signatureEntry);
    expect(entries.map((e) => e.error?.message ?? null)).toEqual([null, null, null, null, 'instruction 3 failed: custom program error 0x1771 (6001)']);
    expect(entries[4]!.error).toMatchObject({ instructionIndex: 3, programId: null, customCode: 6001 });
  });

  test('a null blockTime stays null', () => {
    const entries = (fixture('getSignaturesForAddress/three-sigs-one-null-blocktime-sava.json') as SignatureInfo[]).map(signatureEntry);
    expect(entries[0]!.blockTime).toBeNull();
    expect(entries.every((e) => e.error === null)).toBe(true);
  });
});

test('getSignatureStatuses error: instruction and code', () => {
  const status = fixture('getSignatureStatuses/one-failed-custom3012-sava.json').value[0];
  expect(describeTransactionError(status.err)).toMatchObject({ instructionIndex: 2, customCode: 3012, message: 'custom program error 0xbc4 (3012)' });
});

describe('simulateTransaction results', () => {
  test('a successful SPL transfer: success, logs, units, replacement blockhash', () => {
    const body = simulationBody(fixture('simulateTransaction/spl-token-transfer-success-replacement-blockhash-metamask.json').value);
    expect(body).toMatchObject({ success: true, err: null, error: null, unitsConsumed: 4794, returnData: null, fee: null });
    expect(body.logs[1]).toBe('Program log: Instruction: Transfer');
    expect(body.replacementBlockhash).toEqual({ blockhash: '2xWVC3snr4U29m8Rhio9HMmPaYNAQPrRn1bXjB1BJFuM', lastValidBlockHeight: 296475563 });
  });

  test('a transfer from a missing account (newest RPC shape with fee): failure explained', () => {
    const body = simulationBody(fixture('simulateTransaction/system-transfer-missing-account-with-fee-and-balances-sava.json').value);
    expect(body).toMatchObject({ success: false, err: { InstructionError: [0, 'MissingAccount'] }, fee: 5000, unitsConsumed: 150 });
    // decode-tx's error object: located at its instruction, the program that raised it from the logs, the node's error as sent
    expect(body.error).toEqual({
      message: 'instruction 0 failed: missing account (MissingAccount), raised by System Program',
      instructionIndex: 0,
      programId: null,
      failedProgramId: '11111111111111111111111111111111',
      customCode: null,
      name: 'MissingAccount',
      raw: { InstructionError: [0, 'MissingAccount'] },
    });
  });
});
