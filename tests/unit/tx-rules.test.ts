// Classification precedence, balance arithmetic and summaries on small hand-built getTransaction results.

import { describe, expect, test } from 'bun:test';
import { base58 } from '@scure/base';
import { VENUES, WRAPPED_SOL_MINT } from '../../src/chain/program-ids';
import { balanceChangesFor } from '../../src/chain/tx/changes';
import { classifyTransaction } from '../../src/chain/tx/classify';
import { describeTransaction } from '../../src/chain/tx/describe';
import { normalizeTransaction } from '../../src/chain/tx/normalize';
import { payerChanges } from '../support/decoded.ts';

// ---- builder ------------------------------------------------------------------------------------

const SYSTEM = '11111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const ATA = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const JUPITER = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
const RAYDIUM_V4 = '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8';
const PUMP_FUN = '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P';
const PUMP_SWAP = 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const RENT = 2_039_280n;

/** A deterministic 32-byte address. */
function addr(seed: number): string {
  return base58.encode(Uint8Array.from({ length: 32 }, (_, i) => (seed * 37 + i * 11 + 1) % 256));
}
const PAYER = addr(1);
const ALICE = addr(2);
const POOL = addr(3);
const PAYER_USDC = addr(4);
const PAYER_WSOL = addr(5);
const POOL_USDC = addr(6);
const POOL_WSOL = addr(7);
const ALICE_USDC = addr(8);
const UNKNOWN_PROGRAM = addr(9);
const MEME_MINT = addr(10);
const PAYER_MEME = addr(11);

function u64(n: bigint): number[] {
  return Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
}
const systemTransfer = (lamports: bigint) => Uint8Array.from([2, 0, 0, 0, ...u64(lamports)]);
const systemCreateAccount = (lamports: bigint) => Uint8Array.from([0, 0, 0, 0, ...u64(lamports), ...u64(165n), ...new Array(32).fill(6)]);
const transferChecked = (amount: bigint, decimals: number) => Uint8Array.from([12, ...u64(amount), decimals]);
const transferCheckedWithFee = (amount: bigint, decimals: number, fee: bigint) =>
  Uint8Array.from([26, 1, ...u64(amount), decimals, ...u64(fee)]);
const opaque = Uint8Array.from([229, 23, 203, 151, 122, 227, 173, 42]);

interface Ix {
  program: string;
  accounts?: string[];
  data?: Uint8Array;
}

interface Spec {
  instructions: Ix[];
  /** Inner instructions per top-level index; null = the node returned none (old RPC). */
  inner?: Record<number, Ix[]> | null;
  /** Explicit log lines; default: runtime invoke/success lines for every instruction. null = no logs. */
  logs?: string[] | null;
  /** Lamports [pre, post] per address. Accounts not listed hold 0 (programs 1) throughout. */
  lamports?: Record<string, [bigint, bigint]>;
  tokens?: { account: string; mint: string; owner: string; decimals: number; pre?: bigint; post?: bigint }[];
  fee?: bigint;
  err?: unknown;
  loaded?: { writable: string[]; readonly: string[] };
  blockTime?: number | null;
  /** Emit every integer as a bigint (what parseJson does above 2^53). */
  bigintIntegers?: boolean;
}

function build(spec: Spec): unknown {
  const keys: string[] = [PAYER];
  const add = (k: string) => {
    if (!keys.includes(k) && !spec.loaded?.writable.includes(k) && !spec.loaded?.readonly.includes(k)) keys.push(k);
  };
  Object.keys(spec.lamports ?? {}).forEach(add);
  spec.tokens?.forEach((t) => add(t.account));
  const allIx = [...spec.instructions, ...Object.values(spec.inner ?? {}).flat()];
  allIx.forEach((ix) => ix.accounts?.forEach(add));
  allIx.forEach((ix) => add(ix.program));
  const all = [...keys, ...(spec.loaded?.writable ?? []), ...(spec.loaded?.readonly ?? [])];
  const index = (k: string) => all.indexOf(k);
  const programs = new Set(allIx.map((ix) => ix.program));
  const n = (v: bigint | number) => (spec.bigintIntegers ? BigInt(v) : Number(v));
  const compiled = (ix: Ix, stackHeight: number | null) => ({
    programIdIndex: n(index(ix.program)),
    accounts: (ix.accounts ?? []).map((a) => n(index(a))),
    data: base58.encode(ix.data ?? new Uint8Array()),
    stackHeight: stackHeight === null ? null : n(stackHeight),
  });
  const defaultLogs = spec.instructions.flatMap((ix, i) => [
    `Program ${ix.program} invoke [1]`,
    ...(spec.inner?.[i] ?? []).flatMap((inner) => [`Program ${inner.program} invoke [2]`, `Program ${inner.program} success`]),
    `Program ${ix.program} success`,
  ]);
  const balances = (which: 0 | 1) =>
    all.map((k) => n(spec.lamports?.[k]?.[which] ?? (programs.has(k) ? 1n : 0n)));
  const tokenBalances = (which: 'pre' | 'post') =>
    (spec.tokens ?? [])
      .filter((t) => t[which] !== undefined)
      .map((t) => ({
        accountIndex: n(index(t.account)),
        mint: t.mint,
        owner: t.owner,
        programId: TOKEN,
        uiTokenAmount: { amount: String(t[which]), decimals: n(t.decimals), uiAmount: null, uiAmountString: 'ignored' },
      }));
  return {
    slot: n(300_000_000),
    blockTime: spec.blockTime === undefined ? n(1_700_000_000) : spec.blockTime,
    version: n(0),
    transaction: {
      signatures: ['hand-built'],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 },
        recentBlockhash: addr(99),
        instructions: spec.instructions.map((ix) => compiled(ix, 1)),
      },
    },
    meta: {
      err: spec.err ?? null,
      status: spec.err ? { Err: spec.err } : { Ok: null },
      fee: n(spec.fee ?? 5000n),
      preBalances: balances(0),
      postBalances: balances(1),
      innerInstructions:
        spec.inner === null
          ? null
          : Object.entries(spec.inner ?? {}).map(([i, ixs]) => ({ index: n(Number(i)), instructions: ixs.map((ix) => compiled(ix, 2)) })),
      logMessages: spec.logs === undefined ? defaultLogs : spec.logs,
      preTokenBalances: tokenBalances('pre'),
      postTokenBalances: tokenBalances('post'),
      loadedAddresses: spec.loaded ?? { writable: [], readonly: [] },
      rewards: [],
    },
  };
}

