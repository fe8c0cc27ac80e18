// Token security assessment (pure): mint authorities, Token-2022 extensions and top-holder
// concentration → flags with readable reasons and the numbers behind them, a risk level, and
// whether a holder can be stopped or taxed on exit (isHoneypotRisk).

import { big } from '../../json.ts';
import { concentration as computeConcentration, topHolders as buildTopHolders } from './holders.ts';
import type { Concentration, Holder, TopHolder } from './holders.ts';
import { findExtension } from './mint.ts';
import type { MintExtension, MintInfo } from './mint.ts';
import { formatUnits } from '../format.ts';

export type RiskLevel = 'LOW' | 'MEDIUM' | 'HIGH';
export type Severity = 'high' | 'medium' | 'low' | 'info';

export type FlagName =
  | 'FREEZE_AUTHORITY'
  | 'MINT_AUTHORITY'
  | 'TRANSFER_FEE_HIGH'
  | 'TRANSFER_FEE'
  | 'TRANSFER_FEE_CONFIGURABLE'
  | 'PERMANENT_DELEGATE'
  | 'NON_TRANSFERABLE'
  | 'TRANSFER_HOOK'
  | 'TRANSFER_HOOK_CONFIGURABLE'
  | 'DEFAULT_ACCOUNT_STATE_FROZEN'
  | 'PAUSED'
  | 'PAUSABLE'
  | 'MINT_CLOSE_AUTHORITY'
  | 'HOLDER_CONCENTRATION_HIGH'
  | 'HOLDER_CONCENTRATION_ELEVATED'
  | 'UNPARSEABLE_EXTENSION'
  | 'CONFIDENTIAL_TRANSFERS'
  | 'CONFIDENTIAL_MINT_BURN'
  | 'INTEREST_BEARING'
  | 'SCALED_UI_AMOUNT'
  | 'PERMISSIONED_BURN'
  | 'METADATA_MUTABLE'
  | 'ZERO_SUPPLY'
  | 'HOLDERS_UNAVAILABLE';

export interface FlagRule {
  readonly severity: Severity;
  /** Can this stop a holder from selling, or tax the sale heavily? (what isHoneypotRisk means) */
  readonly canBlockExit: boolean;
  /** A capability a regulated stablecoin issuer legitimately keeps (explained, not scored, for them). */
  readonly issuerControl: boolean;
}

// Scoring: riskLevel = HIGH if any scored flag is 'high', else MEDIUM if any is 'medium', else LOW;
// isHoneypotRisk = some flag that canBlockExit is present and not explained as an issuer control.
// Why: a holder's worst case decides — anything that can freeze, seize, block or heavily tax an exit
// is HIGH (and is exactly the honeypot question); dilution or a switch that could later add a fee or
// hook is MEDIUM; the rest is context. For the regulated stablecoins below, issuerControl flags are
// still listed but scored 'low' (explained as compliance controls).
export const FLAG_RULES: Readonly<Record<FlagName, FlagRule>> = {
  FREEZE_AUTHORITY: { severity: 'high', canBlockExit: true, issuerControl: true },
  MINT_AUTHORITY: { severity: 'medium', canBlockExit: false, issuerControl: true },
  TRANSFER_FEE_HIGH: { severity: 'high', canBlockExit: true, issuerControl: false }, // ≥ 5%
  TRANSFER_FEE: { severity: 'medium', canBlockExit: false, issuerControl: false }, // > 0, < 5%
  TRANSFER_FEE_CONFIGURABLE: { severity: 'medium', canBlockExit: false, issuerControl: true }, // 0 now, authority live
  PERMANENT_DELEGATE: { severity: 'high', canBlockExit: true, issuerControl: true },
  NON_TRANSFERABLE: { severity: 'high', canBlockExit: true, issuerControl: false },
  TRANSFER_HOOK: { severity: 'high', canBlockExit: true, issuerControl: false }, // hook program set
  TRANSFER_HOOK_CONFIGURABLE: { severity: 'medium', canBlockExit: false, issuerControl: true }, // none set, authority live
  DEFAULT_ACCOUNT_STATE_FROZEN: { severity: 'high', canBlockExit: true, issuerControl: true },
  PAUSED: { severity: 'high', canBlockExit: true, issuerControl: false },
  PAUSABLE: { severity: 'high', canBlockExit: true, issuerControl: true },
  MINT_CLOSE_AUTHORITY: { severity: 'low', canBlockExit: false, issuerControl: true },
  HOLDER_CONCENTRATION_HIGH: { severity: 'high', canBlockExit: false, issuerControl: false },
  HOLDER_CONCENTRATION_ELEVATED: { severity: 'medium', canBlockExit: false, issuerControl: false },
  UNPARSEABLE_EXTENSION: { severity: 'medium', canBlockExit: false, issuerControl: false },
  CONFIDENTIAL_TRANSFERS: { severity: 'info', canBlockExit: false, issuerControl: false },
  CONFIDENTIAL_MINT_BURN: { severity: 'info', canBlockExit: false, issuerControl: false },
  INTEREST_BEARING: { severity: 'info', canBlockExit: false, issuerControl: false },
  SCALED_UI_AMOUNT: { severity: 'info', canBlockExit: false, issuerControl: false },
  PERMISSIONED_BURN: { severity: 'info', canBlockExit: false, issuerControl: false },
  METADATA_MUTABLE: { severity: 'info', canBlockExit: false, issuerControl: false },
  ZERO_SUPPLY: { severity: 'info', canBlockExit: false, issuerControl: false },
  HOLDERS_UNAVAILABLE: { severity: 'info', canBlockExit: false, issuerControl: false },
};

