import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { parseJson } from '../../src/json';
import { TransactionFormatError, normalizeTransaction, programIdsFromLogs } from '../../src/chain/tx/normalize';

const ROOT = join(import.meta.dir, '../fixtures/mainnet');

async function fixture(file: string): Promise<any> {
  return parseJson(await Bun.file(join(ROOT, file)).text());
}

/** Every integer as a bigint, as parseJson would hand over values above 2^53. */
function bigints(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(bigints);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bigints(v)]));
  return value;
}

describe('base64 wire transactions', () => {
  test('v0: decodes the message with kit and appends loaded addresses (writable, then readonly)', async () => {
    const raw = await fixture('getTransaction/jupiter-v6-route-sol-usdc-base64-sava.json');
    const tx = normalizeTransaction(raw);
    expect(tx.encoding).toBe('base64');
    expect(tx.version).toBe(0);
    // the transaction id SOURCES.md recovered from the signed bytes
    expect(tx.signatures[0]).toBe('494hTE5gUFKQ3tLkn8nwCNv8zyj7kSshU4FcEhta3916ShJNkvn7mkD8PD2pCtbMhzBfxkokpaNJLKs8g8L2PLMu');
    expect(tx.accountKeys.length).toBe(raw.meta.preBalances.length);
    const loaded = [...raw.meta.loadedAddresses.writable, ...raw.meta.loadedAddresses.readonly];
    expect(tx.accountKeys.slice(-loaded.length)).toEqual(loaded);
    expect(tx.instructions.map((ix) => ix.programId)).toContain('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
    // the PancakeSwap CLMM id only exists in the lookup table; it resolves through the loaded addresses
    expect(tx.innerInstructions?.map((ix) => ix.programId)).toContain('HpNfyc2Saw7RKkQd8nEL4khUcuPhQ7WwY1B2qjx8jxFq');
  });

  test('legacy: System transfer data survives decoding', async () => {
    const tx = normalizeTransaction(await fixture('getTransaction/sol-transfer-base64-encoding-solrpc-canister.json'));
    expect(tx.version).toBe('legacy');
    expect(tx.signatures[0]).toBe('KbYRTmvx4uz3xuRRGNdKyt1jBngz2TjLp9nPebT4h3LQzAG7BfYrd5pSU2xDT7dVg3EXXbZugH8XbKwiGU7Jqzw');
    const transfer = tx.instructions.find((ix) => ix.programId === '11111111111111111111111111111111')!;
    expect([...transfer.data!]).toEqual([2, 0, 0, 0, 232, 3, 0, 0, 0, 0, 0, 0]); // 1000 lamports
    expect(transfer.accounts).toEqual(['px1rbjiEWwwcq1epXSsTMJERyQy7h4vg4VopqFz2HwH', '3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT']);
  });

  test('the base58 wire form decodes to the same transaction', async () => {
    const { base58 } = await import('@scure/base');
    const { getBase64Encoder } = await import('@solana/kit');
    const raw = await fixture('getTransaction/failed-raydium-amm-v4-swap-slippage-custom30-bloxroute-base64-sava.json');
    const asBase58 = { ...raw, transaction: [base58.encode(new Uint8Array(getBase64Encoder().encode(raw.transaction[0]))), 'base58'] };
    const a = normalizeTransaction(raw);
    const b = normalizeTransaction(asBase58);
    expect(b.encoding).toBe('base58');
    expect(b.accountKeys).toEqual(a.accountKeys);
    expect(b.instructions.map((ix) => ix.programId)).toEqual(a.instructions.map((ix) => ix.programId));
  });

  test('undecodable bytes are a TransactionFormatError', async () => {
    const raw = await fixture('getTransaction/sol-transfer-base64-encoding-solrpc-canister.json');
    expect(() => normalizeTransaction({ ...raw, transaction: ['AAAA', 'base64'] })).toThrow(TransactionFormatError);
    expect(() => normalizeTransaction({ ...raw, transaction: ['AAAA', 'base32'] })).toThrow(/unsupported transaction encoding/);
  });
});

describe('json and jsonParsed', () => {
  test('json v0: static keys + loaded writable + loaded readonly, in that order', async () => {
    const raw = await fixture('getTransaction/jupiter-v6-route-sol-to-pump-token-raydium-jeffro-1.json');
    const tx = normalizeTransaction(raw);
    expect(tx.encoding).toBe('json');
    expect(tx.accountKeys).toEqual([
      ...raw.transaction.message.accountKeys,
      ...raw.meta.loadedAddresses.writable,
      ...raw.meta.loadedAddresses.readonly,
    ]);
    expect(tx.accountKeys.length).toBe(raw.meta.preBalances.length);
  });

  test('jsonParsed: account keys already hold lookup-table keys and are not doubled', async () => {
    const raw = await fixture('getTransaction-jsonParsed/jupiter-v6-sharedroute-usdc-sol-meteora-dlmm-jsonparsed-solbot.json');
    const tx = normalizeTransaction(raw);
    expect(tx.encoding).toBe('jsonParsed');
    expect(tx.accountKeys.length).toBe(raw.meta.preBalances.length);
    expect(tx.feePayer).toBe('AmDp48FLbRN76uQHG9rEjozoc28TJNcVGrvDEJvDuWBa');
    expect(tx.instructions.map((ix) => ix.parsed?.type ?? null)).toEqual([null, 'createIdempotent', null, 'closeAccount', 'transfer']);
    expect(tx.instructions[2]!.programId).toBe('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
    expect(tx.instructions[2]!.data?.length).toBeGreaterThan(8); // partially decoded: base58 data kept
  });

  test('inner instructions keep the top-level index they ran under', async () => {
    const tx = normalizeTransaction(await fixture('getTransaction/okx-router-pumpswap-buy-agavesim.json'));
    const pumpSwap = tx.innerInstructions!.filter((ix) => ix.programId === 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA');
    expect(pumpSwap.length).toBeGreaterThan(0);
    for (const ix of pumpSwap) {
      expect(tx.instructions[ix.topLevelIndex]!.programId).toBe('6m2CDdhRgxpH4WjvdzxAYbGxwdGUz5MziiL5jek2kBma');
      expect(ix.stackHeight).toBeGreaterThanOrEqual(2);
    }
  });

  test('integers as numbers or as bigints normalize identically', async () => {
    for (const file of [
      'getTransaction/pumpfun-buy-jeffro-1.json',
      'getTransaction/failed-raydium-amm-v4-swap-slippage-custom30-bloxroute-base64-sava.json',
      'getTransaction/spl-usdc-transfer-create-ata-gem.json',
    ]) {
      const raw = await fixture(file);
      // meta.err (like jsonParsed `info`) is kept as the node sent it and read where used: compare the rest
      expect({ ...normalizeTransaction(bigints(raw)), err: null }).toEqual({ ...normalizeTransaction(raw), err: null });
    }
  });

  test('token balances become bigints with their account address, including amounts above 2^53', async () => {
    const tx = normalizeTransaction(await fixture('getTransaction/failed-raydium-amm-v4-swap-slippage-custom30-bloxroute-base64-sava.json'));
    const pool = tx.preTokenBalances.find((b) => b.accountIndex === 4)!;
    expect(pool.amount).toBe(3_393_843_850_625_123_817n);
    expect(pool.account).toBe(tx.accountKeys[4]!);
    expect(pool.owner).toBe('5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1');
  });

  test('old nodes: no version, no loadedAddresses, no inner instruction stack heights', async () => {
    const tx = normalizeTransaction(await fixture('getTransaction/failed-01exchange-cancel-perp-order-streamingfast.json'));
    expect(tx.version).toBe('legacy');
    expect(tx.err).toEqual({ InstructionError: [0, { Custom: 41 }] });
    expect(tx.computeUnitsConsumed).toBeNull();
    expect(tx.invokedProgramIds).toEqual(['Zo1ggzTUKMY5bYnDvT5mtVeZxzf2FaLTbKkmvGUhUQk', 'ZDx8a8jBqGmJyxi1whFxxCo5vG6Q9t4hTzW2GSixMKK']);
  });
});

describe('invoked programs and bad input', () => {
  test('only runtime "Program <id> invoke [n]" lines count, not program-printed text', () => {
    expect(
      programIdsFromLogs([
        'Program JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4 invoke [1]',
        'Program log: Program 6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P invoke [2]',
        'Program log: Instruction: Buy (pump.fun)',
        'Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 invoke [2]',
        'Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 success',
        'Program data: UHJvZ3JhbSA2RUY4 invoke [1]',
      ]),
    ).toEqual(['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8']);
  });

  test('null (not found) and non-results are rejected with a clear error', async () => {
    expect(() => normalizeTransaction(null)).toThrow(/not found/);
    expect(() => normalizeTransaction('nope')).toThrow(TransactionFormatError);
    const raw = await fixture('getTransaction/sol-transfer-gem-1.json');
    expect(() => normalizeTransaction({ ...raw, meta: null })).toThrow(/meta/);
    expect(() => normalizeTransaction({ ...raw, slot: 1.5 })).toThrow(/slot/);
    const badIndex = structuredClone(raw);
    badIndex.transaction.message.instructions[0].programIdIndex = 99;
    expect(() => normalizeTransaction(badIndex)).toThrow(/outside the 3 account keys/);
  });
});