const describeSpec = (spec: Spec) => describeTransaction(build(spec), { signature: 'sig', network: 'mainnet-beta' });
const classifySpec = (spec: Spec) => classifyTransaction(normalizeTransaction(build(spec)));

/** Payer sends `lamports` to Alice with a System transfer (fee 5000). */
const solTransfer = (lamports: bigint): Spec => ({
  instructions: [{ program: SYSTEM, accounts: [PAYER, ALICE], data: systemTransfer(lamports) }],
  lamports: { [PAYER]: [10_000_000_000n, 10_000_000_000n - lamports - 5000n], [ALICE]: [0n, lamports] },
});

/** Payer buys 1000 USDC from a pool for 1 SOL on `venue` (the pool's wSOL side is another owner's). */
const swapOn = (program: string, inner: Record<number, Ix[]> = {}): Spec => ({
  instructions: [{ program, accounts: [PAYER, POOL], data: opaque }],
  inner,
  lamports: { [PAYER]: [5_000_000_000n, 4_000_000_000n - 5000n], [POOL_WSOL]: [RENT + 50_000_000_000n, RENT + 51_000_000_000n] },
  tokens: [
    { account: PAYER_USDC, mint: USDC, owner: PAYER, decimals: 6, pre: 0n, post: 1_000_000_000n },
    { account: POOL_USDC, mint: USDC, owner: POOL, decimals: 6, pre: 9_000_000_000n, post: 8_000_000_000n },
    { account: POOL_WSOL, mint: WRAPPED_SOL_MINT, owner: POOL, decimals: 9, pre: 50_000_000_000n, post: 51_000_000_000n },
  ],
});

// ---- classification -----------------------------------------------------------------------------

describe('classification precedence', () => {
  test('a launchpad invoked under an aggregator is MemeCoin, venues in invocation order', () => {
    const body = describeSpec(swapOn(JUPITER, { 0: [{ program: PUMP_FUN, data: opaque }] }));
    expect(body.category).toBe('MemeCoin');
    expect(body.categoryFit).toBe('exact');
    expect(body.programs.filter((p) => p.venue !== null).map((p) => p.name)).toEqual(['Jupiter v6', 'Pump.fun']);
    expect(body.summary).toBe('Swapped 1 SOL for 1000 USDC via Jupiter v6 → Pump.fun');
    expect(body.llm_context).toContain('higher risk');
  });

  test('every launchpad venue makes MemeCoin; every aggregator or exchange alone makes Swap', () => {
    for (const venue of VENUES) {
      const cls = classifySpec(swapOn(venue.programId));
      expect([venue.name, cls.category]).toEqual([venue.name, venue.kind === 'launchpad' ? 'MemeCoin' : 'Swap']);
      expect(cls.venues.map((v) => v.programId)).toEqual([venue.programId]);
    }
  });

  test('aggregator routing into an exchange is Swap', () => {
    const body = describeSpec(swapOn(JUPITER, { 0: [{ program: RAYDIUM_V4, data: opaque }] }));
    expect(body.category).toBe('Swap');
    expect(body.summary).toBe('Swapped 1 SOL for 1000 USDC via Jupiter v6 → Raydium AMM v4');
  });

  test('a launchpad seen only in invoke log lines (node returned no inner instructions) still counts', () => {
    const spec = swapOn(JUPITER);
    spec.inner = null;
    spec.logs = [
      `Program ${JUPITER} invoke [1]`,
      `Program ${PUMP_SWAP} invoke [2]`,
      `Program ${PUMP_SWAP} success`,
      `Program ${JUPITER} success`,
    ];
    expect(classifySpec(spec).category).toBe('MemeCoin');
  });

  test('a venue id that is only an account (or a lookup-table address) is not an invocation', () => {
    const spec = solTransfer(1_000_000n);
    spec.instructions[0]!.accounts = [PAYER, ALICE, PUMP_FUN];
    spec.loaded = { writable: [], readonly: [RAYDIUM_V4, JUPITER] };
    const body = describeSpec(spec);
    expect(body.category).toBe('Transfer');
    expect(body.categoryFit).toBe('exact');
    expect(body.programs.filter((p) => p.venue !== null)).toEqual([]);
  });

  test('brand names in logs, without the program id invoked, do not change the category', () => {
    const spec = solTransfer(1_000_000n);
    spec.logs = [
      `Program ${SYSTEM} invoke [1]`,
      'Program log: Instruction: Route',
      'Program log: Jupiter v6 swap via Raydium AMM v4 on pump.fun (PumpSwap, Moonshot, LaunchLab)',
      `Program log: Program ${PUMP_FUN} invoke [1]`,
      `Program ${SYSTEM} success`,
    ];
    const body = describeSpec(spec);
    expect(body.category).toBe('Transfer');
    expect(body.categoryFit).toBe('exact');
    expect(body.programs.filter((p) => p.venue !== null)).toEqual([]);
    expect(body.programs.map((p) => p.programId)).toEqual([SYSTEM]);
  });

  test('a failed transaction keeps the category of what it tried', () => {
    const swap = swapOn(RAYDIUM_V4);
    swap.err = { InstructionError: [0, { Custom: 40 }] };
    swap.lamports = { [PAYER]: [5_000_000_000n, 5_000_000_000n - 5000n] };
    swap.tokens = [];
    const body = describeSpec(swap);
    expect([body.category, body.details.status]).toEqual(['Swap', 'FAILED']);
    expect(body.summary).toBe(
      'Failed: Raydium AMM v4 swap reverted with custom program error 0x28 (40, InsufficientFunds); only the 0.000005 SOL fee was charged',
    );

    const meme = swapOn(JUPITER, { 0: [{ program: PUMP_FUN, data: opaque }] });
    meme.err = { InstructionError: [0, { Custom: 6001 }] };
    const memeBody = describeSpec(meme);
    expect([memeBody.category, memeBody.details.status]).toEqual(['MemeCoin', 'FAILED']);
    expect(memeBody.summary).toStartWith('Failed: Jupiter v6 swap reverted with custom program error 0x1771 (6001, SlippageToleranceExceeded)');
  });
});

