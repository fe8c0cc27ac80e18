import { describe, expect, test } from 'bun:test';
import { parseJson } from '../../src/json.ts';
import { parseMintAccount, type MintExtension, type MintInfo } from '../../src/chain/token/mint.ts';
import type { Holder, HolderKind } from '../../src/chain/token/holders.ts';
import { assessToken, buildTokenProfile, FLAG_RULES, REGULATED_STABLECOINS, type FlagName, type Security } from '../../src/chain/token/risk.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/chain/program-ids.ts';

const FIX = `${import.meta.dir}/../fixtures/mainnet`;
const load = async (path: string): Promise<any> => parseJson(await Bun.file(`${FIX}/${path}`).text());
const wrap2022 = (parsed: unknown) => ({ data: { parsed, program: 'spl-token-2022', space: 0 }, executable: false, lamports: 1, owner: TOKEN_2022_PROGRAM });

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const HONEYPOT = '1nbWT8JqE4MUJoZsTsqT5bo3dMXP3WHsZkNy1sGBchn';
const SPKCC = '14Rg7TaptSo1Ndkz1ngBw2rE4EuFhQd2PzCrkyjGdsL1';
const AAPLON = '123mYEnRLM2LLYsJW3K6oyYh8uP1fngj732iG638ondo';
const AUTH = 'HHL3YaESVUftpHaajQ3pLgGgkAfeDmwmyca1NsfLtPsy';
const HOOK = '9foMHsSDq7nMg4WPusSz9eY7tyxyukqborA8GyU5cUxD';

const fixtureMint = async (address: string, file: string, wrap = false): Promise<MintInfo> => {
  const raw = await load(file);
  const value = wrap ? wrap2022(raw) : 'value' in raw && 'context' in raw ? raw.value : raw;
  const m = parseMintAccount(address, value);
  if (m === null) throw new Error(`${file} did not parse as a mint`);
  return m;
};

const detail = (s: Security, flag: FlagName) => {
  const d = s.details.find((x) => x.flag === flag);
  if (d === undefined) throw new Error(`no ${flag} in ${s.flags.join(',')}`);
  return d;
};

/** One sentence: ends with a period, no sentence break inside. */
const expectOneSentence = (text: string) => {
  expect(text.endsWith('.')).toBe(true);
  expect(text.slice(0, -1)).not.toMatch(/[.!?]\s+[A-Z]/);
};