/** Transfer fee at or above this many basis points (5%) can make selling pointless: TRANSFER_FEE_HIGH. */
export const HIGH_FEE_BPS = 500;

/**
 * Concentration thresholds, applied to the view WITHOUT program-controlled and burn holders
 * (a pool vault or bonding curve is not a seller who can dump), as percent of total supply.
 */
export const CONCENTRATION_THRESHOLDS = {
  high: { top1Percent: 25, top10Percent: 60 },
  elevated: { top1Percent: 10, top10Percent: 35 },
} as const;

export interface KnownIssuer {
  readonly symbol: string;
  readonly issuer: string;
  readonly category: 'regulated-stablecoin';
}

/** Kept small and explicit; addresses checked against tests/fixtures/mainnet (see SOURCES.md). */
export const REGULATED_STABLECOINS: ReadonlyMap<string, KnownIssuer> = new Map([
  ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', { symbol: 'USDC', issuer: 'Circle', category: 'regulated-stablecoin' }],
  ['Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', { symbol: 'USDT', issuer: 'Tether', category: 'regulated-stablecoin' }],
  ['2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', { symbol: 'PYUSD', issuer: 'Paxos', category: 'regulated-stablecoin' }],
]);

export type FlagData = Readonly<Record<string, string | number | boolean | null>>;

export interface FlagDetail {
  readonly flag: FlagName;
  /** Severity from FLAG_RULES. */
  readonly severity: Severity;
  /** What the scoring used: 'low' for an explained issuer control, else `severity`. */
  readonly scoredAs: Severity;
  readonly canBlockExit: boolean;
  /** Short phrase, e.g. "a 10% transfer fee". */
  readonly summary: string;
  /** A sentence a person can read. */
  readonly reason: string;
  /** Set when the flag is an expected compliance control of a known regulated issuer. */
  readonly issuerControl: string | null;
  /** The numbers behind the flag (raw amounts as strings). */
  readonly data: FlagData;
}

export interface Security {
  readonly riskLevel: RiskLevel;
  readonly flags: FlagName[];
  readonly isHoneypotRisk: boolean;
  readonly analysis: string;
  readonly details: FlagDetail[];
  readonly knownIssuer: KnownIssuer | null;
  /** null when supply is zero or no holders were given. */
  readonly concentration: Concentration | null;
}

export interface AssessOptions {
  /** Current epoch, to tell which transfer fee (older/newer) is in effect. */
  readonly currentEpoch?: number | bigint;
}

// ---------------------------------------------------------------------------------------------