describe('plain transfers and the fallback', () => {
  test('System transfer with compute budget and memo is a matched Transfer', () => {
    const spec = solTransfer(1_500_000_000n);
    spec.instructions.unshift({ program: COMPUTE_BUDGET, data: Uint8Array.from([2, 0, 0, 1, 0]) }, { program: MEMO, data: new TextEncoder().encode('hi') });
    const body = describeSpec(spec);
    expect([body.category, body.categoryFit]).toEqual(['Transfer', 'exact']);
    expect(body.summary).toBe(`Sent 1.5 SOL to ${ALICE.slice(0, 6)}…${ALICE.slice(-4)}`);
    expect(payerChanges(body).changes).toEqual([{ asset: 'SOL', symbol: 'SOL', decimals: 9, raw: '-1500000000', amount: '-1.5', counterparty: ALICE }]);
  });

  test('Token-2022 transferCheckedWithFee counts as a token transfer', () => {
    const body = describeSpec({
      instructions: [{ program: TOKEN_2022, accounts: [PAYER_USDC, USDC, ALICE_USDC, PAYER], data: transferCheckedWithFee(5n, 0, 0n) }],
      lamports: { [PAYER]: [1_000_000n, 995_000n] },
      tokens: [
        { account: PAYER_USDC, mint: MEME_MINT, owner: PAYER, decimals: 0, pre: 7n, post: 2n },
        { account: ALICE_USDC, mint: MEME_MINT, owner: ALICE, decimals: 0, pre: 0n, post: 5n },
      ],
    });
    expect([body.category, body.categoryFit]).toEqual(['Transfer', 'exact']);
    expect(body.summary).toBe(`Sent 5 ${MEME_MINT.slice(0, 6)}…${MEME_MINT.slice(-4)} to ${ALICE.slice(0, 6)}…${ALICE.slice(-4)}`);
  });

  test('ATA creation for the recipient + transferChecked: tokens and the rent paid are both said', () => {
    const body = describeSpec({
      instructions: [
        { program: ATA, accounts: [PAYER, ALICE_USDC, ALICE, USDC, SYSTEM, TOKEN], data: Uint8Array.from([1]) },
        { program: TOKEN, accounts: [PAYER_USDC, USDC, ALICE_USDC, PAYER], data: transferChecked(2_500_000n, 6) },
      ],
      inner: { 0: [{ program: SYSTEM, data: systemCreateAccount(RENT) }] },
      lamports: { [PAYER]: [1_000_000_000n, 1_000_000_000n - RENT - 5000n], [PAYER_USDC]: [RENT, RENT], [ALICE_USDC]: [0n, RENT] },
      tokens: [
        { account: PAYER_USDC, mint: USDC, owner: PAYER, decimals: 6, pre: 10_000_000n, post: 7_500_000n },
        { account: ALICE_USDC, mint: USDC, owner: ALICE, decimals: 6, post: 2_500_000n },
      ],
    });
    expect([body.category, body.categoryFit]).toEqual(['Transfer', 'exact']);
    const alice = `${ALICE.slice(0, 6)}…${ALICE.slice(-4)}`;
    expect(body.summary).toBe(`Sent 2.5 USDC to ${alice} and paid 0.00203928 SOL rent to open ${alice}'s token account`);
  });

  test('an unknown program next to a transfer: fine when it made no CPI, fallback when it did', () => {
    const inert = solTransfer(1_000n);
    inert.instructions.unshift({ program: UNKNOWN_PROGRAM, data: opaque });
    const inertBody = describeSpec(inert);
    expect([inertBody.category, inertBody.categoryFit]).toEqual(['Transfer', 'exact']);
    expect(inertBody.summary).toContain('also invoked');

    const active = solTransfer(1_000n);
    active.instructions.unshift({ program: UNKNOWN_PROGRAM, data: opaque });
    active.inner = { 0: [{ program: TOKEN, data: transferChecked(1n, 0) }] };
    const activeBody = describeSpec(active);
    expect([activeBody.category, activeBody.categoryFit]).toEqual(['Transfer', 'nearest']);
    // what its CPI did names it: a token transfer through the unknown program
    expect(activeBody.kind).toBe('transfer');
    expect(activeBody.summary).toEndWith(`through program ${UNKNOWN_PROGRAM.slice(0, 6)}…${UNKNOWN_PROGRAM.slice(-4)}`);

    const unknownInner = solTransfer(1_000n);
    unknownInner.instructions.unshift({ program: UNKNOWN_PROGRAM, data: opaque });
    unknownInner.inner = null; // cannot tell whether it made CPIs: do not assume
    expect(classifySpec(unknownInner).matched).toBe(false);
  });

  test('no transfer instruction at all (e.g. createAccount only) is the fallback', () => {
    const body = describeSpec({
      instructions: [{ program: SYSTEM, accounts: [PAYER, ALICE], data: systemCreateAccount(RENT) }],
      lamports: { [PAYER]: [1_000_000_000n, 1_000_000_000n - RENT - 5000n], [ALICE]: [0n, RENT] },
    });
    expect([body.category, body.categoryFit]).toEqual(['Transfer', 'nearest']);
    expect(body.summary).toStartWith('Account management (System Program create_account): invoked System Program;');
    expect(body.llm_context).toContain('as the nearest of Swap, MemeCoin and Transfer');
  });
});