describe('recorded mainnet mints', () => {
  test('USDC: live authorities flagged but explained as Circle compliance controls → LOW, not a honeypot', async () => {
    for (const file of ['getAccountInfo/usdc-mint-gem.json', 'getMultipleAccounts-account-objects/usdc-mint-rwasonar.json']) {
      const s = assessToken(await fixtureMint(USDC, file), []);
      expect(s.flags).toEqual(['FREEZE_AUTHORITY', 'MINT_AUTHORITY', 'HOLDERS_UNAVAILABLE']);
      expect(s.riskLevel).toBe('LOW');
      expect(s.isHoneypotRisk).toBe(false);
      expect(s.knownIssuer).toEqual({ symbol: 'USDC', issuer: 'Circle', category: 'regulated-stablecoin' });
      const freeze = detail(s, 'FREEZE_AUTHORITY');
      expect(freeze.severity).toBe('high');
      expect(freeze.scoredAs).toBe('low');
      expect(freeze.issuerControl).toContain('Circle');
      expect(freeze.data).toEqual({ freezeAuthority: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar' });
      expect(s.analysis).toContain('regulated stablecoin issued by Circle');
      expect(s.analysis).toContain('compliance controls');
      expectOneSentence(s.analysis);
    }
  });

  test('one issuer control alone is named in the singular: "is an issuer compliance control"', async () => {
    const usdc = await fixtureMint(USDC, 'getAccountInfo/usdc-mint-gem.json');
    const s = assessToken({ ...usdc, freezeAuthority: null }, []);
    expect(s.analysis).toContain('its live mint authority is an issuer compliance control, not a honeypot signal');
    expect(assessToken(usdc, []).analysis).toContain('are issuer compliance controls');
  });

  test('USDT (base58 raw): same treatment, Tether', async () => {
    const s = assessToken(await fixtureMint(USDT, 'getAccountInfo/usdt-mint-base58-default-encoding-notes.json'), []);
    expect(s.flags).toEqual(['FREEZE_AUTHORITY', 'MINT_AUTHORITY', 'HOLDERS_UNAVAILABLE']);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['LOW', false]);
    expect(detail(s, 'MINT_AUTHORITY').data).toEqual({ mintAuthority: 'Q6XprfkF8RQQKoQVG33xT88H7wi8Uk1B1CC7YAs69Gi' });
    expect(s.analysis).toContain('Tether');
  });

  test('PYUSD: every issuer control listed and explained → LOW, not a honeypot', async () => {
    const s = assessToken(await fixtureMint(PYUSD, 'getAccountInfo/pyusd-token2022-mint-gem.json'), []);
    expect(s.flags).toEqual([
      'FREEZE_AUTHORITY',
      'MINT_AUTHORITY',
      'TRANSFER_FEE_CONFIGURABLE',
      'PERMANENT_DELEGATE',
      'TRANSFER_HOOK_CONFIGURABLE',
      'MINT_CLOSE_AUTHORITY',
      'CONFIDENTIAL_TRANSFERS',
      'METADATA_MUTABLE',
      'HOLDERS_UNAVAILABLE',
    ]);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['LOW', false]);
    for (const f of ['PERMANENT_DELEGATE', 'TRANSFER_FEE_CONFIGURABLE', 'TRANSFER_HOOK_CONFIGURABLE'] as const) {
      expect(detail(s, f).issuerControl).toContain('Paxos');
    }
    const fee = detail(s, 'TRANSFER_FEE_CONFIGURABLE');
    expect(fee.data.olderBasisPoints).toBe(0);
    expect(fee.data.newerBasisPoints).toBe(0);
    expect(fee.data.newerEpoch).toBe(605);
    expect(fee.data.transferFeeConfigAuthority).toBe('2apBGMsS6ti9RyF5TwQTDswXBWskiJP2LD4cUEDqYJjk');
    expect(detail(s, 'TRANSFER_HOOK_CONFIGURABLE').data).toEqual({ programId: null, authority: '2apBGMsS6ti9RyF5TwQTDswXBWskiJP2LD4cUEDqYJjk' });
    expectOneSentence(s.analysis);
  });

  test('BONK: both authorities revoked → LOW, not a honeypot', async () => {
    const s = assessToken(await fixtureMint(BONK, 'getAccountInfo/bonk-mint-authorities-revoked-memecoinbot.json'), []);
    expect(s.flags).toEqual(['HOLDERS_UNAVAILABLE']);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['LOW', false]);
    expect(s.analysis).toContain('revoked');
  });

  test('BONK with a concentrated wallet holder reads HIGH (but still not a honeypot)', async () => {
    const bonk = await fixtureMint(BONK, 'getAccountInfo/bonk-mint-authorities-revoked-memecoinbot.json');
    const s = assessToken(bonk, [holder('whale', (bonk.supply * 30n) / 100n, 'wallet'), holder('pool', bonk.supply / 10n, 'program')]);
    expect(s.flags).toEqual(['HOLDER_CONCENTRATION_HIGH']);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['HIGH', false]);
    expect(detail(s, 'HOLDER_CONCENTRATION_HIGH').data.top1Percent).toBe(30);
    expect(detail(s, 'HOLDER_CONCENTRATION_HIGH').data.top10PercentAll).toBe(40);
  });

  test('honeypot: 10% fee + non-transferable → HIGH, honeypot, with the fee numbers', async () => {
    const s = assessToken(await fixtureMint(HONEYPOT, 'getAccountInfo-parsed-data-only/honeypot-token2022-fee1000bps-nontransferable-interest-sava.json', true), []);
    expect(s.flags).toEqual([
      'FREEZE_AUTHORITY',
      'MINT_AUTHORITY',
      'TRANSFER_FEE_HIGH',
      'NON_TRANSFERABLE',
      'INTEREST_BEARING',
      'METADATA_MUTABLE',
      'ZERO_SUPPLY',
    ]);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['HIGH', true]);
    const fee = detail(s, 'TRANSFER_FEE_HIGH');
    expect(fee.data).toMatchObject({
      olderBasisPoints: 1000,
      newerBasisPoints: 1000,
      olderPercent: '10%',
      newerMaximumFee: '2328306436538696192',
      newerMaximumFeeUi: '2328306436538.696192',
      olderEpoch: 735,
      newerEpoch: 735,
      transferFeeConfigAuthority: AUTH,
      inEffect: null,
    });
    expect(fee.reason).toContain('10%');
    expect(detail(s, 'INTEREST_BEARING').data.currentRateBasisPoints).toBe(9900);
    expect(s.concentration).toBeNull();
    expect(s.analysis).toContain('10% transfer fee');
    expect(s.analysis).toContain('non-transferable');
    expectOneSentence(s.analysis);
  });

  test('SPKCC fund token: default-frozen + permanent delegate + pausable → HIGH, honeypot', async () => {
    const s = assessToken(await fixtureMint(SPKCC, 'getAccountInfo-parsed-data-only/spkcc-token2022-frozen-default-permdelegate-pausable-sava.json', true), []);
    expect(s.flags).toEqual([
      'FREEZE_AUTHORITY',
      'MINT_AUTHORITY',
      'PERMANENT_DELEGATE',
      'DEFAULT_ACCOUNT_STATE_FROZEN',
      'PAUSABLE',
      'MINT_CLOSE_AUTHORITY',
      'PERMISSIONED_BURN',
      'METADATA_MUTABLE',
      'ZERO_SUPPLY',
    ]);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['HIGH', true]);
    expect(detail(s, 'PAUSABLE').data).toEqual({ paused: false, authority: '3wVzYmWt79gBpPtWBK8GHvRfii1SARpP8SKqEKuzJsDY' });
    expect(detail(s, 'PERMANENT_DELEGATE').data).toEqual({ delegate: 'EeJqADE9Xqkqoyjid6H1GmbwDZ4Bz1qyC7ySpmFq849m' });
    expect(detail(s, 'DEFAULT_ACCOUNT_STATE_FROZEN').reason).toContain('7jCcxvpZWFD1jJJW3uDXjRtQDoD3L9tbmwUfMDY1ij8Q');
  });

  test('AAPLon: freeze + pausable (not paused) → HIGH; hook is only configurable; scaled UI noted', async () => {
    const s = assessToken(await fixtureMint(AAPLON, 'getMultipleAccounts-account-objects/aaplon-ondo-token2022-scaled-ui-rwasonar.json'), []);
    expect(s.flags).toEqual([
      'FREEZE_AUTHORITY',
      'MINT_AUTHORITY',
      'TRANSFER_HOOK_CONFIGURABLE',
      'PAUSABLE',
      'CONFIDENTIAL_TRANSFERS',
      'SCALED_UI_AMOUNT',
      'METADATA_MUTABLE',
      'HOLDERS_UNAVAILABLE',
    ]);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['HIGH', true]);
    expect(detail(s, 'SCALED_UI_AMOUNT').data).toMatchObject({ multiplier: '1.003376073740221', newMultiplierEffectiveTimestamp: 1788344044 });
    expect(s.flags).not.toContain('TRANSFER_HOOK');
  });
});

