// Top-holder classification and concentration maths (pure).
//
// The I/O side reads getTokenLargestAccounts (token accounts + raw amounts), resolves each token
// account to its owner (getMultipleAccounts jsonParsed: parsed.info.owner) and then looks at each
// owner's own account (getMultipleAccounts: null when no account exists). This module turns those
// results into Holder rows and computes shares of supply exactly, in bigint.

import { isAddress, isOffCurveAddress } from '@solana/kit';
import { SYSTEM_PROGRAM } from '../program-ids.ts';
import { big } from '../../json.ts';
import { formatUnits, percentOf } from '../format.ts';

export type HolderKind = 'wallet' | 'program' | 'burn' | 'unknown';

/**
 * What the owner's own account looked like.
 * - found: the account exists; `owner` is the program that owns it.
 * - missing: getMultipleAccounts returned null (no lamports at that address).
 * - unavailable: not looked up, or the lookup failed.
 */
export type OwnerAccount =
  | { readonly status: 'found'; readonly owner: string; readonly executable: boolean }
  | { readonly status: 'missing' }
  | { readonly status: 'unavailable' };

export interface OwnerClassification {
  readonly kind: HolderKind;
  /** Why, in words. */
  readonly reason: string;
}

export interface Holder {
  /** The token account (what getTokenLargestAccounts lists). */
  readonly address: string;
  /** The token account's owner (wallet, PDA, ...); null when it could not be resolved. */
  readonly owner: string | null;
  readonly amount: bigint;
  readonly kind: HolderKind;
  readonly kindReason: string;
}

/** Addresses whose token accounts can never move tokens again. Keep this list explicit. */
export const BURN_ADDRESSES: ReadonlyMap<string, string> = new Map([
  ['1nc1nerator11111111111111111111111111111111', 'the incinerator address (no private key)'],
  [SYSTEM_PROGRAM, 'the System program id (all-zero key, no private key)'],
]);

/**
 * Decides who controls a top holder's tokens, in this order:
 * burn address → 'burn'; unreadable/absent owner → 'unknown'; off the ed25519 curve (a PDA, e.g. a
 * pool vault or bonding curve authority) → 'program'; the owner's account is executable or owned by
 * a non-System program → 'program'; on-curve and System-owned or absent → 'wallet' (a key pair);
 * on-curve but the account was not looked up → 'unknown'.
 */