// ---- balance changes ----------------------------------------------------------------------------

describe('balance changes for the fee payer', () => {
  test("the fee payer's wrapped SOL counts as SOL; a pool's wrapped SOL does not", () => {
    const spec: Spec = {
      instructions: [{ program: RAYDIUM_V4, accounts: [PAYER, POOL], data: opaque }],
      lamports: {
        [PAYER]: [1_000_000_000n, 1_000_000_000n - 5000n], // native SOL untouched apart from the fee
        [PAYER_WSOL]: [RENT + 2_000_000_000n, RENT + 500_000_000n],
        [POOL_WSOL]: [RENT + 9_000_000_000n, RENT + 10_500_000_000n],
      },
      tokens: [
        { account: PAYER_WSOL, mint: WRAPPED_SOL_MINT, owner: PAYER, decimals: 9, pre: 2_000_000_000n, post: 500_000_000n },
        { account: POOL_WSOL, mint: WRAPPED_SOL_MINT, owner: POOL, decimals: 9, pre: 9_000_000_000n, post: 10_500_000_000n },
        { account: PAYER_USDC, mint: USDC, owner: PAYER, decimals: 6, pre: 1n, post: 212_300_001n },
        { account: POOL_USDC, mint: USDC, owner: POOL, decimals: 6, pre: 500_000_000n, post: 287_700_000n },
      ],
    };
    const changes = balanceChangesFor(normalizeTransaction(build(spec)), PAYER);
    expect(changes.solLamports).toBe(-1_500_000_000n);
    expect(changes.tokenAccountRentLamports).toBe(0n);
    expect(changes.changes.map((c) => [c.asset, c.raw])).toEqual([
      ['SOL', -1_500_000_000n],
      [USDC, 212_300_000n],
    ]);
    expect(describeSpec(spec).summary).toBe('Swapped 1.5 SOL for 212.3 USDC via Raydium AMM v4');
  });

  test('rent parked in a new own token account is not part of the SOL spent', () => {
    const spec: Spec = {
      instructions: [{ program: PUMP_FUN, accounts: [PAYER, POOL], data: opaque }],
      lamports: { [PAYER]: [3_000_000_000n, 3_000_000_000n - 1_000_000_000n - RENT - 5000n], [POOL]: [0n, 1_000_000_000n], [PAYER_MEME]: [0n, RENT] },
      tokens: [{ account: PAYER_MEME, mint: MEME_MINT, owner: PAYER, decimals: 6, post: 123_456_789n }],
    };
    const body = describeSpec(spec);
    expect(payerChanges(body).changes.map((c) => c.amount)).toEqual(['-1', '123.456789']);
    expect(payerChanges(body).tokenAccountRentLamports).toBe(Number(RENT));
    expect(body.summary).toContain('Swapped 1 SOL for 123.456789');
    expect(body.summary).toContain('(plus 0.00203928 SOL rent for new token accounts)');
  });

  test('rent recovered from a closed own token account is reported apart from the proceeds', () => {
    const spec: Spec = {
      instructions: [{ program: PUMP_SWAP, accounts: [PAYER, POOL], data: opaque }],
      lamports: { [PAYER]: [1_000_000_000n, 1_000_000_000n + 250_000_000n + RENT - 5000n], [POOL]: [900_000_000n, 650_000_000n], [PAYER_MEME]: [RENT, 0n] },
      tokens: [{ account: PAYER_MEME, mint: MEME_MINT, owner: PAYER, decimals: 6, pre: 5_000_000n }],
    };
    const changes = balanceChangesFor(normalizeTransaction(build(spec)), PAYER);
    expect(changes.solLamports).toBe(250_000_000n);
    expect(changes.tokenAccountRentLamports).toBe(-RENT);
    expect(describeSpec(spec).summary).toBe(
      `Swapped 5 ${MEME_MINT.slice(0, 6)}…${MEME_MINT.slice(-4)} for 0.25 SOL via PumpSwap (plus 0.00203928 SOL rent recovered from closed token accounts)`,
    );
  });

  test('the fee is excluded from the SOL change and stated on its own', () => {
    const spec: Spec = { instructions: [{ program: UNKNOWN_PROGRAM, data: opaque }], lamports: { [PAYER]: [1_000_000n, 995_000n] }, inner: {} };
    const body = describeSpec(spec);
    expect(payerChanges(body).changes).toEqual([]);
    expect(body.details.fee).toBe(5000);
    expect(body.summary).toContain('no balance change for');
    expect(body.summary).toContain('apart from the 0.000005 SOL fee');
  });

  test('exact amounts beyond 2^53, whether integers arrive as numbers or bigints', () => {
    const huge = 2n ** 60n;
    const spec: Spec = {
      instructions: [{ program: TOKEN, accounts: [PAYER_USDC, MEME_MINT, ALICE_USDC, PAYER], data: transferChecked(18_014_398_509_481_985n, 6) }],
      lamports: { [PAYER]: [huge + 5001n, huge] }, // one lamport to Alice on top of the fee
      tokens: [
        { account: PAYER_USDC, mint: MEME_MINT, owner: PAYER, decimals: 6, pre: 27_021_597_764_222_979n, post: 9_007_199_254_740_994n },
        { account: ALICE_USDC, mint: MEME_MINT, owner: ALICE, decimals: 6, pre: 0n, post: 18_014_398_509_481_985n },
      ],
      bigintIntegers: true,
    };
    const body = describeSpec(spec);
    expect(payerChanges(body).changes.map((c) => [c.raw, c.amount])).toEqual([
      ['-1', '-0.000000001'],
      ['-18014398509481985', '-18014398509.481985'],
    ]);
    const asNumbers = describeSpec({ ...spec, lamports: { [PAYER]: [6001n, 1000n] }, bigintIntegers: false });
    expect(payerChanges(asNumbers).changes[1]).toEqual(payerChanges(body).changes[1]!);
  });

  test('counterparty: the single opposite mover, else the one moving exactly the amount, else none', () => {
    const spec: Spec = {
      instructions: [{ program: SYSTEM, accounts: [PAYER, ALICE], data: systemTransfer(7_000n) }],
      lamports: { [PAYER]: [100_000n, 100_000n - 7_000n - 5000n], [ALICE]: [0n, 7_000n], [POOL]: [50n, 60n] },
    };
    expect(balanceChangesFor(normalizeTransaction(build(spec)), PAYER).changes[0]!.counterparty).toBe(ALICE);

    spec.lamports = { [PAYER]: [100_000n, 100_000n - 7_000n - 5000n], [ALICE]: [0n, 3_000n], [POOL]: [0n, 4_000n] };
    expect(balanceChangesFor(normalizeTransaction(build(spec)), PAYER).changes[0]!.counterparty).toBeNull();
    expect(describeSpec(spec).summary).toBe('Sent 0.000007 SOL');
  });
});

