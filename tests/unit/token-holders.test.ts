import { describe, expect, test } from 'bun:test';
import { parseJson } from '../../src/json.ts';
import {
  BURN_ADDRESSES,
  classifyOwner,
  concentration,
  holderFromRpc,
  ownerAccountFromRpc,
  rankHolders,
  tokenAccountOwnerFromRpc,
  topHolders,
  type Holder,
  type HolderKind,
} from '../../src/chain/token/holders.ts';
import { SYSTEM_PROGRAM, TOKEN_PROGRAM } from '../../src/chain/program-ids.ts';

const FIX = `${import.meta.dir}/../fixtures/mainnet`;
const load = async (path: string): Promise<any> => parseJson(await Bun.file(`${FIX}/${path}`).text());

// On-curve keys (checked: isOffCurveAddress false): a real wallet and the pump.fun program id.
const WALLET = '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H';
const PUMP_PROGRAM = '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P';
// Off-curve: an associated token account address from the fixtures (ATAs are PDAs).
const PDA = 'AiYMGVc6uqHxwVwbGcN31gXFPGxeJeo5ySjLbCnUddCr';
const INCINERATOR = '1nc1nerator11111111111111111111111111111111';

const h = (address: string, amount: bigint, kind: HolderKind, owner: string | null = null): Holder => ({
  address,
  owner,
  amount,
  kind,
  kindReason: 'test',
});

describe('classifyOwner', () => {
  test('burn addresses win, whatever their account looks like', () => {
    expect(classifyOwner(INCINERATOR).kind).toBe('burn');
    expect(classifyOwner(SYSTEM_PROGRAM, { status: 'found', owner: 'NativeLoader1111111111111111111111111111111', executable: true }).kind).toBe('burn');
    expect([...BURN_ADDRESSES.keys()]).toEqual([INCINERATOR, SYSTEM_PROGRAM]);
  });
  test('an off-curve owner (PDA: pool vault, bonding curve) is a program, even with no account', () => {
    const c = classifyOwner(PDA, { status: 'missing' });
    expect(c.kind).toBe('program');
    expect(c.reason).toContain('off the ed25519 curve');
    expect(classifyOwner(PDA).kind).toBe('program');
  });
  test('an executable owner is a program', () => {
    expect(classifyOwner(PUMP_PROGRAM, { status: 'found', owner: 'BPFLoaderUpgradeab1e11111111111111111111111', executable: true }).kind).toBe('program');
  });
  test('an on-curve owner whose account belongs to a non-System program is a program', () => {
    const c = classifyOwner(WALLET, { status: 'found', owner: TOKEN_PROGRAM, executable: false });
    expect(c.kind).toBe('program');
    expect(c.reason).toContain(TOKEN_PROGRAM);
  });
  test('an on-curve, System-owned or absent owner is a wallet', () => {
    expect(classifyOwner(WALLET, { status: 'found', owner: SYSTEM_PROGRAM, executable: false }).kind).toBe('wallet');
    expect(classifyOwner(WALLET, { status: 'missing' }).kind).toBe('wallet');
  });
  test('unknown when the owner or its account could not be resolved', () => {
    expect(classifyOwner(null).kind).toBe('unknown');
    expect(classifyOwner(undefined).kind).toBe('unknown');
    expect(classifyOwner('not-an-address').kind).toBe('unknown');
    expect(classifyOwner(WALLET).kind).toBe('unknown');
    expect(classifyOwner(WALLET, { status: 'unavailable' }).kind).toBe('unknown');
  });
});

describe('RPC adapters', () => {
  test('ownerAccountFromRpc: null means no account, an object is found, anything else unavailable', () => {
    expect(ownerAccountFromRpc(null)).toEqual({ status: 'missing' });
    expect(ownerAccountFromRpc(undefined)).toEqual({ status: 'unavailable' });
    expect(ownerAccountFromRpc({ owner: SYSTEM_PROGRAM, executable: false, lamports: 5, data: ['', 'base64'] })).toEqual({
      status: 'found',
      owner: SYSTEM_PROGRAM,
      executable: false,
    });
  });
  test('tokenAccountOwnerFromRpc reads parsed.info.owner of a token account only', async () => {
    const res = await load('getTokenAccountsByOwner/wallet-8wytzy-one-spl-account-gem.json');
    expect(tokenAccountOwnerFromRpc(res.value[0].account)).toBe(WALLET);
    expect(tokenAccountOwnerFromRpc(null)).toBeNull();
    const mint = (await load('getAccountInfo/usdc-mint-gem.json')).value;
    expect(tokenAccountOwnerFromRpc(mint)).toBeNull();
  });
  test('holderFromRpc takes the raw amount exactly and classifies the owner', async () => {
    const rows = (await load('getTokenLargestAccounts/6-decimal-mint-top20-raw-field-order-bobradar.json')).value;
    const holder = holderFromRpc(rows[0], WALLET, { status: 'missing' });
    expect(holder).toEqual({
      address: 'AiYMGVc6uqHxwVwbGcN31gXFPGxeJeo5ySjLbCnUddCr',
      owner: WALLET,
      amount: 232891037804997n,
      kind: 'wallet',
      kindReason: 'owner is an on-curve key with no account (holds no SOL)',
    });
    expect(() => holderFromRpc({ amount: '1' }, null)).toThrow(TypeError);
  });
});

