// One answer shape (issue 41), walked over every answer the recorded mainnet fixtures give: each decode-tx
// body, told for the fee payer and for every owner in it (what decoded history says for each wallet), every
// recorded simulation and signature list. The rules are in tests/support/answer-rules.ts; the rent of a
// token account another wallet opened is checked here against the transaction's own balances.
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WRAPPED_SOL_MINT } from '../../src/chain/program-ids';
import { type DecodeTxBody, type OwnerChangesView, describeTransaction } from '../../src/chain/tx/describe';
import { memoText } from '../../src/chain/memo';
import { signatureEntry, type SignatureInfo } from '../../src/capabilities/transactions';
import { simulationBody } from '../../src/capabilities/simulate';
import { parseJson } from '../../src/json';
import { answerShapeProblems } from '../support/answer-rules';
import { RECORDED_ROOT, loadRecorded, recordedTransactionFiles } from '../support/recorded-transactions';

const decode = async (file: string, wallet?: string): Promise<DecodeTxBody> =>
  describeTransaction(await loadRecorded(file), { signature: 'requested-signature', network: 'mainnet-beta', ...(wallet ? { wallet } : {}) });

/** Every wallet an answer can be told for: each owner with changes, each signer, each token account's owner. */
function wallets(body: DecodeTxBody): string[] {
  const owners = [...body.ownerChanges.map((o) => o.owner), ...body.signers, ...body.accountChanges.flatMap((a) => (a.token?.owner ? [a.token.owner] : []))];
  return [...new Set(owners)];
}

/**
 * The SOL an owner that signed nothing may be told it got: its own account's change and its wrapped SOL, plus
 * the part of its token accounts' rent it paid itself (only what its own account lost). Rent another wallet put
 * into its token accounts is never SOL it received.
 */
function solAllowed(body: DecodeTxBody, owner: string): bigint {
  const own = BigInt(body.accountChanges.find((a) => a.address === owner && a.token === null)?.lamportsChange ?? 0);
  const held = body.accountChanges.filter((a) => a.token?.owner === owner);
  const wsol = held.filter((a) => a.token!.mint === WRAPPED_SOL_MINT).reduce((sum, a) => sum + BigInt(a.token!.change), 0n);
  const rent = held.reduce((sum, a) => sum + BigInt(a.lamportsChange), 0n) - wsol;
  const paidItself = own < 0n && rent > 0n ? (-own < rent ? -own : rent) : 0n;
  return own + wsol + paidItself;
}

function rentProblems(body: DecodeTxBody, entry: OwnerChangesView, at: string): string[] {
  // a new token account's rent (rent put in); rent taken out of a closed one is not at issue here
  if (entry.signer || Number(entry.tokenAccountRentLamports) <= 0) return [];
  const sol = BigInt(entry.changes.find((c) => c.asset === 'SOL')?.raw ?? '0');
  const allowed = solAllowed(body, entry.owner);
  return sol === allowed ? [] : [`${at} ${entry.owner}: SOL ${sol}, but its own SOL moved ${allowed} (the rest is rent another wallet paid)`];
}

describe.each(recordedTransactionFiles)('%s', (file) => {
  test('every answer, told for the fee payer and for each wallet in it, keeps the answer-shape rules', async () => {
    const plain = await decode(file);
    const problems = [...answerShapeProblems(plain), ...plain.ownerChanges.flatMap((o) => rentProblems(plain, o, 'ownerChanges'))];
    for (const wallet of wallets(plain)) {
      const told = await decode(file, wallet);
      problems.push(...answerShapeProblems(told, `$[wallet ${wallet}]`), ...rentProblems(told, told.walletChanges!, 'walletChanges'));
      // the per-owner view is the transaction's, whoever it is told for; the wallet's own entry is that view's
      expect(told.ownerChanges).toEqual(plain.ownerChanges);
      const entry = plain.ownerChanges.find((o) => o.owner === wallet);
      if (entry) expect(told.walletChanges).toEqual(entry);
    }
    expect(problems).toEqual([]);
  });
});

const fixtures = (dir: string) => readdirSync(join(RECORDED_ROOT, dir)).filter((f) => f.endsWith('.json'));
const fixture = (dir: string, file: string) => parseJson(readFileSync(join(RECORDED_ROOT, dir, file), 'utf8')) as Record<string, any>;

test.each(fixtures('simulateTransaction'))('simulateTransaction/%s keeps the answer-shape rules', (file) => {
  const body = simulationBody(fixture('simulateTransaction', file).value);
  expect(answerShapeProblems(body)).toEqual([]);
});

test.each(fixtures('getSignaturesForAddress'))('getSignaturesForAddress/%s keeps the answer-shape rules', (file) => {
  const entries = (fixture('getSignaturesForAddress', file) as unknown as SignatureInfo[]).map(signatureEntry);
  expect(answerShapeProblems(entries)).toEqual([]);
});

test('the walk finds each broken rule', () => {
  const broken = {
    fee: '5000',
    feeLamports: '0',
    raw_logs: [],
    snake_case: 1,
    balanceChanges: [],
    memo: '[4] gm!!',
    error: 'failed',
    changes: [{ decimals: 6, raw: 100 }],
    summary: 'Not a swap or transfer: invoked X',
    categoryFit: 'nearest',
    llm_context: 'categorized as Transfer only as a fallback',
    ownerChanges: [{ feePayer: false }],
  };
  expect(answerShapeProblems(broken)).toEqual([
    '$.fee: lamports not a JSON integer ("5000")',
    '$.feeLamports: lamports not a JSON integer ("0")',
    '$.snake_case: not camelCase',
    '$.balanceChanges: a field replaced by a fuller one',
    "$.memo: memo keeps the node's length prefix",
    '$.error: error is not the one error object',
    '$.changes[0].raw: raw amount not a decimal string (100)',
    '$.ownerChanges: 0 fee payers',
    '$.summary: denies its own category: Not a swap or transfer: invoked X',
    '$.llm_context: does not say the category is only the nearest',
  ]);
});

describe("memos as the node writes them: '[<byte length>] <text>', several joined by '; '", () => {
  test.each([
    [null, null],
    ['[14] rent for March', 'rent for March'],
    ['[6] héllo', 'héllo'],
    ['[2] gm; [2] hi', 'gm; hi'],
    // a memo that itself holds "; [1] " is read by its stated length, not cut there
    ['[8] a; [1] b; [2] gm', 'a; [1] b; gm'],
    ['[13] (unparseable); [2] ok', '(unparseable); ok'],
    ['[40] (unparseable)', '(unparseable)'],
    ['no prefix at all', 'no prefix at all'],
    ['[2] gm; [9] cut', 'gm; cut'],
  ])('%p -> %p', (memo, text) => {
    expect(memoText(memo)).toBe(text);
  });

  // read in one pass: a reader that re-encoded the rest for each memo would not finish within the test's timeout
  test('a hostile node: a megabyte of prefixes, and a prefix of a million digits', () => {
    const many = '[1] x; '.repeat(150_000) + '[1] y';
    const digits = `[${'9'.repeat(1_000_000)}] z`;
    expect(memoText(many)).toBe(`${'x; '.repeat(150_000)}y`);
    expect(memoText(digits)).toBe(digits);
  });
});