describe('describe output', () => {
  test('network is echoed; a missing block time is null; the body is plain JSON', () => {
    const body = describeTransaction(build({ ...solTransfer(1n), blockTime: null }), { signature: 'abc', network: 'devnet' });
    expect(body.network).toBe('devnet');
    expect(body.signature).toBe('abc');
    expect(body.details).toEqual({ slot: 300_000_000, fee: 5000, timestamp: null, status: 'SUCCESS' });
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
    expect(body.llm_context).toBe(
      `This successful Solana devnet transaction abc is categorized as Transfer: Sent 0.000000001 SOL to ${ALICE.slice(0, 6)}…${ALICE.slice(-4)}.`,
    );
  });

  test('a transaction-level error (no instruction index) is still FAILED and named', () => {
    const body = describeSpec({ ...solTransfer(1n), err: 'InsufficientFundsForFee', lamports: {} });
    expect(body.details.status).toBe('FAILED');
    expect(body.summary).toStartWith('Failed: transaction rejected with insufficient funds for fee (InsufficientFundsForFee)');
    expect(body.error?.instructionIndex).toBeNull();
  });
});

describe('kinds from instructions, not from the programs alone', () => {
  const LP_MINT = addr(20);
  /** Payer puts 1 SOL and 1000 USDC into a pool and gets LP tokens, through `program` with `data`. */
  const deposit = (program: string, data: Uint8Array, inner: Record<number, Ix[]> = {}): Spec => ({
    instructions: [{ program, accounts: [PAYER, POOL], data }],
    inner,
    lamports: { [PAYER]: [5_000_000_000n, 4_000_000_000n - 5000n], [POOL_WSOL]: [RENT + 50_000_000_000n, RENT + 51_000_000_000n] },
    tokens: [
      { account: PAYER_USDC, mint: USDC, owner: PAYER, decimals: 6, pre: 2_000_000_000n, post: 1_000_000_000n },
      { account: POOL_USDC, mint: USDC, owner: POOL, decimals: 6, pre: 9_000_000_000n, post: 10_000_000_000n },
      { account: POOL_WSOL, mint: WRAPPED_SOL_MINT, owner: POOL, decimals: 9, pre: 50_000_000_000n, post: 51_000_000_000n },
      { account: PAYER_MEME, mint: LP_MINT, owner: PAYER, decimals: 9, pre: 0n, post: 7_000_000n },
    ],
  });

  test('a Raydium AMM v4 deposit is a liquidity deposit, not a swap, and the LP token is not "bought"', () => {
    const body = describeSpec(deposit(RAYDIUM_V4, Uint8Array.from([3, 1, 0, 0, 0, 0, 0, 0, 0])));
    expect([body.kind, body.category, body.categoryFit]).toEqual(['liquidity_add', 'Transfer', 'nearest']);
    expect(body.summary).toStartWith('Added liquidity on Raydium AMM v4 (deposit): deposited 1 SOL and 1000 USDC, received 0.007');
    expect(body.summary).not.toContain('Swapped');
    expect(body.programs.filter((p) => p.venue !== null).map((p) => p.name)).toEqual(['Raydium AMM v4']);
  });

  test("a bot's unknown program calling the deposit by CPI is still a liquidity deposit (the CPI stands for it)", () => {
    const body = describeSpec(deposit(UNKNOWN_PROGRAM, opaque, { 0: [{ program: RAYDIUM_V4, data: Uint8Array.from([3]) }] }));
    expect(body.kind).toBe('liquidity_add');
    expect(body.actions).toEqual([
      { instructionIndex: 0, inner: true, programId: RAYDIUM_V4, program: 'Raydium AMM v4', name: 'deposit', kind: 'liquidity_add', source: 'table' },
    ]);
  });

  test('the same program with its swap instruction stays a Swap', () => {
    const body = describeSpec(swapOn(RAYDIUM_V4));
    expect(body.kind).toBe('unknown');
    const swap = { ...swapOn(RAYDIUM_V4) };
    swap.instructions = [{ program: RAYDIUM_V4, accounts: [PAYER, POOL], data: Uint8Array.from([9]) }];
    const named = describeSpec(swap);
    expect([named.kind, named.category]).toEqual(['swap', 'Swap']);
    expect(named.actions[0]).toMatchObject({ name: 'swap_base_in', kind: 'swap' });
  });

  test('a failure in a transfer before the swap names the transfer, and says the swap did not complete', () => {
    const spec = swapOn(JUPITER, { 1: [{ program: RAYDIUM_V4, data: opaque }] });
    spec.instructions = [
      { program: SYSTEM, accounts: [PAYER, ALICE], data: systemTransfer(1n) },
      { program: JUPITER, accounts: [PAYER, POOL], data: Uint8Array.from([0xe5, 0x17, 0xcb, 0x97, 0x7a, 0xe3, 0xad, 0x2a]) },
    ];
    spec.err = { InstructionError: [0, { Custom: 1 }] };
    spec.lamports = { [PAYER]: [5_000_000_000n, 5_000_000_000n - 5000n] };
    spec.tokens = [];
    const body = describeSpec(spec);
    expect(body.summary).toBe(
      'Failed: instruction 0 (System Program) transfer reverted with custom program error 0x1 (1, ResultWithNegativeLamports); ' +
        'the swap on Jupiter v6 (route) (instruction 1) did not complete; only the 0.000005 SOL fee was charged',
    );
    expect(body.summary).not.toContain('Jupiter v6 swap reverted');
  });
});