export function classifyOwner(owner: string | null | undefined, ownerAccount?: OwnerAccount): OwnerClassification {
  if (owner === null || owner === undefined || owner === '') {
    return { kind: 'unknown', reason: 'the token account owner could not be resolved' };
  }
  const burn = BURN_ADDRESSES.get(owner);
  if (burn !== undefined) return { kind: 'burn', reason: `owner is ${burn}` };
  if (!isAddress(owner)) return { kind: 'unknown', reason: 'owner is not a valid address' };
  if (isOffCurveAddress(owner)) {
    return { kind: 'program', reason: 'owner is off the ed25519 curve (a program-derived address)' };
  }
  const account = ownerAccount ?? { status: 'unavailable' };
  switch (account.status) {
    case 'found':
      if (account.executable) return { kind: 'program', reason: 'owner is an executable program account' };
      if (account.owner !== SYSTEM_PROGRAM) {
        return { kind: 'program', reason: `owner's account is owned by program ${account.owner}` };
      }
      return { kind: 'wallet', reason: 'owner is an on-curve key with a System-owned account' };
    case 'missing':
      return { kind: 'wallet', reason: 'owner is an on-curve key with no account (holds no SOL)' };
    case 'unavailable':
      return { kind: 'unknown', reason: "owner is an on-curve key but its account could not be checked" };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An element of getMultipleAccounts for an owner address → OwnerAccount (undefined = not looked up). */
export function ownerAccountFromRpc(value: unknown): OwnerAccount {
  if (value === null) return { status: 'missing' };
  if (isRecord(value) && typeof value.owner === 'string') {
    return { status: 'found', owner: value.owner, executable: value.executable === true };
  }
  return { status: 'unavailable' };
}

/** The owner of a jsonParsed token account (getMultipleAccounts element), or null. */
export function tokenAccountOwnerFromRpc(value: unknown): string | null {
  if (!isRecord(value) || !isRecord(value.data)) return null;
  const parsed = value.data.parsed;
  if (!isRecord(parsed) || parsed.type !== 'account' || !isRecord(parsed.info)) return null;
  return typeof parsed.info.owner === 'string' ? parsed.info.owner : null;
}

/** One getTokenLargestAccounts row plus the resolved owner and the owner's account → Holder. */
export function holderFromRpc(row: unknown, owner: string | null, ownerAccount?: OwnerAccount): Holder {
  if (!isRecord(row) || typeof row.address !== 'string') throw new TypeError('not a getTokenLargestAccounts row');
  const { kind, reason } = classifyOwner(owner, ownerAccount);
  return { address: row.address, owner, amount: big(row.amount), kind, kindReason: reason };
}

// ---------------------------------------------------------------------------------------------
// Concentration

export const TOP_N = 10;

export interface ConcentrationView {
  /** Share of total supply held by the largest counted holder, percent with 4 decimals; null when supply is 0. */
  readonly top1Percent: number | null;
  /** Share held by the (up to) 10 largest counted holders together. */
  readonly top10Percent: number | null;
  readonly top1Raw: string;
  readonly top10Raw: string;
  /** Token account of the largest counted holder, if any. */
  readonly top1Address: string | null;
  /** How many holders were counted for top-10 (≤ 10). */
  readonly holdersCounted: number;
}

export interface Concentration {
  /** Denominator for every percent: total supply (raw). */
  readonly supply: string;
  /** Distinct top holders received (getTokenLargestAccounts returns up to 20). */
  readonly holdersSeen: number;
  /** Everyone, pools and burn addresses included. */
  readonly all: ConcentrationView;
  /**
   * Only 'wallet' and 'unknown' holders (unknown counts as a possible wallet: conservative), ranked
   * among all holders seen, so up to 10 wallets can come from a top-20 list. Still a share of total supply.
   */
  readonly excludingProgramAndBurn: ConcentrationView;
  /** Share of supply in the seen holders by kind (what was excluded above and why). */
  readonly byKind: Readonly<Record<HolderKind, { readonly holders: number; readonly percent: number | null; readonly raw: string }>>;
}

/** Sorted largest first, one row per token account (the first row wins on a duplicate address). */
export function rankHolders(holders: readonly Holder[]): Holder[] {
  const seen = new Set<string>();
  const unique = holders.filter((h) => (seen.has(h.address) ? false : (seen.add(h.address), true)));
  return unique.sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
}

function view(ranked: readonly Holder[], supply: bigint): ConcentrationView {
  const top = ranked.slice(0, TOP_N);
  const top1 = top[0]?.amount ?? 0n;
  const top10 = top.reduce((sum, h) => sum + h.amount, 0n);
  return {
    top1Percent: percentOf(top1, supply),
    top10Percent: percentOf(top10, supply),
    top1Raw: top1.toString(),
    top10Raw: top10.toString(),
    top1Address: top[0]?.address ?? null,
    holdersCounted: top.length,
  };
}

export function isCountedHolder(h: Holder): boolean {
  return h.kind === 'wallet' || h.kind === 'unknown';
}

/** Top-1 / top-10 shares of supply with and without program and burn holders, exact from bigints. */
export function concentration(holders: readonly Holder[], supply: bigint): Concentration {
  const ranked = rankHolders(holders);
  const kinds: HolderKind[] = ['wallet', 'program', 'burn', 'unknown'];
  const byKind = Object.fromEntries(
    kinds.map((kind) => {
      const rows = ranked.filter((h) => h.kind === kind);
      const raw = rows.reduce((sum, h) => sum + h.amount, 0n);
      return [kind, { holders: rows.length, percent: percentOf(raw, supply), raw: raw.toString() }];
    }),
  ) as Concentration['byKind'];
  return {
    supply: supply.toString(),
    holdersSeen: ranked.length,
    all: view(ranked, supply),
    excludingProgramAndBurn: view(ranked.filter(isCountedHolder), supply),
    byKind,
  };
}

/** A top holder as the token-profile body shows it. */
export interface TopHolder {
  readonly address: string;
  readonly owner: string | null;
  readonly amount: string;
  readonly uiAmountString: string;
  readonly percent: number | null;
  readonly kind: HolderKind;
  readonly kindReason: string;
}

/** The 10 largest holders (every kind), with exact ui amounts and percent of supply. */
export function topHolders(holders: readonly Holder[], supply: bigint, decimals: number): TopHolder[] {
  return rankHolders(holders)
    .slice(0, TOP_N)
    .map((h) => ({
      address: h.address,
      owner: h.owner,
      amount: h.amount.toString(),
      uiAmountString: formatUnits(h.amount, decimals),
      percent: percentOf(h.amount, supply),
      kind: h.kind,
      kindReason: h.kindReason,
    }));
}
