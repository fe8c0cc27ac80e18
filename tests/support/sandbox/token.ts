// SPL Token / Token-2022 state -> the RPC's jsonParsed shapes (Agave account-decoder naming), and token amounts.

import { getMintDecoder, getTokenDecoder, type Extension, type Mint, type Token } from '@solana-program/token-2022';
import { base58 } from '@scure/base';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './constants.ts';
import { b64, readU64 } from './wire.ts';

export interface RawAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

export type AccountLookup = (address: string) => RawAccount | null;

const MINT_LEN = 82;
const ACCOUNT_LEN = 165;
const MULTISIG_LEN = 355;

export type TokenStateKind = 'mint' | 'account' | 'multisig';

/** What a token-program account holds, by Agave's rules (exact base sizes, else the Token-2022 account-type byte). */
export function tokenStateKind(owner: string, data: Uint8Array): TokenStateKind | null {
  if (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM) return null;
  if (data.length === MINT_LEN) return 'mint';
  if (data.length === ACCOUNT_LEN) return 'account';
  if (data.length === MULTISIG_LEN) return 'multisig';
  if (owner === TOKEN_2022_PROGRAM && data.length > ACCOUNT_LEN) {
    if (data[ACCOUNT_LEN] === 1) return 'mint';
    if (data[ACCOUNT_LEN] === 2) return 'account';
  }
  return null;
}

export function decodeMint(acc: RawAccount): Mint | null {
  if (tokenStateKind(acc.owner, acc.data) !== 'mint') return null;
  try {
    const mint = getMintDecoder().decode(acc.data);
    return mint.isInitialized ? mint : null;
  } catch {
    return null;
  }
}

export function decodeTokenAccount(acc: RawAccount): Token | null {
  if (tokenStateKind(acc.owner, acc.data) !== 'account') return null;
  try {
    const token = getTokenDecoder().decode(acc.data);
    return token.state === 0 ? null : token;
  } catch {
    return null;
  }
}

/** Mint and owner of a token account straight from the bytes (cheap filter for scans). */
export function tokenAccountHeader(data: Uint8Array): { mint: string; owner: string; amount: bigint } {
  return { mint: base58.encode(data.subarray(0, 32)), owner: base58.encode(data.subarray(32, 64)), amount: readU64(data, 64) };
}

/** Agave's real_number_string_trimmed. */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

export interface UiTokenAmount {
  uiAmount: number | null;
  decimals: number;
  amount: string;
  uiAmountString: string;
}

/** UiTokenAmount in Agave's field order. `zeroAsNull` mimics stored transaction metadata, where 0.0 comes back as null. */
export function uiTokenAmount(amount: bigint, decimals: number, zeroAsNull = false): UiTokenAmount {
  const str = uiAmountString(amount, decimals);
  const ui = Number.parseFloat(str);
  return { uiAmount: zeroAsNull && ui === 0 ? null : ui, decimals, amount: amount.toString(), uiAmountString: str };
}

const ZERO_ADDRESS = SYSTEM_PROGRAM; // 32 zero bytes

type OptionLike<T> = { __option: 'Some'; value: T } | { __option: 'None' };

function opt(v: unknown): string | null {
  if (v && typeof v === 'object' && '__option' in v) {
    const o = v as OptionLike<string>;
    return o.__option === 'Some' && o.value !== ZERO_ADDRESS ? o.value : null;
  }
  if (typeof v === 'string') return v === ZERO_ADDRESS ? null : v;
  return null;
}

/** An ElGamal pubkey / ciphertext is shown base64-encoded; kit decodes pubkeys as base58 addresses. */
function elgamal(v: unknown): string | null {
  const s = opt(v);
  return s === null ? null : b64(base58.decode(s));
}
const bytes64 = (v: unknown): string => b64(new Uint8Array(v as ArrayLike<number>));

const ACCOUNT_STATE = ['uninitialized', 'initialized', 'frozen'] as const;