describe('kind from effects: a program the tables do not know, named by what its inner instructions did', () => {
  const OTHER_MINT = addr(12);
  const PAYER_OTHER = addr(13);
  const INNER_PROGRAM = addr(14);
  const burn = (amount: bigint) => Uint8Array.from([8, ...u64(amount)]);
  const burnChecked = (amount: bigint, decimals: number) => Uint8Array.from([15, ...u64(amount), decimals]);
  const mintTo = (amount: bigint) => Uint8Array.from([7, ...u64(amount)]);
  const closeAccount = Uint8Array.from([9]);
  const short = `${UNKNOWN_PROGRAM.slice(0, 6)}…${UNKNOWN_PROGRAM.slice(-4)}`;

  // The fee payer burns 72 of one token and is minted 72 of another, all by CPIs of one unknown program.
  const burnAndMint = (burnIx: Ix): Spec => ({
    instructions: [{ program: UNKNOWN_PROGRAM, accounts: [PAYER, PAYER_MEME, PAYER_OTHER], data: opaque }],
    inner: {
      0: [burnIx, { program: TOKEN, accounts: [OTHER_MINT, PAYER_OTHER, UNKNOWN_PROGRAM], data: mintTo(72_000_000n) }],
    },
    lamports: { [PAYER]: [1_000_000_000n, 999_995_000n], [PAYER_MEME]: [RENT, RENT], [PAYER_OTHER]: [RENT, RENT] },
    tokens: [
      { account: PAYER_MEME, mint: MEME_MINT, owner: PAYER, decimals: 6, pre: 100_000_000n, post: 28_000_000n },
      { account: PAYER_OTHER, mint: OTHER_MINT, owner: PAYER, decimals: 6, pre: 0n, post: 72_000_000n },
    ],
  });

  test('a burn through an unknown program is a burn, and the summary says what was burned and received, and through which program', () => {
    const body = describeSpec(burnAndMint({ program: TOKEN, accounts: [PAYER_MEME, MEME_MINT, PAYER], data: burn(72_000_000n) }));
    expect(body.kind).toBe('burn');
    expect([body.category, body.categoryFit]).toEqual(['Transfer', 'nearest']);
    expect(body.actions).toEqual([
      { instructionIndex: 0, inner: false, programId: UNKNOWN_PROGRAM, program: null, name: null, kind: 'burn', source: 'effects' },
    ]);
    const meme = `${MEME_MINT.slice(0, 6)}…${MEME_MINT.slice(-4)}`;
    const other = `${OTHER_MINT.slice(0, 6)}…${OTHER_MINT.slice(-4)}`;
    expect(body.summary).toBe(`Burned 72 ${meme} and received 72 ${other} through program ${short}`);
    expect(body.summary).not.toContain('Not a swap or transfer');
  });

  test('Token-2022 burn_checked counts the same, and so does a burn made deeper, by a program the unknown one called', () => {
    const checked = describeSpec(burnAndMint({ program: TOKEN_2022, accounts: [PAYER_MEME, MEME_MINT, PAYER], data: burnChecked(72_000_000n, 6) }));
    expect([checked.kind, checked.summary.startsWith('Burned 72 ')]).toEqual(['burn', true]);

    const deep = burnAndMint({ program: TOKEN, accounts: [PAYER_MEME, MEME_MINT, PAYER], data: burn(72_000_000n) });
    deep.inner![0]!.unshift({ program: INNER_PROGRAM, data: opaque });
    const body = describeSpec(deep);
    expect(body.kind).toBe('burn');
    expect(body.actions.map((a) => [a.programId, a.kind, a.source])).toEqual([[UNKNOWN_PROGRAM, 'burn', 'effects']]);
  });

  test('a mint alone is a mint; a token account closed is account management', () => {
    const minted = burnAndMint({ program: SYSTEM, data: systemTransfer(0n) });
    minted.inner![0] = minted.inner![0]!.slice(1);
    minted.tokens![0]!.post = 100_000_000n;
    const mintBody = describeSpec(minted);
    expect(mintBody.kind).toBe('mint');
    expect(mintBody.summary).toStartWith('Received 72 ');

    const closed = describeSpec({
      instructions: [{ program: UNKNOWN_PROGRAM, accounts: [PAYER, PAYER_MEME], data: opaque }],
      inner: { 0: [{ program: TOKEN, accounts: [PAYER_MEME, PAYER, PAYER], data: closeAccount }] },
      lamports: { [PAYER]: [1_000_000_000n, 1_000_000_000n + RENT - 5_000n], [PAYER_MEME]: [RENT, 0n] },
      tokens: [{ account: PAYER_MEME, mint: MEME_MINT, owner: PAYER, decimals: 6, pre: 0n }],
    });
    expect(closed.kind).toBe('account_management');
    expect(closed.summary).toStartWith('Account management through program');
    expect(closed.summary).toContain('rent recovered');
  });

  // Shaped like the recorded CCTP deposit_for_burn: the program also opens its own data account with the payer's SOL.
  test('SOL that opened an account the program created is rent, said apart; SOL sent to a new wallet stays a payment', () => {
    const NEW_ACCOUNT = addr(15);
    const withSol = (ix: Ix): Spec => {
      const spec = burnAndMint({ program: TOKEN, accounts: [PAYER_MEME, MEME_MINT, PAYER], data: burn(72_000_000n) });
      spec.inner![0]!.push(ix);
      spec.lamports = { ...spec.lamports, [PAYER]: [1_000_000_000n, 997_995_000n], [NEW_ACCOUNT]: [0n, 2_000_000n] };
      return spec;
    };
    const meme = `${MEME_MINT.slice(0, 6)}…${MEME_MINT.slice(-4)}`;
    const other = `${OTHER_MINT.slice(0, 6)}…${OTHER_MINT.slice(-4)}`;
    const created = `${NEW_ACCOUNT.slice(0, 6)}…${NEW_ACCOUNT.slice(-4)}`;

    const opened = describeSpec(withSol({ program: SYSTEM, accounts: [PAYER, NEW_ACCOUNT], data: systemCreateAccount(2_000_000n) }));
    expect(opened.kind).toBe('burn');
    expect(opened.summary).toBe(`Burned 72 ${meme} and received 72 ${other} through program ${short} (plus 0.002 SOL rent for ${created}, an account it opened)`);

    const paid = describeSpec(withSol({ program: SYSTEM, accounts: [PAYER, NEW_ACCOUNT], data: systemTransfer(2_000_000n) }));
    expect(paid.summary).toBe(`Sent 0.002 SOL to ${created}, burned 72 ${meme} and received 72 ${other} through program ${short}`);
  });

  // Shaped like the recorded Wormhole CCTP relay: a relayer is paid out of an order's account, the rest burned.
  test('a burn from an account another owner holds is named with its holder, at the burn’s own amount', () => {
    const ALICE_MEME = addr(16);
    const body = describeSpec({
      instructions: [{ program: UNKNOWN_PROGRAM, accounts: [PAYER, ALICE_MEME, PAYER_MEME], data: opaque }],
      inner: {
        0: [
          { program: TOKEN, accounts: [ALICE_MEME, MEME_MINT, PAYER_MEME, ALICE], data: transferChecked(5_000_000n, 6) },
          { program: TOKEN, accounts: [ALICE_MEME, MEME_MINT, ALICE], data: burn(67_000_000n) },
        ],
      },
      lamports: { [PAYER]: [1_000_000_000n, 999_995_000n], [ALICE_MEME]: [RENT, RENT], [PAYER_MEME]: [RENT, RENT] },
      tokens: [
        { account: ALICE_MEME, mint: MEME_MINT, owner: ALICE, decimals: 6, pre: 72_000_000n, post: 0n },
        { account: PAYER_MEME, mint: MEME_MINT, owner: PAYER, decimals: 6, pre: 0n, post: 5_000_000n },
      ],
    });
    const meme = `${MEME_MINT.slice(0, 6)}…${MEME_MINT.slice(-4)}`;
    const alice = `${ALICE.slice(0, 6)}…${ALICE.slice(-4)}`;
    expect(body.kind).toBe('burn');
    expect(body.summary).toBe(`Received 5 ${meme} from ${alice} through program ${short}; burned 67 ${meme} held by ${alice}`);
  });

  test('with no inner effect it stays unknown, and says so', () => {
    const body = describeSpec({
      instructions: [{ program: UNKNOWN_PROGRAM, data: opaque }],
      inner: { 0: [] },
    });
    expect(body.kind).toBe('unknown');
    expect(body.actions.map((a) => a.source)).toEqual(['none']);
    expect(body.summary).toStartWith(`Invoked ${short}, whose instructions the decoder does not recognize;`);
  });
});