describe('regulated-stablecoin table', () => {
  test('is small, explicit, and keyed by the fixture-checked addresses', () => {
    expect([...REGULATED_STABLECOINS.keys()]).toEqual([USDC, USDT, PYUSD]);
  });
  test('the same USDC mint data at another address is scored on its own: HIGH, honeypot risk', async () => {
    const usdc = await fixtureMint(USDC, 'getAccountInfo/usdc-mint-gem.json');
    const s = assessToken({ ...usdc, address: BONK }, []);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['HIGH', true]);
    expect(detail(s, 'FREEZE_AUTHORITY').issuerControl).toBeNull();
    expect(s.knownIssuer).toBeNull();
  });
  test('the table does not excuse active traps: PYUSD with a 10% fee switched on is HIGH', async () => {
    const pyusd = await fixtureMint(PYUSD, 'getAccountInfo/pyusd-token2022-mint-gem.json');
    const extensions = pyusd.extensions.map((e) => (e.extension === 'transferFeeConfig' ? feeExt(1000, 10n ** 12n, 1000, 10n ** 12n, AUTH) : e));
    const s = assessToken({ ...pyusd, extensions }, []);
    expect([s.riskLevel, s.isHoneypotRisk]).toEqual(['HIGH', true]);
    expect(detail(s, 'TRANSFER_FEE_HIGH').issuerControl).toBeNull();
    expect(detail(s, 'FREEZE_AUTHORITY').issuerControl).toContain('Paxos'); // still explained
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-built rules

const SUPPLY = 1_000_000_000_000n;
const base = (over: Partial<MintInfo> = {}): MintInfo => ({
  address: 'TestMint11111111111111111111111111111111111',
  program: 'spl-token-2022',
  tokenProgram: TOKEN_2022_PROGRAM,
  decimals: 6,
  supply: SUPPLY,
  mintAuthority: null,
  freezeAuthority: null,
  extensions: [],
  encoding: 'jsonParsed',
  ...over,
});
const withExt = (...extensions: MintExtension[]) => base({ extensions });
function holder(address: string, amount: bigint, kind: HolderKind): Holder {
  return { address, owner: null, amount, kind, kindReason: 'test' };
}
const spread = [holder('w1', SUPPLY / 100n, 'wallet')]; // 1%: not concentrated
function feeExt(olderBps: number, olderMax: bigint | number, newerBps: number, newerMax: bigint | number, authority: string | null, newerEpoch = 600): MintExtension {
  return {
    extension: 'transferFeeConfig',
    state: {
      transferFeeConfigAuthority: authority,
      withdrawWithheldAuthority: authority,
      withheldAmount: 0,
      olderTransferFee: { epoch: 590, maximumFee: olderMax, transferFeeBasisPoints: olderBps },
      newerTransferFee: { epoch: newerEpoch, maximumFee: newerMax, transferFeeBasisPoints: newerBps },
    },
  };
}
const verdict = (s: Security) => [s.riskLevel, s.isHoneypotRisk, s.flags];

describe('rules', () => {
  test('clean mint with spread holders: LOW, no flags', () => {
    const s = assessToken(base(), spread);
    expect(verdict(s)).toEqual(['LOW', false, []]);
    expect(s.analysis).toBe('Low risk: mint and freeze authorities are revoked, no extension can block or tax transfers, and holdings are not concentrated.');
  });
  test('mint authority alone: MEDIUM (dilution), not a honeypot', () => {
    const s = assessToken(base({ mintAuthority: AUTH }), spread);
    expect(verdict(s)).toEqual(['MEDIUM', false, ['MINT_AUTHORITY']]);
    expect(s.analysis).toBe('Medium risk: nothing can block selling, but there is a live mint authority.');
  });
  test('freeze authority alone: HIGH, honeypot', () => {
    expect(verdict(assessToken(base({ freezeAuthority: AUTH }), spread))).toEqual(['HIGH', true, ['FREEZE_AUTHORITY']]);
  });

  test('transfer fee boundaries: 499 bps MEDIUM, 500 bps HIGH', () => {
    const at499 = assessToken(withExt(feeExt(499, 10n ** 9n, 499, 10n ** 9n, null)), spread);
    expect(verdict(at499)).toEqual(['MEDIUM', false, ['TRANSFER_FEE']]);
    expect(detail(at499, 'TRANSFER_FEE').summary).toBe('a 4.99% transfer fee');
    expect(detail(at499, 'TRANSFER_FEE').reason).toContain('can no longer be changed');
    expect(verdict(assessToken(withExt(feeExt(500, 10n ** 9n, 500, 10n ** 9n, null)), spread))).toEqual(['HIGH', true, ['TRANSFER_FEE_HIGH']]);
  });
  test('a fee scheduled for a newer epoch counts (older 0, newer 8%), and currentEpoch tells which is in effect', () => {
    const m = withExt(feeExt(0, 0, 800, 10n ** 9n, AUTH, 600));
    const s = assessToken(m, spread);
    expect(verdict(s)).toEqual(['HIGH', true, ['TRANSFER_FEE_HIGH']]);
    expect(detail(s, 'TRANSFER_FEE_HIGH').data).toMatchObject({ olderBasisPoints: 0, newerBasisPoints: 800, newerEpoch: 600, inEffect: null, worstBasisPoints: 800 });
    expect(detail(s, 'TRANSFER_FEE_HIGH').reason).toContain('until epoch 600');
    expect(detail(assessToken(m, spread, { currentEpoch: 599 }), 'TRANSFER_FEE_HIGH').data).toMatchObject({ inEffect: 'older', basisPointsInEffect: 0 });
    expect(detail(assessToken(m, spread, { currentEpoch: 600n }), 'TRANSFER_FEE_HIGH').data).toMatchObject({ inEffect: 'newer', basisPointsInEffect: 800 });
  });
  test('0 bps with a live fee authority is a lesser warning (MEDIUM); with no authority no flag', () => {
    expect(verdict(assessToken(withExt(feeExt(0, 0, 0, 0, AUTH)), spread))).toEqual(['MEDIUM', false, ['TRANSFER_FEE_CONFIGURABLE']]);
    expect(verdict(assessToken(withExt(feeExt(0, 0, 0, 0, null)), spread))).toEqual(['LOW', false, []]);
  });
  test('a fee with a zero maximum charges nothing', () => {
    expect(verdict(assessToken(withExt(feeExt(1000, 0, 1000, 0, AUTH)), spread))).toEqual(['MEDIUM', false, ['TRANSFER_FEE_CONFIGURABLE']]);
  });
  test('maximum fee above 2^53 is reported exactly', () => {
    const s = assessToken(withExt(feeExt(100, 2n ** 64n - 1n, 100, 2n ** 64n - 1n, null)), spread);
    expect(detail(s, 'TRANSFER_FEE').data.olderMaximumFee).toBe('18446744073709551615');
    expect(detail(s, 'TRANSFER_FEE').data.olderMaximumFeeUi).toBe('18446744073709.551615');
  });

  test('permanent delegate: HIGH, honeypot', () => {
    expect(verdict(assessToken(withExt({ extension: 'permanentDelegate', state: { delegate: AUTH } }), spread))).toEqual(['HIGH', true, ['PERMANENT_DELEGATE']]);
    expect(verdict(assessToken(withExt({ extension: 'permanentDelegate', state: { delegate: null } }), spread))).toEqual(['LOW', false, []]);
  });
  test('non-transferable: HIGH, honeypot', () => {
    expect(verdict(assessToken(withExt({ extension: 'nonTransferable' }), spread))).toEqual(['HIGH', true, ['NON_TRANSFERABLE']]);
  });
  test('transfer hook: a program set is HIGH; only an authority is a lesser warning; neither is nothing', () => {
    const set = assessToken(withExt({ extension: 'transferHook', state: { authority: AUTH, programId: HOOK } }), spread);
    expect(verdict(set)).toEqual(['HIGH', true, ['TRANSFER_HOOK']]);
    expect(detail(set, 'TRANSFER_HOOK').data).toEqual({ programId: HOOK, authority: AUTH });
    expect(verdict(assessToken(withExt({ extension: 'transferHook', state: { authority: AUTH, programId: null } }), spread))).toEqual(['MEDIUM', false, ['TRANSFER_HOOK_CONFIGURABLE']]);
    expect(verdict(assessToken(withExt({ extension: 'transferHook', state: { authority: null, programId: null } }), spread))).toEqual(['LOW', false, []]);
  });
  test('default account state: frozen is HIGH; initialized is nothing', () => {
    const frozen = assessToken(withExt({ extension: 'defaultAccountState', state: { accountState: 'frozen' } }), spread);
    expect(verdict(frozen)).toEqual(['HIGH', true, ['DEFAULT_ACCOUNT_STATE_FROZEN']]);
    expect(detail(frozen, 'DEFAULT_ACCOUNT_STATE_FROZEN').reason).toContain('no freeze authority to thaw');
    expect(verdict(assessToken(withExt({ extension: 'defaultAccountState', state: { accountState: 'initialized' } }), spread))).toEqual(['LOW', false, []]);
  });
  test('pausable: paused now → PAUSED; can be paused → PAUSABLE; no authority and not paused → nothing', () => {
    const paused = assessToken(withExt({ extension: 'pausableConfig', state: { authority: AUTH, paused: true } }), spread);
    expect(verdict(paused)).toEqual(['HIGH', true, ['PAUSED']]);
    expect(detail(paused, 'PAUSED').data).toEqual({ paused: true, authority: AUTH });
    const stuck = assessToken(withExt({ extension: 'pausableConfig', state: { authority: null, paused: true } }), spread);
    expect(detail(stuck, 'PAUSED').reason).toContain('no pause authority is left');
    expect(verdict(assessToken(withExt({ extension: 'pausableConfig', state: { authority: AUTH, paused: false } }), spread))).toEqual(['HIGH', true, ['PAUSABLE']]);
    expect(verdict(assessToken(withExt({ extension: 'pausableConfig', state: { authority: null, paused: false } }), spread))).toEqual(['LOW', false, []]);
  });
  test('mint close authority is a low flag: shown, does not raise LOW', () => {
    expect(verdict(assessToken(withExt({ extension: 'mintCloseAuthority', state: { closeAuthority: AUTH } }), spread))).toEqual(['LOW', false, ['MINT_CLOSE_AUTHORITY']]);
  });
  test('informational extensions are listed without raising the level', () => {
    const s = assessToken(
      withExt(
        { extension: 'confidentialTransferMint', state: { authority: AUTH, autoApproveNewAccounts: true, auditorElgamalPubkey: null } },
        { extension: 'confidentialMintBurn' },
        { extension: 'interestBearingConfig', state: { rateAuthority: null, currentRate: 250 } },
        { extension: 'scaledUiAmountConfig', state: { authority: AUTH, multiplier: '2', newMultiplier: '2', newMultiplierEffectiveTimestamp: 0 } },
        { extension: 'permissionedBurnConfig', state: { authority: AUTH } },
        { extension: 'tokenMetadata', state: { updateAuthority: null, mint: 'x', name: 'n', symbol: 's', uri: '', additionalMetadata: [] } },
      ),
      spread,
    );
    expect(verdict(s)).toEqual(['LOW', false, ['CONFIDENTIAL_TRANSFERS', 'CONFIDENTIAL_MINT_BURN', 'INTEREST_BEARING', 'SCALED_UI_AMOUNT', 'PERMISSIONED_BURN']]);
    expect(detail(s, 'INTEREST_BEARING').reason).toContain('2.5% a year');
    for (const d of s.details) expect(d.severity).toBe('info');
  });
  test('an extension nobody could decode is MEDIUM', () => {
    const s = assessToken(withExt({ extension: 'unparseableExtension', state: { extensionType: 99 } }), spread);
    expect(verdict(s)).toEqual(['MEDIUM', false, ['UNPARSEABLE_EXTENSION']]);
    expect(detail(s, 'UNPARSEABLE_EXTENSION').data).toEqual({ count: 1, extensionTypes: '99' });
  });
});

describe('concentration rules (wallet view, % of total supply)', () => {
  const pct = (p: bigint, per = 100n) => (SUPPLY * p) / per;
  const flagsFor = (holders: Holder[]) => assessToken(base(), holders).flags;
  test('top-1 boundaries: 25% HIGH, just under 25% ELEVATED, 10% ELEVATED, just under 10% nothing', () => {
    expect(flagsFor([holder('a', pct(25n), 'wallet')])).toEqual(['HOLDER_CONCENTRATION_HIGH']);
    expect(flagsFor([holder('a', pct(249_999n, 1_000_000n), 'wallet')])).toEqual(['HOLDER_CONCENTRATION_ELEVATED']);
    expect(flagsFor([holder('a', pct(10n), 'wallet')])).toEqual(['HOLDER_CONCENTRATION_ELEVATED']);
    expect(flagsFor([holder('a', pct(99_999n, 1_000_000n), 'wallet')])).toEqual([]);
  });
  test('top-10 boundaries: 60% HIGH, 35% ELEVATED, under that nothing', () => {
    const ten = (each: bigint) => Array.from({ length: 10 }, (_, i) => holder(`w${i}`, each, 'wallet'));
    expect(flagsFor(ten(pct(6n)))).toEqual(['HOLDER_CONCENTRATION_HIGH']);
    expect(flagsFor(ten(pct(35n, 1000n)))).toEqual(['HOLDER_CONCENTRATION_ELEVATED']);
    expect(flagsFor(ten(pct(34n, 1000n)))).toEqual([]);
  });
  test('pool vaults and burn addresses do not count: a 90% pool + 5% burned is LOW', () => {
    const s = assessToken(base(), [holder('pool', pct(90n), 'program'), holder('dead', pct(5n), 'burn'), holder('w', pct(1n), 'wallet')]);
    expect(verdict(s)).toEqual(['LOW', false, []]);
    expect(s.concentration?.all.top1Percent).toBe(90);
    expect(s.concentration?.excludingProgramAndBurn.top1Percent).toBe(1);
  });
  test('unknown-kind holders do count (conservative)', () => {
    expect(flagsFor([holder('u', pct(30n), 'unknown')])).toEqual(['HOLDER_CONCENTRATION_HIGH']);
  });
  test('zero supply with holders: ZERO_SUPPLY, no shares, no crash', () => {
    const s = assessToken(base({ supply: 0n }), [holder('a', 0n, 'wallet')]);
    expect(verdict(s)).toEqual(['LOW', false, ['ZERO_SUPPLY']]);
    expect(s.concentration).toBeNull();
  });
  test('supply above 2^53', () => {
    const big = 2n ** 64n - 1n;
    const s = assessToken(base({ supply: big }), [holder('a', big / 4n, 'wallet')]);
    expect(s.flags).toEqual(['HOLDER_CONCENTRATION_HIGH']);
    expect(s.concentration?.all.top1Percent).toBe(25);
  });
});

describe('scoring table', () => {
  test('every exit-blocking flag is high severity, so isHoneypotRisk implies HIGH', () => {
    for (const [name, rule] of Object.entries(FLAG_RULES)) {
      if (rule.canBlockExit) expect(`${name}:${rule.severity}`).toBe(`${name}:high`);
    }
  });
});

describe('buildTokenProfile', () => {
  test('PYUSD body: exact ui supply, JSON-safe extensions, security', async () => {
    const p = buildTokenProfile(await fixtureMint(PYUSD, 'getAccountInfo/pyusd-token2022-mint-gem.json'), []);
    expect(p.mint).toBe(PYUSD);
    expect(p.tokenProgram).toBe(TOKEN_2022_PROGRAM);
    expect(p.supply).toBe('148331253437589');
    expect(p.uiSupply).toBe('148331253.437589');
    expect(p.topHolders).toEqual([]);
    expect(p.security.riskLevel).toBe('LOW');
    expect(JSON.parse(JSON.stringify(p)).extensions).toHaveLength(8);
  });
  test('honeypot body serializes with plain JSON.stringify (u64 fee maximum as a string)', async () => {
    const p = buildTokenProfile(await fixtureMint(HONEYPOT, 'getAccountInfo-parsed-data-only/honeypot-token2022-fee1000bps-nontransferable-interest-sava.json', true), []);
    const body = JSON.parse(JSON.stringify(p));
    expect(body.extensions[0].state.newerTransferFee.maximumFee).toBe('2328306436538696192');
    expect(body.uiSupply).toBe('0');
    expect(body.security.isHoneypotRisk).toBe(true);
  });
  test('BONK with holders: top holders marked by kind, percent of supply', async () => {
    const bonk = await fixtureMint(BONK, 'getAccountInfo/bonk-mint-authorities-revoked-memecoinbot.json');
    const p = buildTokenProfile(bonk, [holder('vault', bonk.supply / 20n, 'program'), holder('inc', bonk.supply / 50n, 'burn'), holder('w', 123_456n, 'wallet')]);
    expect(p.uiSupply).toBe('87994713435828.88521');
    expect(p.topHolders.map((t) => [t.address, t.kind, t.percent])).toEqual([
      ['vault', 'program', 5],
      ['inc', 'burn', 2],
      ['w', 'wallet', 0],
    ]);
    expect(p.topHolders[2]?.uiAmountString).toBe('1.23456');
    expect(p.security.riskLevel).toBe('LOW');
    expect(p.tokenProgram).toBe(TOKEN_PROGRAM);
  });
});