function rec(ext: MintExtension | undefined): Readonly<Record<string, unknown>> {
  return ext?.state ?? {};
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function int(value: unknown): bigint {
  try {
    return big(value);
  } catch {
    return 0n;
  }
}

function bpsPercent(bps: bigint): string {
  return `${formatUnits(bps, 2)}%`;
}

interface Draft {
  flag: FlagName;
  summary: string;
  reason: string;
  data: FlagData;
}

const ISSUER_REASONS: Partial<Record<FlagName, string>> = {
  FREEZE_AUTHORITY: 'to freeze sanctioned or stolen funds under its compliance program',
  MINT_AUTHORITY: 'to issue and redeem tokens against its reserves',
  PERMANENT_DELEGATE: 'to recover or seize funds under legal orders',
  TRANSFER_FEE_CONFIGURABLE: 'as a reserved setting (the fee is zero today)',
  TRANSFER_HOOK_CONFIGURABLE: 'as a reserved setting for future compliance checks (no hook runs today)',
  DEFAULT_ACCOUNT_STATE_FROZEN: 'to admit only verified holders',
  PAUSABLE: 'to halt transfers in an emergency',
  MINT_CLOSE_AUTHORITY: 'for account maintenance',
};

function authorityFlags(mint: MintInfo, out: Draft[]): void {
  if (mint.freezeAuthority !== null) {
    out.push({
      flag: 'FREEZE_AUTHORITY',
      summary: 'a live freeze authority',
      reason: `Freeze authority ${mint.freezeAuthority} can freeze any holder's token account, stopping them from selling or moving tokens.`,
      data: { freezeAuthority: mint.freezeAuthority },
    });
  }
  if (mint.mintAuthority !== null) {
    out.push({
      flag: 'MINT_AUTHORITY',
      summary: 'a live mint authority',
      reason: `Mint authority ${mint.mintAuthority} can mint any amount of new tokens, diluting every holder.`,
      data: { mintAuthority: mint.mintAuthority },
    });
  }
}

function transferFeeFlags(mint: MintInfo, opts: AssessOptions, out: Draft[]): void {
  const ext = findExtension(mint, 'transferFeeConfig');
  if (ext === undefined) return;
  const s = rec(ext);
  const older = (s.olderTransferFee ?? {}) as Record<string, unknown>;
  const newer = (s.newerTransferFee ?? {}) as Record<string, unknown>;
  const olderBps = int(older.transferFeeBasisPoints);
  const newerBps = int(newer.transferFeeBasisPoints);
  const olderMax = int(older.maximumFee);
  const newerMax = int(newer.maximumFee);
  const olderEpoch = int(older.epoch);
  const newerEpoch = int(newer.epoch);
  // A fee with a zero cap charges nothing; otherwise the worse of the two schedules counts.
  const effOlder = olderMax > 0n ? olderBps : 0n;
  const effNewer = newerMax > 0n ? newerBps : 0n;
  const worst = effOlder > effNewer ? effOlder : effNewer;
  const worstMax = effNewer >= effOlder ? newerMax : olderMax;
  const authority = str(s.transferFeeConfigAuthority);
  let inEffect: 'older' | 'newer' | null = null;
  if (opts.currentEpoch !== undefined) inEffect = BigInt(opts.currentEpoch) >= newerEpoch ? 'newer' : 'older';
  const data: FlagData = {
    olderBasisPoints: Number(olderBps),
    olderPercent: bpsPercent(olderBps),
    olderMaximumFee: olderMax.toString(),
    olderMaximumFeeUi: formatUnits(olderMax, mint.decimals),
    olderEpoch: Number(olderEpoch),
    newerBasisPoints: Number(newerBps),
    newerPercent: bpsPercent(newerBps),
    newerMaximumFee: newerMax.toString(),
    newerMaximumFeeUi: formatUnits(newerMax, mint.decimals),
    newerEpoch: Number(newerEpoch),
    inEffect,
    basisPointsInEffect: inEffect === null ? null : Number(inEffect === 'newer' ? newerBps : olderBps),
    transferFeeConfigAuthority: authority,
    withdrawWithheldAuthority: str(s.withdrawWithheldAuthority),
    withheldAmount: int(s.withheldAmount).toString(),
  };
  const schedule =
    olderBps === newerBps && olderMax === newerMax
      ? `${bpsPercent(olderBps)} (${olderBps} bps, capped at ${formatUnits(olderMax, mint.decimals)} tokens per transfer)`
      : `${bpsPercent(olderBps)} (${olderBps} bps, cap ${formatUnits(olderMax, mint.decimals)}) until epoch ${newerEpoch}, then ${bpsPercent(newerBps)} (${newerBps} bps, cap ${formatUnits(newerMax, mint.decimals)})`;
  const who = authority === null ? 'The fee can no longer be changed.' : `Authority ${authority} can change it (effective two epochs later).`;
  if (worst >= BigInt(HIGH_FEE_BPS)) {
    out.push({
      flag: 'TRANSFER_FEE_HIGH',
      summary: `a ${bpsPercent(worst)} transfer fee`,
      reason: `Every transfer, including a sale, loses ${schedule} to a withheld fee. ${who}`,
      data: { ...data, worstBasisPoints: Number(worst), worstMaximumFee: worstMax.toString() },
    });
  } else if (worst > 0n) {
    out.push({
      flag: 'TRANSFER_FEE',
      summary: `a ${bpsPercent(worst)} transfer fee`,
      reason: `Every transfer pays a fee of ${schedule}. ${who}`,
      data: { ...data, worstBasisPoints: Number(worst), worstMaximumFee: worstMax.toString() },
    });
  } else if (authority !== null) {
    out.push({
      flag: 'TRANSFER_FEE_CONFIGURABLE',
      summary: 'a transfer fee that is zero but can be raised',
      reason: `The transfer fee is 0 today, but authority ${authority} can raise it (up to 100%, effective two epochs later).`,
      data,
    });
  }
}

function extensionFlags(mint: MintInfo, out: Draft[]): void {
  const pd = findExtension(mint, 'permanentDelegate');
  const delegate = str(rec(pd).delegate);
  if (pd !== undefined && delegate !== null) {
    out.push({
      flag: 'PERMANENT_DELEGATE',
      summary: 'a permanent delegate',
      reason: `Permanent delegate ${delegate} can transfer or burn tokens from any holder's account without their signature.`,
      data: { delegate },
    });
  }

  if (findExtension(mint, 'nonTransferable') !== undefined) {
    out.push({
      flag: 'NON_TRANSFERABLE',
      summary: 'non-transferable tokens',
      reason: 'Tokens of this mint cannot be transferred at all, so a holder can never sell them.',
      data: { nonTransferable: true },
    });
  }

  const hook = findExtension(mint, 'transferHook');
  if (hook !== undefined) {
    const programId = str(rec(hook).programId);
    const authority = str(rec(hook).authority);
    if (programId !== null) {
      out.push({
        flag: 'TRANSFER_HOOK',
        summary: 'a transfer hook program',
        reason: `Every transfer calls program ${programId}, which can reject transfers (for example sells) at its owner's discretion.`,
        data: { programId, authority },
      });
    } else if (authority !== null) {
      out.push({
        flag: 'TRANSFER_HOOK_CONFIGURABLE',
        summary: 'a transfer hook that can be switched on',
        reason: `No transfer hook program is set, but authority ${authority} can set one, which could then reject transfers.`,
        data: { programId: null, authority },
      });
    }
  }

  const das = findExtension(mint, 'defaultAccountState');
  if (das !== undefined && rec(das).accountState === 'frozen') {
    out.push({
      flag: 'DEFAULT_ACCOUNT_STATE_FROZEN',
      summary: 'accounts that start frozen',
      reason:
        mint.freezeAuthority === null
          ? 'New token accounts start frozen and there is no freeze authority to thaw them, so new holders can never move tokens.'
          : `New token accounts start frozen; a buyer cannot move tokens until freeze authority ${mint.freezeAuthority} thaws their account.`,
      data: { accountState: 'frozen', freezeAuthority: mint.freezeAuthority },
    });
  }

  const pausable = findExtension(mint, 'pausableConfig');
  if (pausable !== undefined) {
    const paused = rec(pausable).paused === true;
    const authority = str(rec(pausable).authority);
    if (paused) {
      out.push({
        flag: 'PAUSED',
        summary: 'transfers currently paused',
        reason:
          authority === null
            ? 'Transfers, mints and burns are paused and no pause authority is left to resume them.'
            : `Transfers, mints and burns are paused right now by pause authority ${authority}.`,
        data: { paused: true, authority },
      });
    } else if (authority !== null) {
      out.push({
        flag: 'PAUSABLE',
        summary: 'a pause authority',
        reason: `Pause authority ${authority} can halt all transfers of this token at any time (not paused now).`,
        data: { paused: false, authority },
      });
    }
  }

  const close = str(rec(findExtension(mint, 'mintCloseAuthority')).closeAuthority);
  if (close !== null) {
    out.push({
      flag: 'MINT_CLOSE_AUTHORITY',
      summary: 'a mint close authority',
      reason: `Close authority ${close} can close the mint account once supply is zero (and the address could be re-initialized with new settings).`,
      data: { closeAuthority: close },
    });
  }

  const unparseable = mint.extensions.filter((e) => e.extension === 'unparseableExtension');
  if (unparseable.length > 0) {
    const types = unparseable.map((e) => e.state?.extensionType).filter((t) => t !== undefined);
    out.push({
      flag: 'UNPARSEABLE_EXTENSION',
      summary: 'an extension that could not be read',
      reason: `The mint carries ${unparseable.length} extension(s) that could not be decoded; their effect on transfers is unknown.`,
      data: { count: unparseable.length, extensionTypes: types.length > 0 ? types.join(',') : null },
    });
  }

  const ct = findExtension(mint, 'confidentialTransferMint');
  if (ct !== undefined) {
    const authority = str(rec(ct).authority);
    const autoApprove = rec(ct).autoApproveNewAccounts === true;
    out.push({
      flag: 'CONFIDENTIAL_TRANSFERS',
      summary: 'confidential transfers',
      reason: `Confidential transfers are enabled: balances moved into confidential mode are encrypted, so visible holdings can understate real ones (authority ${authority ?? 'none'}, new accounts ${autoApprove ? 'auto-approved' : 'need approval'}).`,
      data: { authority, autoApproveNewAccounts: autoApprove, auditorElgamalPubkey: str(rec(ct).auditorElgamalPubkey) },
    });
  }

  if (findExtension(mint, 'confidentialMintBurn') !== undefined) {
    out.push({
      flag: 'CONFIDENTIAL_MINT_BURN',
      summary: 'confidential minting and burning',
      reason: 'Mints and burns can be confidential, so the public supply may not reflect every token in existence.',
      data: { confidentialMintBurn: true },
    });
  }

  const ib = findExtension(mint, 'interestBearingConfig');
  if (ib !== undefined) {
    const rate = Number(int(rec(ib).currentRate));
    const authority = str(rec(ib).rateAuthority);
    out.push({
      flag: 'INTEREST_BEARING',
      summary: 'interest-bearing display amounts',
      reason: `Displayed balances accrue ${bpsPercent(BigInt(rate))} a year (${rate} bps${authority === null ? ', fixed' : `, set by rate authority ${authority}`}); raw amounts do not change, and amounts in this profile are unadjusted.`,
      data: { currentRateBasisPoints: rate, rateAuthority: authority },
    });
  }

  const scaled = findExtension(mint, 'scaledUiAmountConfig');
  if (scaled !== undefined) {
    const s = rec(scaled);
    const authority = str(s.authority);
    const multiplier = s.multiplier === undefined ? null : String(s.multiplier);
    const newMultiplier = s.newMultiplier === undefined ? null : String(s.newMultiplier);
    const effective = s.newMultiplierEffectiveTimestamp === undefined ? null : Number(int(s.newMultiplierEffectiveTimestamp));
    out.push({
      flag: 'SCALED_UI_AMOUNT',
      summary: 'scaled display amounts',
      reason: `Wallets show balances multiplied by ${multiplier ?? '?'}${newMultiplier !== null && newMultiplier !== multiplier ? ` (${newMultiplier} from unix time ${effective})` : ''}${authority === null ? '' : `, which authority ${authority} can change`}; amounts in this profile are raw / 10^decimals, unscaled.`,
      data: { multiplier, newMultiplier, newMultiplierEffectiveTimestamp: effective, authority },
    });
  }

  const pb = findExtension(mint, 'permissionedBurnConfig');
  if (pb !== undefined) {
    const authority = str(rec(pb).authority);
    out.push({
      flag: 'PERMISSIONED_BURN',
      summary: 'permissioned burning',
      reason: `Burning requires the co-signature of authority ${authority ?? 'none'}, so holders cannot burn on their own.`,
      data: { authority },
    });
  }

  const md = findExtension(mint, 'tokenMetadata');
  const updateAuthority = str(rec(md).updateAuthority);
  if (md !== undefined && updateAuthority !== null) {
    out.push({
      flag: 'METADATA_MUTABLE',
      summary: 'mutable metadata',
      reason: `Update authority ${updateAuthority} can change the token's name, symbol and URI.`,
      data: {
        updateAuthority,
        name: str(rec(md).name),
        symbol: str(rec(md).symbol),
      },
    });
  }
}

function concentrationFlags(mint: MintInfo, c: Concentration | null, holderCount: number, out: Draft[]): void {
  if (mint.supply === 0n) {
    out.push({
      flag: 'ZERO_SUPPLY',
      summary: 'zero supply',
      reason: 'No tokens exist yet (supply 0), so holder shares cannot be computed.',
      data: { supply: '0' },
    });
    return;
  }
  if (c === null || holderCount === 0) {
    out.push({
      flag: 'HOLDERS_UNAVAILABLE',
      summary: 'no holder data',
      reason: 'Top holders were not available, so holder concentration was not assessed.',
      data: { holders: 0 },
    });
    return;
  }
  const ex = c.excludingProgramAndBurn;
  const top1 = ex.top1Percent ?? 0;
  const top10 = ex.top10Percent ?? 0;
  const t = CONCENTRATION_THRESHOLDS;
  const level =
    top1 >= t.high.top1Percent || top10 >= t.high.top10Percent
      ? 'HOLDER_CONCENTRATION_HIGH'
      : top1 >= t.elevated.top1Percent || top10 >= t.elevated.top10Percent
        ? 'HOLDER_CONCENTRATION_ELEVATED'
        : null;
  if (level === null) return;
  const limits = level === 'HOLDER_CONCENTRATION_HIGH' ? t.high : t.elevated;
  out.push({
    flag: level,
    summary: `${level === 'HOLDER_CONCENTRATION_HIGH' ? 'highly concentrated' : 'concentrated'} holdings (top holder ${top1}%, top 10 ${top10}%)`,
    reason: `Leaving out program-controlled and burn holders, the largest holder has ${top1}% of supply and the top ${ex.holdersCounted} together ${top10}% (with them: ${c.all.top1Percent}% and ${c.all.top10Percent}%), so a few holders can move the price.`,
    data: {
      top1Percent: ex.top1Percent,
      top10Percent: ex.top10Percent,
      top1Address: ex.top1Address,
      top1PercentAll: c.all.top1Percent,
      top10PercentAll: c.all.top10Percent,
      thresholdTop1Percent: limits.top1Percent,
      thresholdTop10Percent: limits.top10Percent,
      programPercent: c.byKind.program.percent,
      burnPercent: c.byKind.burn.percent,
    },
  });
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function analysisSentence(
  level: RiskLevel,
  honeypot: boolean,
  details: FlagDetail[],
  issuer: KnownIssuer | null,
  c: Concentration | null,
): string {
  const scored = (s: Severity) => details.filter((d) => d.scoredAs === s).map((d) => d.summary);
  const explained = details.filter((d) => d.issuerControl !== null).map((d) => d.summary.replace(/^an? /, ''));
  if (issuer !== null && !honeypot) {
    const head = `${issuer.symbol} is a regulated stablecoin issued by ${issuer.issuer}`;
    const controls = explained.length === 1 ? 'is an issuer compliance control' : 'are issuer compliance controls';
    const ctrl = explained.length > 0 ? `; its ${list(explained)} ${controls}, not a honeypot signal` : '';
    const rest = [...scored('high'), ...scored('medium')];
    const tail = rest.length > 0 ? `, but note ${list(rest)}` : '';
    return `${head}${ctrl}${tail}.`;
  }
  if (level === 'HIGH') {
    const exit = details.filter((d) => d.canBlockExit && d.issuerControl === null).map((d) => d.summary);
    if (honeypot) {
      const other = scored('high').filter((s) => !exit.includes(s));
      return `High risk: holders can be blocked or taxed on exit because of ${list(exit)}${other.length > 0 ? `, plus ${list(other)}` : ''}.`;
    }
    return `High risk: ${list(scored('high'))}.`;
  }
  if (level === 'MEDIUM') {
    return `Medium risk: nothing can block selling, but there is ${list(scored('medium'))}.`;
  }
  const holders = c === null ? 'top holders were not assessed' : 'holdings are not concentrated';
  return `Low risk: mint and freeze authorities are revoked, no extension can block or tax transfers, and ${holders}.`;
}

/** Flags, risk level, honeypot verdict and a one-sentence analysis for a mint and its top holders. */
export function assessToken(mint: MintInfo, holders: readonly Holder[], opts: AssessOptions = {}): Security {
  const issuer = REGULATED_STABLECOINS.get(mint.address) ?? null;
  const c = mint.supply > 0n && holders.length > 0 ? computeConcentration(holders, mint.supply) : null;

  const drafts: Draft[] = [];
  authorityFlags(mint, drafts);
  transferFeeFlags(mint, opts, drafts);
  extensionFlags(mint, drafts);
  concentrationFlags(mint, c, holders.length, drafts);

  const details: FlagDetail[] = drafts.map((d) => {
    const rule = FLAG_RULES[d.flag];
    const explained = issuer !== null && rule.issuerControl;
    const issuerControl = explained
      ? `${issuer.issuer} keeps this ${ISSUER_REASONS[d.flag] ?? 'as an issuer control'}; it is expected for a regulated stablecoin.`
      : null;
    const scoredAs: Severity = explained && (rule.severity === 'high' || rule.severity === 'medium') ? 'low' : rule.severity;
    return { flag: d.flag, severity: rule.severity, scoredAs, canBlockExit: rule.canBlockExit, summary: d.summary, reason: d.reason, issuerControl, data: d.data };
  });

  const riskLevel: RiskLevel = details.some((d) => d.scoredAs === 'high')
    ? 'HIGH'
    : details.some((d) => d.scoredAs === 'medium')
      ? 'MEDIUM'
      : 'LOW';
  const isHoneypotRisk = details.some((d) => d.canBlockExit && d.issuerControl === null);

  return {
    riskLevel,
    flags: details.map((d) => d.flag),
    isHoneypotRisk,
    analysis: analysisSentence(riskLevel, isHoneypotRisk, details, issuer, c),
    details,
    knownIssuer: issuer,
    concentration: c,
  };
}

// ---------------------------------------------------------------------------------------------

export interface TokenProfile {
  readonly mint: string;
  readonly tokenProgram: string;
  readonly program: MintInfo['program'];
  readonly decimals: number;
  readonly supply: string;
  readonly uiSupply: string;
  readonly mintAuthority: string | null;
  readonly freezeAuthority: string | null;
  /** As RPC jsonParsed reports them, with u64 values above 2^53 as decimal strings. */
  readonly extensions: MintExtension[];
  readonly topHolders: TopHolder[];
  readonly security: Security;
}

function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  }
  return value;
}

/** The body of GET /api/chain/token-profile. */
export function buildTokenProfile(mint: MintInfo, holders: readonly Holder[], opts: AssessOptions = {}): TokenProfile {
  return {
    mint: mint.address,
    tokenProgram: mint.tokenProgram,
    program: mint.program,
    decimals: mint.decimals,
    supply: mint.supply.toString(),
    uiSupply: formatUnits(mint.supply, mint.decimals),
    mintAuthority: mint.mintAuthority,
    freezeAuthority: mint.freezeAuthority,
    extensions: mint.extensions.map((e) => jsonSafe(e) as MintExtension),
    topHolders: buildTopHolders(holders, mint.supply, mint.decimals),
    security: assessToken(mint, holders, opts),
  };
}