describe('governance and NFT auction programs by table', () => {
  const GOVERNANCE = 'GovER5Lthms3bLBqWub97yVrMmEogzX7xNjdXpPPCVZw';
  const AUCTION = 'auctxRXPeJoc4817jDhf4HbjnhEcr1cCXenosMhK5R8';
  const PROPOSAL = addr(20);
  const BIDDER_POT = addr(21);

  test('a governance proposal is governance_proposal, named, with the rent it paid', () => {
    const body = describeSpec({
      instructions: [{ program: GOVERNANCE, accounts: [PROPOSAL, PAYER], data: Uint8Array.from([6, 4, 0, 0, 0, 116, 101, 115, 116]) }],
      inner: { 0: [{ program: SYSTEM, accounts: [PAYER, PROPOSAL], data: systemCreateAccount(3_000_000n) }] },
      lamports: { [PAYER]: [1_000_000_000n, 996_995_000n], [PROPOSAL]: [0n, 3_000_000n] },
    });
    expect([body.kind, body.category, body.categoryFit]).toEqual(['governance_proposal', 'Transfer', 'nearest']);
    expect(body.actions.map((a) => [a.program, a.name, a.kind, a.source])).toEqual([['SPL Governance', 'create_proposal', 'governance_proposal', 'table']]);
    expect(body.summary).toBe('Governance proposal on SPL Governance (create_proposal): paid 0.003 SOL rent for 1 account it opened');
  });

  test('a bid cancelled on the legacy Metaplex auction is order_cancel, and the refund is shown', () => {
    const body = describeSpec({
      instructions: [{ program: AUCTION, accounts: [PAYER, PAYER_USDC, BIDDER_POT], data: Uint8Array.from([0, ...new Array(32).fill(3)]) }],
      inner: { 0: [{ program: TOKEN, accounts: [BIDDER_POT, PAYER_USDC, BIDDER_POT], data: transferChecked(5_000_000n, 6) }] },
      lamports: { [PAYER]: [1_000_000_000n, 999_995_000n], [PAYER_USDC]: [RENT, RENT], [BIDDER_POT]: [RENT, RENT] },
      tokens: [
        { account: PAYER_USDC, mint: USDC, owner: PAYER, decimals: 6, pre: 0n, post: 5_000_000n },
        { account: BIDDER_POT, mint: USDC, owner: POOL, decimals: 6, pre: 5_000_000n, post: 0n },
      ],
    });
    expect(body.kind).toBe('order_cancel');
    expect(body.actions.map((a) => [a.program, a.name])).toEqual([['Metaplex Auction (legacy)', 'cancel_bid']]);
    expect(body.summary).toStartWith('Cancelled or closed an order on Metaplex Auction (legacy) (cancel_bid): got back 5 USDC');
  });
});