export const EXTENSION_TYPE_NAMES = [
  'uninitialized', 'transferFeeConfig', 'transferFeeAmount', 'mintCloseAuthority', 'confidentialTransferMint',
  'confidentialTransferAccount', 'defaultAccountState', 'immutableOwner', 'memoTransfer', 'nonTransferable',
  'interestBearingConfig', 'cpiGuard', 'permanentDelegate', 'nonTransferableAccount', 'transferHook', 'transferHookAccount',
  'confidentialTransferFeeConfig', 'confidentialTransferFeeAmount', 'metadataPointer', 'tokenMetadata', 'groupPointer',
  'tokenGroup', 'groupMemberPointer', 'tokenGroupMember', 'confidentialMintBurn', 'scaledUiAmountConfig', 'pausableConfig',
  'pausableAccount', 'permissionedBurnConfig',
] as const;

/** Format an f64 like Rust's Display (shortest round-trip form, no trailing ".0"). */
const f64String = (x: number): string => String(x);

/** Agave's UiExtension: `{ extension, state }` (unit variants have no `state`). */
export function uiExtension(ext: Extension): Record<string, unknown> {
  switch (ext.__kind) {
    case 'Uninitialized':
      return { extension: 'uninitialized' };
    case 'TransferFeeConfig':
      return {
        extension: 'transferFeeConfig',
        state: {
          transferFeeConfigAuthority: opt(ext.transferFeeConfigAuthority),
          withdrawWithheldAuthority: opt(ext.withdrawWithheldAuthority),
          withheldAmount: ext.withheldAmount,
          olderTransferFee: { ...ext.olderTransferFee },
          newerTransferFee: { ...ext.newerTransferFee },
        },
      };
    case 'TransferFeeAmount':
      return { extension: 'transferFeeAmount', state: { withheldAmount: ext.withheldAmount } };
    case 'MintCloseAuthority':
      return { extension: 'mintCloseAuthority', state: { closeAuthority: opt(ext.closeAuthority) } };
    case 'ConfidentialTransferMint':
      return {
        extension: 'confidentialTransferMint',
        state: { authority: opt(ext.authority), autoApproveNewAccounts: ext.autoApproveNewAccounts, auditorElgamalPubkey: elgamal(ext.auditorElgamalPubkey) },
      };
    case 'ConfidentialTransferAccount':
      return {
        extension: 'confidentialTransferAccount',
        state: {
          approved: ext.approved,
          elgamalPubkey: elgamal(ext.elgamalPubkey),
          pendingBalanceLo: bytes64(ext.pendingBalanceLow),
          pendingBalanceHi: bytes64(ext.pendingBalanceHigh),
          availableBalance: bytes64(ext.availableBalance),
          decryptableAvailableBalance: bytes64(ext.decryptableAvailableBalance),
          allowConfidentialCredits: ext.allowConfidentialCredits,
          allowNonConfidentialCredits: ext.allowNonConfidentialCredits,
          pendingBalanceCreditCounter: ext.pendingBalanceCreditCounter,
          maximumPendingBalanceCreditCounter: ext.maximumPendingBalanceCreditCounter,
          expectedPendingBalanceCreditCounter: ext.expectedPendingBalanceCreditCounter,
          actualPendingBalanceCreditCounter: ext.actualPendingBalanceCreditCounter,
        },
      };
    case 'DefaultAccountState':
      return { extension: 'defaultAccountState', state: { accountState: ACCOUNT_STATE[ext.state] } };
    case 'ImmutableOwner':
      return { extension: 'immutableOwner' };
    case 'MemoTransfer':
      return { extension: 'memoTransfer', state: { requireIncomingTransferMemos: ext.requireIncomingTransferMemos } };
    case 'NonTransferable':
      return { extension: 'nonTransferable' };
    case 'InterestBearingConfig':
      return {
        extension: 'interestBearingConfig',
        state: {
          rateAuthority: opt(ext.rateAuthority),
          initializationTimestamp: ext.initializationTimestamp,
          preUpdateAverageRate: ext.preUpdateAverageRate,
          lastUpdateTimestamp: ext.lastUpdateTimestamp,
          currentRate: ext.currentRate,
        },
      };
    case 'CpiGuard':
      return { extension: 'cpiGuard', state: { lockCpi: ext.lockCpi } };
    case 'PermanentDelegate':
      return { extension: 'permanentDelegate', state: { delegate: opt(ext.delegate) } };
    case 'NonTransferableAccount':
      return { extension: 'nonTransferableAccount' };
    case 'TransferHook':
      return { extension: 'transferHook', state: { authority: opt(ext.authority), programId: opt(ext.programId) } };
    case 'TransferHookAccount':
      return { extension: 'transferHookAccount', state: { transferring: ext.transferring } };
    case 'ConfidentialTransferFee':
      return {
        extension: 'confidentialTransferFeeConfig',
        state: {
          authority: opt(ext.authority),
          withdrawWithheldAuthorityElgamalPubkey: elgamal(ext.elgamalPubkey),
          harvestToMintEnabled: ext.harvestToMintEnabled,
          withheldAmount: bytes64(ext.withheldAmount),
        },
      };
    case 'ConfidentialTransferFeeAmount':
      return { extension: 'confidentialTransferFeeAmount', state: { withheldAmount: bytes64(ext.withheldAmount) } };
    case 'MetadataPointer':
      return { extension: 'metadataPointer', state: { authority: opt(ext.authority), metadataAddress: opt(ext.metadataAddress) } };
    case 'TokenMetadata':
      return {
        extension: 'tokenMetadata',
        state: {
          updateAuthority: opt(ext.updateAuthority),
          mint: ext.mint,
          name: ext.name,
          symbol: ext.symbol,
          uri: ext.uri,
          additionalMetadata: [...ext.additionalMetadata.entries()],
        },
      };
    case 'GroupPointer':
      return { extension: 'groupPointer', state: { authority: opt(ext.authority), groupAddress: opt(ext.groupAddress) } };
    case 'TokenGroup':
      return { extension: 'tokenGroup', state: { updateAuthority: opt(ext.updateAuthority), mint: ext.mint, size: ext.size, maxSize: ext.maxSize } };
    case 'GroupMemberPointer':
      return { extension: 'groupMemberPointer', state: { authority: opt(ext.authority), memberAddress: opt(ext.memberAddress) } };
    case 'TokenGroupMember':
      return { extension: 'tokenGroupMember', state: { mint: ext.mint, group: ext.group, memberNumber: ext.memberNumber } };
    case 'ConfidentialMintBurn':
      return {
        extension: 'confidentialMintBurn',
        state: {
          confidentialSupply: bytes64(ext.confidentialSupply),
          decryptableSupply: bytes64(ext.decryptableSupply),
          supplyElgamalPubkey: elgamal(ext.supplyElgamalPubkey),
          pendingBurn: bytes64(ext.pendingBurn),
        },
      };
    case 'ScaledUiAmountConfig':
      return {
        extension: 'scaledUiAmountConfig',
        state: {
          authority: opt(ext.authority),
          multiplier: f64String(ext.multiplier),
          newMultiplierEffectiveTimestamp: ext.newMultiplierEffectiveTimestamp,
          newMultiplier: f64String(ext.newMultiplier),
        },
      };
    case 'PausableConfig':
      return { extension: 'pausableConfig', state: { authority: opt(ext.authority), paused: ext.paused } };
    case 'PausableAccount':
      return { extension: 'pausableAccount' };
    case 'PermissionedBurn':
      return { extension: 'permissionedBurnConfig', state: { authority: opt(ext.authority) } };
    default:
      return { extension: 'unparseableExtension' };
  }
}