describe('concentration: recorded getTokenLargestAccounts', () => {
  // Owners are not in the fixture: #1 is taken as a pool vault (program), #2 as sent to the incinerator,
  // the other 18 as wallets. Expected values computed independently (Python Decimal, half-up).
  const scenario = async (file: string) => {
    const rows = (await load(`getTokenLargestAccounts/${file}`)).value as { address: string; amount: string }[];
    return rows.map((r, i) => h(r.address, BigInt(r.amount), i === 0 ? 'program' : i === 1 ? 'burn' : 'wallet'));
  };

  test('6-decimal pump token, 1,000,000,000-token supply: the pool drops out of the wallet view', async () => {
    const c = concentration(await scenario('6-decimal-mint-top20-raw-field-order-bobradar.json'), 10n ** 15n);
    expect(c.holdersSeen).toBe(20);
    expect(c.all).toEqual({
      top1Percent: 23.2891,
      top10Percent: 42.5209,
      top1Raw: '232891037804997',
      top10Raw: '425209287263173',
      top1Address: 'AiYMGVc6uqHxwVwbGcN31gXFPGxeJeo5ySjLbCnUddCr',
      holdersCounted: 10,
    });
    expect(c.excludingProgramAndBurn).toEqual({
      top1Percent: 2.8665,
      top10Percent: 18.8113,
      top1Raw: '28665432923433',
      top10Raw: '188112667325577',
      top1Address: 'GZ162ztGUtgdMujhRdtmknnooRhHJidJkS1sewvfmDj1',
      holdersCounted: 10,
    });
    expect(c.byKind.program).toEqual({ holders: 1, percent: 23.2891, raw: '232891037804997' });
    expect(c.byKind.burn.percent).toBe(2.9222);
    expect(c.byKind.wallet.holders).toBe(18);
    expect(c.byKind.wallet.percent).toBe(27.1988);
    expect(c.byKind.unknown).toEqual({ holders: 0, percent: 0, raw: '0' });
  });

  test('8-decimal token, 20,000-token supply', async () => {
    const c = concentration(await scenario('8-decimal-mint-top20-sava.json'), 20_000n * 10n ** 8n);
    expect([c.all.top1Percent, c.all.top10Percent]).toEqual([42.735, 95.106]);
    expect([c.excludingProgramAndBurn.top1Percent, c.excludingProgramAndBurn.top10Percent]).toEqual([12.6651, 41.3733]);
    expect(c.excludingProgramAndBurn.top10Raw).toBe('827466585989');
    expect([c.byKind.program.percent, c.byKind.burn.percent, c.byKind.wallet.percent]).toEqual([42.735, 13.1299, 44.5695]);
  });
});

describe('concentration: hand-built cases', () => {
  test('unknown holders count as possible wallets', () => {
    const c = concentration([h('a', 60n, 'unknown'), h('b', 40n, 'program')], 100n);
    expect(c.excludingProgramAndBurn.top1Percent).toBe(60);
    expect(c.excludingProgramAndBurn.top1Address).toBe('a');
  });
  test('ranks by amount and ignores a duplicated token account', () => {
    const holders = [h('small', 1n, 'wallet'), h('big', 9n, 'wallet'), h('big', 9n, 'wallet')];
    expect(rankHolders(holders).map((x) => x.address)).toEqual(['big', 'small']);
    const c = concentration(holders, 100n);
    expect(c.all.top10Percent).toBe(10);
    expect(c.holdersSeen).toBe(2);
  });
  test('only programs and burns: the wallet view is empty, not an error', () => {
    const c = concentration([h('pool', 70n, 'program'), h('dead', 30n, 'burn')], 100n);
    expect(c.excludingProgramAndBurn).toEqual({ top1Percent: 0, top10Percent: 0, top1Raw: '0', top10Raw: '0', top1Address: null, holdersCounted: 0 });
  });
  test('zero supply gives null shares (no division by zero)', () => {
    const c = concentration([h('a', 0n, 'wallet')], 0n);
    expect(c.all.top1Percent).toBeNull();
    expect(c.all.top10Percent).toBeNull();
    expect(c.byKind.wallet.percent).toBeNull();
  });
  test('supplies above 2^53 are exact', () => {
    const supply = 8799471343582888521n; // BONK
    const c = concentration([h('a', supply / 4n, 'wallet'), h('b', supply / 3n, 'wallet')], supply);
    expect(c.all.top1Percent).toBe(33.3333);
    expect(c.all.top10Percent).toBe(58.3333);
    expect(c.all.top10Raw).toBe((supply / 4n + supply / 3n).toString());
  });
  test('only the 10 largest count toward top-10', () => {
    const holders = Array.from({ length: 12 }, (_, i) => h(`w${i}`, 5n, 'wallet'));
    expect(concentration(holders, 100n).all.top10Percent).toBe(50);
  });
});

describe('topHolders', () => {
  test('at most 10, largest first, exact ui amounts and percent, kind kept', async () => {
    const rows = (await load('getTokenLargestAccounts/8-decimal-mint-top20-sava.json')).value as { address: string; amount: string; uiAmountString: string }[];
    const holders = [...rows].reverse().map((r) => h(r.address, BigInt(r.amount), 'wallet', WALLET));
    const top = topHolders(holders, 20_000n * 10n ** 8n, 8);
    expect(top).toHaveLength(10);
    expect(top.map((t) => t.address)).toEqual(rows.slice(0, 10).map((r) => r.address));
    expect(top.map((t) => t.uiAmountString)).toEqual(rows.slice(0, 10).map((r) => r.uiAmountString));
    expect(top[0]).toEqual({
      address: 'BGLx2hbcLHk5ajMeLB2SP2zw5ZHqYTCazNJEB9uGcz3q',
      owner: WALLET,
      amount: '854699973338',
      uiAmountString: '8546.99973338',
      percent: 42.735,
      kind: 'wallet',
      kindReason: 'test',
    });
  });
});
