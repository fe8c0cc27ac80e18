// What the x402 accounts read from the chain mean, judged on plain data: which stop payments (each
// named), which will soon, and which token program's account of the pay-to owner counts.
import { describe, expect, test } from 'bun:test';
import { assess, payToAccounts, type AccountsRead, type X402AccountIds } from '../../src/billing/x402/accounts.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/chain/program-ids.ts';
import { USDC_MINT, X402_FEE_PAYER_FLOOR_LAMPORTS, X402_SETTLEMENT_FEE_LAMPORTS } from '../../src/config.ts';

const ids: X402AccountIds = { network: 'mainnet-beta', asset: USDC_MINT, payTo: 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', feePayer: '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H', minFeePayerLamports: 1_000 * X402_SETTLEMENT_FEE_LAMPORTS };
const atas = await payToAccounts(ids);
const account = (owner: string, lamports = 2_039_280n) => ({ owner, lamports });

/** Everything in order, with any account replaced. */
const read = (changes: AccountsRead = {}): AccountsRead => ({
  [ids.asset]: account(TOKEN_PROGRAM),
  [atas[TOKEN_PROGRAM]!]: account(TOKEN_PROGRAM),
  [atas[TOKEN_2022_PROGRAM]!]: null,
  [ids.feePayer!]: account('11111111111111111111111111111111', 100_000_000n),
  ...changes,
});

describe('the x402 accounts, judged', () => {
  test('all in order: no problem, no warning, the classic token account', () => {
    expect(assess(ids, atas, read())).toEqual({
      asset: ids.asset,
      tokenProgram: TOKEN_PROGRAM,
      payTo: ids.payTo,
      payToTokenAccount: atas[TOKEN_PROGRAM]!,
      payToTokenAccountExists: true,
      feePayer: ids.feePayer,
      feePayerLamports: 100_000_000,
      problems: [],
      warnings: [],
    });
  });

  test('a missing pay-to account: spl-token on a real network; on a chain on this machine, the sandbox wallet\'s way first', () => {
    const mint = read({ [atas[TOKEN_PROGRAM]!]: null });
    const remote = assess(ids, atas, mint).problems[0]!;
    expect(remote).toEndWith(`(spl-token create-account ${ids.asset} --owner ${ids.payTo} --fee-payer <keypair file>)`);
    expect(remote).not.toContain('bun run wallet');
    expect(assess({ ...ids, local: true }, atas, mint).problems[0]).toContain(`(on the sandbox chain, from a source checkout: bun run wallet -- usdc 0 --to ${ids.payTo}; on a real network: spl-token create-account`);
  });

  test('a Token-2022 mint: the pay-to account is the one under Token-2022', () => {
    const r = assess(ids, atas, read({ [ids.asset]: account(TOKEN_2022_PROGRAM) }));
    expect(r).toMatchObject({ tokenProgram: TOKEN_2022_PROGRAM, payToTokenAccount: atas[TOKEN_2022_PROGRAM], payToTokenAccountExists: false });
    expect(r.problems).toEqual([expect.stringContaining(`create its associated token account ${atas[TOKEN_2022_PROGRAM]}`)]);
  });

  test('a missing mint, or an account that is not one, is named; no pay-to account is looked for', () => {
    expect(assess(ids, atas, read({ [ids.asset]: null })).problems).toEqual([`the asset's mint ${ids.asset} (X402_ASSET) does not exist on mainnet-beta`]);
    const wrong = assess(ids, atas, read({ [ids.asset]: account('11111111111111111111111111111111') }));
    expect(wrong).toMatchObject({ tokenProgram: null, payToTokenAccount: null });
    expect(wrong.problems).toEqual([expect.stringContaining('is not a token mint: its owner is 11111111111111111111111111111111')]);
  });

  test('the fee payer: none at all, or less than one fee above the rent-exempt minimum it must keep, stops payments; below the threshold warns with the settlements left', () => {
    const fee = BigInt(X402_SETTLEMENT_FEE_LAMPORTS);
    const floor = BigInt(X402_FEE_PAYER_FLOOR_LAMPORTS);
    expect(floor).toBe(fee + 890_880n);
    expect(assess(ids, atas, read({ [ids.feePayer!]: null })).problems).toEqual([`the fee payer ${ids.feePayer} holds 0 lamports, less than one settlement needs (900881): send it SOL`]);
    expect(assess(ids, atas, read({ [ids.feePayer!]: account('11111111111111111111111111111111', fee) })).problems).toHaveLength(1);
    expect(assess(ids, atas, read({ [ids.feePayer!]: account('11111111111111111111111111111111', floor - 1n) })).problems).toHaveLength(1);
    expect(assess(ids, atas, read({ [ids.feePayer!]: account('11111111111111111111111111111111', floor) })).problems).toEqual([]);
    const low = assess(ids, atas, read({ [ids.feePayer!]: account('11111111111111111111111111111111', floor + fee * 409n) }));
    expect(low.problems).toEqual([]);
    expect(low.warnings).toEqual([`the fee payer ${ids.feePayer} holds ${floor + fee * 409n} lamports, enough for 410 settlements (below X402_FEE_PAYER_MIN_LAMPORTS, ${1000n * fee}): send it SOL`]);
    expect(assess(ids, atas, read({ [ids.feePayer!]: account('11111111111111111111111111111111', fee * 1000n) })).warnings).toEqual([]);
  });

  test('an external facilitator: its fee payer is not the gateway\'s to judge', () => {
    const r = assess({ ...ids, feePayer: undefined }, atas, read({ [ids.feePayer!]: null }));
    expect(r.problems).toEqual([]);
    expect(r).not.toHaveProperty('feePayerLamports');
  });
});