const extensionsOf = (e: Mint['extensions']): Record<string, unknown>[] => (e.__option === 'Some' ? e.value.map(uiExtension) : []);

/** `parsed` for a mint: `{ info, type: 'mint' }` with UiMint's field order. */
export function parsedMint(mint: Mint): Record<string, unknown> {
  const info: Record<string, unknown> = {
    mintAuthority: opt(mint.mintAuthority),
    supply: mint.supply.toString(),
    decimals: mint.decimals,
    isInitialized: mint.isInitialized,
    freezeAuthority: opt(mint.freezeAuthority),
  };
  const extensions = extensionsOf(mint.extensions);
  if (extensions.length) info.extensions = extensions;
  return { info, type: 'mint' };
}

/** `parsed` for a token account; needs its mint's decimals (mainnet cannot parse it without the mint either). */
export function parsedTokenAccount(token: Token, decimals: number): Record<string, unknown> {
  const info: Record<string, unknown> = {
    mint: token.mint,
    owner: token.owner,
    tokenAmount: uiTokenAmount(token.amount, decimals),
  };
  const delegate = opt(token.delegate);
  if (delegate) info.delegate = delegate;
  info.state = ACCOUNT_STATE[token.state];
  info.isNative = token.isNative.__option === 'Some';
  if (token.isNative.__option === 'Some') info.rentExemptReserve = uiTokenAmount(token.isNative.value, decimals);
  if (delegate) info.delegatedAmount = uiTokenAmount(token.delegatedAmount, decimals);
  const closeAuthority = opt(token.closeAuthority);
  if (closeAuthority) info.closeAuthority = closeAuthority;
  const extensions = extensionsOf(token.extensions);
  if (extensions.length) info.extensions = extensions;
  return { info, type: 'account' };
}