describe('names from a published IDL (the capability fetches it; the decoding is pure)', () => {
  test('the IDL names the instruction, its effects give the kind, and the tables stay first', () => {
    const discriminator = Uint8Array.from(new Bun.CryptoHasher('sha256').update('global:burn_for_points').digest().subarray(0, 8));
    const idls = new Map([[UNKNOWN_PROGRAM, { name: 'points', instructions: [{ name: 'burn_for_points', discriminator }] }]]);
    const spec: Spec = {
      instructions: [{ program: UNKNOWN_PROGRAM, accounts: [PAYER, PAYER_MEME], data: Uint8Array.from([...discriminator, 1]) }],
      inner: { 0: [{ program: TOKEN, accounts: [PAYER_MEME, MEME_MINT, PAYER], data: Uint8Array.from([8, ...u64(5_000_000n)]) }] },
      lamports: { [PAYER]: [1_000_000_000n, 999_995_000n], [PAYER_MEME]: [RENT, RENT] },
      tokens: [{ account: PAYER_MEME, mint: MEME_MINT, owner: PAYER, decimals: 6, pre: 5_000_000n, post: 0n }],
    };
    const body = describeTransaction(build(spec), { signature: 'sig', network: 'mainnet-beta', idls });
    expect(body.actions).toEqual([
      { instructionIndex: 0, inner: false, programId: UNKNOWN_PROGRAM, program: 'points', name: 'burn_for_points', kind: 'burn', source: 'idl' },
    ]);
    expect(body.summary).toBe(`Burned 5 ${MEME_MINT.slice(0, 6)}…${MEME_MINT.slice(-4)} through program ${UNKNOWN_PROGRAM.slice(0, 6)}…${UNKNOWN_PROGRAM.slice(-4)} (burn_for_points)`);

    // an IDL published for a program the tables know changes nothing
    const tablesOnly = describeSpec(swapOn(RAYDIUM_V4));
    const withIdl = describeTransaction(build(swapOn(RAYDIUM_V4)), { signature: 'sig', network: 'mainnet-beta', idls: new Map([[RAYDIUM_V4, { name: 'x', instructions: [{ name: 'y', discriminator: Uint8Array.from([9]) }] }]]) });
    expect(withIdl.actions).toEqual(tablesOnly.actions);
  });
});