function parsedMultisig(data: Uint8Array): Record<string, unknown> | null {
  if (data[2] !== 1) return null;
  const n = data[1]!;
  const signers: string[] = [];
  for (let i = 0; i < 11; i++) {
    const k = base58.encode(data.subarray(3 + i * 32, 35 + i * 32));
    if (k !== ZERO_ADDRESS) signers.push(k);
  }
  return { info: { numRequiredSigners: data[0], numValidSigners: n, isInitialized: true, signers }, type: 'multisig' };
}

/** Decimals of a mint account, or null when the address is not an initialized mint. */
export function mintDecimals(lookup: AccountLookup, mint: string): { decimals: number; programId: string } | null {
  const acc = lookup(mint);
  if (!acc) return null;
  const m = decodeMint(acc);
  return m ? { decimals: m.decimals, programId: acc.owner } : null;
}

/** jsonParsed `data` for a token-program account, or null when mainnet would fall back to base64. */
export function parseTokenProgramAccount(acc: RawAccount, lookup: AccountLookup): Record<string, unknown> | null {
  const kind = tokenStateKind(acc.owner, acc.data);
  let parsed: Record<string, unknown> | null = null;
  if (kind === 'mint') {
    const m = decodeMint(acc);
    parsed = m && parsedMint(m);
  } else if (kind === 'account') {
    const t = decodeTokenAccount(acc);
    const d = t && mintDecimals(lookup, t.mint);
    parsed = t && d ? parsedTokenAccount(t, d.decimals) : null;
  } else if (kind === 'multisig') {
    parsed = parsedMultisig(acc.data);
  }
  if (!parsed) return null;
  return { program: acc.owner === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022', parsed, space: acc.data.length };
}

/** A token balance row of transaction metadata (rendered later as UiTransactionTokenBalance). */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

/** Token balances of the given keys, as Agave collects them (token accounts whose mint is known), by account index. */
export function collectTokenBalances(keys: readonly string[], lookup: AccountLookup): TokenBalance[] {
  const out: TokenBalance[] = [];
  const decimalsCache = new Map<string, number | null>();
  keys.forEach((key, accountIndex) => {
    const acc = lookup(key);
    if (!acc || tokenStateKind(acc.owner, acc.data) !== 'account') return;
    const t = decodeTokenAccount(acc);
    if (!t) return;
    let decimals = decimalsCache.get(t.mint);
    if (decimals === undefined) {
      decimals = mintDecimals(lookup, t.mint)?.decimals ?? null;
      decimalsCache.set(t.mint, decimals);
    }
    if (decimals === null) return;
    out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: acc.owner, amount: t.amount, decimals });
  });
  return out;
}

/** UiTransactionTokenBalance, field order as Agave serializes it. */
export function renderTokenBalance(b: TokenBalance, zeroAsNull: boolean): Record<string, unknown> {
  return {
    accountIndex: b.accountIndex,
    mint: b.mint,
    uiTokenAmount: uiTokenAmount(b.amount, b.decimals, zeroAsNull),
    owner: b.owner,
    programId: b.programId,
  };
}
