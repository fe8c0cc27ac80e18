// What moved for one owner (each signer, and each owner whose token balances moved), from pre/post
// balances — all maths in bigint.
//
// SOL   = owner's lamport change + the fee (when the owner paid it)
//         + lamport change of the owner's own token accounts.
//   That folds in the owner's wrapped-SOL (its token amount is lamports above rent), and leaves out rent
//   the owner merely parked in (or took back from) its own token accounts, reported as tokenAccountRent.
//   Example: a Jupiter buy that opens the token's ATA spends 0.40203928 SOL from the wallet, of which
//   0.00203928 is the new ATA's rent: SOL = -0.4, tokenAccountRent = +0.00203928.
// Tokens = per mint, sum of (post - pre) over token accounts whose owner is the owner (wSOL excluded).

import { SYSTEM_PROGRAM, WRAPPED_SOL_MINT } from '../program-ids';
import { SOL_DECIMALS } from '../format';
import { exactInteger } from '../../json';
import type { NormalizedTransaction, TokenBalance } from './normalize';

export interface AssetChange {
  /** 'SOL' (native, wrapped SOL folded in) or the token mint. */
  readonly asset: string;
  readonly decimals: number;
  /** Signed raw change (lamports or base units): negative = left the owner. */
  readonly raw: bigint;
  /**
   * The wallet on the other side when one can be singled out: the only account moving the opposite way,
   * else the only one moving exactly the same amount. For a token account, its owner.
   */
  readonly counterparty: string | null;
  /** SOL only: the counterparty account is a token account opened by this transaction (the SOL is its rent). */
  readonly counterpartyIsNewTokenAccount: boolean;
}

export interface OwnerChanges {
  readonly owner: string;
  /** Fee charged to this owner (the fee payer), in lamports. */
  readonly feeLamports: bigint;
  /** Net SOL change excluding the fee, including wrapped SOL, excluding own token-account rent. */
  readonly solLamports: bigint;
  /** Lamports moved into (+) or recovered from (−) the owner's own token accounts as rent. */
  readonly tokenAccountRentLamports: bigint;
  /** Non-zero changes: SOL first, then tokens in first-seen order. */
  readonly changes: readonly AssetChange[];
}

/** What the account at `index` gained in lamports (negative: lost); a missing balance counts as 0. */
export function lamportDelta(tx: NormalizedTransaction, index: number): bigint {
  return (tx.postBalances[index] ?? 0n) - (tx.preBalances[index] ?? 0n);
}

function pickCounterparty<K>(candidates: readonly (readonly [K, bigint])[], amount: bigint): K | null {
  if (candidates.length === 1) return candidates[0]![0];
  const exact = candidates.filter(([, delta]) => (delta < 0n ? -delta : delta) === amount);
  return exact.length === 1 ? exact[0]![0] : null;
}

export function balanceChangesFor(tx: NormalizedTransaction, owner: string): OwnerChanges {
  const balances = [...tx.preTokenBalances, ...tx.postTokenBalances];
  const tokenAccountIndexes = new Set(balances.map((b) => b.accountIndex));
  const ownTokenAccounts = new Set(balances.filter((b) => b.owner === owner).map((b) => b.accountIndex));
  const ownerIndex = tx.accountKeys.indexOf(owner);
  const feeLamports = owner === tx.feePayer ? tx.fee : 0n;

  // --- SOL ---------------------------------------------------------------------------------------
  let ownTokenLamports = 0n;
  for (const i of ownTokenAccounts) ownTokenLamports += lamportDelta(tx, i);
  const native = ownerIndex >= 0 ? lamportDelta(tx, ownerIndex) : 0n;
  const solLamports = native + feeLamports + ownTokenLamports;

  // --- tokens (per owner, per mint) --------------------------------------------------------------
  const perOwnerMint = new Map<string, Map<string, bigint>>(); // mint -> holder -> delta
  const decimalsOf = new Map<string, number>();
  const addTo = (b: TokenBalance, sign: 1n | -1n) => {
    decimalsOf.set(b.mint, b.decimals);
    const holder = b.owner ?? b.account ?? `#${b.accountIndex}`;
    const byHolder = perOwnerMint.get(b.mint) ?? new Map<string, bigint>();
    byHolder.set(holder, (byHolder.get(holder) ?? 0n) + sign * b.amount);
    perOwnerMint.set(b.mint, byHolder);
  };
  for (const b of tx.preTokenBalances) addTo(b, -1n);
  for (const b of tx.postTokenBalances) addTo(b, 1n);

  const wsolDelta = perOwnerMint.get(WRAPPED_SOL_MINT)?.get(owner) ?? 0n;
  const tokenAccountRentLamports = ownTokenLamports - wsolDelta;

  const changes: AssetChange[] = [];
  if (solLamports !== 0n) {
    const amount = solLamports < 0n ? -solLamports : solLamports;
    const candidates: (readonly [number, bigint])[] = [];
    tx.accountKeys.forEach((_key, i) => {
      if (i === ownerIndex || ownTokenAccounts.has(i)) return;
      const d = lamportDelta(tx, i);
      if (solLamports < 0n ? d > 0n : d < 0n) candidates.push([i, d]);
    });
    const picked = pickCounterparty(candidates, amount);
    let counterparty: string | null = null;
    let counterpartyIsNewTokenAccount = false;
    if (picked !== null) {
      const tokenBalance = tokenAccountIndexes.has(picked)
        ? (tx.postTokenBalances.find((b) => b.accountIndex === picked) ?? tx.preTokenBalances.find((b) => b.accountIndex === picked))
        : undefined;
      counterparty = tokenBalance?.owner ?? tx.accountKeys[picked] ?? null;
      counterpartyIsNewTokenAccount =
        tokenBalance !== undefined && solLamports < 0n && (tx.preBalances[picked] ?? 0n) === 0n;
    }
    changes.push({ asset: 'SOL', decimals: SOL_DECIMALS, raw: solLamports, counterparty, counterpartyIsNewTokenAccount });
  }

  for (const [mint, byHolder] of perOwnerMint) {
    if (mint === WRAPPED_SOL_MINT) continue;
    const raw = byHolder.get(owner) ?? 0n;
    if (raw === 0n) continue;
    const candidates = [...byHolder].filter(([holder, d]) => holder !== owner && (raw < 0n ? d > 0n : d < 0n));
    changes.push({
      asset: mint,
      decimals: decimalsOf.get(mint) ?? 0,
      raw,
      counterparty: pickCounterparty(candidates, raw < 0n ? -raw : raw),
      counterpartyIsNewTokenAccount: false,
    });
  }

  return { owner, feeLamports, solLamports, tokenAccountRentLamports, changes };
}

export interface AccountRent {
  /** Lamports put into accounts the transaction opened (+) minus those taken back from accounts it closed. */
  readonly lamports: bigint;
  readonly opened: number;
  readonly closed: number;
}

/**
 * Rent the fee payer put into accounts this transaction opened, or got back from accounts it closed, other
 * than its own token accounts (tokenAccountRentLamports covers those): a pool's state, vaults and position,
 * tick arrays, a DCA escrow. Opened = no lamports before, some after; closed = the reverse. A wrapped-SOL
 * account's token amount is a deposit or a withdrawal, not rent, and is left out. Others' rent is not theirs
 * to pay, so it is zero for every owner but the fee payer.
 */
export function accountRentOf(tx: NormalizedTransaction, owner: string): AccountRent {
  if (owner !== tx.feePayer) return { lamports: 0n, opened: 0, closed: 0 };
  const ownerIndex = tx.accountKeys.indexOf(owner);
  const own = new Set([...tx.preTokenBalances, ...tx.postTokenBalances].filter((b) => b.owner === owner).map((b) => b.accountIndex));
  const wsol = (balances: readonly TokenBalance[], i: number) =>
    balances.find((b) => b.accountIndex === i && b.mint === WRAPPED_SOL_MINT)?.amount ?? 0n;
  let lamports = 0n;
  let opened = 0;
  let closed = 0;
  tx.accountKeys.forEach((_key, i) => {
    if (i === ownerIndex || own.has(i)) return;
    const pre = tx.preBalances[i] ?? 0n;
    const post = tx.postBalances[i] ?? 0n;
    if (pre === 0n && post > 0n) {
      lamports += post - wsol(tx.postTokenBalances, i);
      opened++;
    } else if (pre > 0n && post === 0n) {
      lamports -= pre - wsol(tx.preTokenBalances, i);
      closed++;
    }
  });
  return { lamports, opened, closed };
}

// System Program instructions that give an account space or a program owner, and where that account sits:
// CreateAccount, CreateAccountWithSeed (the new account second); Assign, Allocate, AllocateWithSeed, AssignWithSeed.
const SYSTEM_CREATES: ReadonlyMap<number, number> = new Map([[0, 1], [3, 1], [1, 0], [8, 0], [9, 0], [10, 0]]);
const SYSTEM_CREATES_PARSED: Readonly<Record<string, string>> = {
  createAccount: 'newAccount',
  createAccountWithSeed: 'newAccount',
  assign: 'account',
  allocate: 'account',
  allocateWithSeed: 'account',
  assignWithSeed: 'account',
};

/** Accounts the System Program turned into data accounts (space or a program owner) in this transaction. */
export function systemCreatedAccounts(tx: NormalizedTransaction): Set<string> {
  const out = new Set<string>();
  for (const ix of [...tx.instructions, ...(tx.innerInstructions ?? [])]) {
    if (ix.programId !== SYSTEM_PROGRAM) continue;
    if (ix.data && ix.data.length >= 4) {
      const at = SYSTEM_CREATES.get(new DataView(ix.data.buffer, ix.data.byteOffset, 4).getUint32(0, true));
      const account = at === undefined ? undefined : ix.accounts[at];
      if (account) out.add(account);
    } else if (ix.parsed?.type && ix.parsed.info) {
      const field = SYSTEM_CREATES_PARSED[ix.parsed.type];
      const account = field ? ix.parsed.info[field] : undefined;
      if (typeof account === 'string') out.add(account);
    }
  }
  return out;
}

/**
 * Signers that are accounts this transaction created, signing only for their own creation: a new mint (a
 * pool position's NFT, a launched token), a new token account (a pool vault made from a fresh keypair) or a
 * program's data account (a DLMM position). They held nothing before; their lamports are the creator's rent,
 * not a co-signer's income. A wallet that is merely funded while co-signing is none of these.
 */
export function createdAccountSigners(tx: NormalizedTransaction): Set<string> {
  const balances = [...tx.preTokenBalances, ...tx.postTokenBalances];
  const created = new Set([...balances.map((b) => b.mint), ...balances.map((b) => tx.accountKeys[b.accountIndex]), ...systemCreatedAccounts(tx)]);
  return new Set(
    tx.signers.filter((s) => s !== tx.feePayer && created.has(s) && (tx.preBalances[tx.accountKeys.indexOf(s)] ?? 0n) === 0n),
  );
}

/**
 * Changes for every signer (fee payer first, in signing order), then for every other owner of a token
 * account the transaction touched whose balances moved (first-seen order): a pool's vault authority, the
 * owner a DCA keeper paid out to. Signers are listed even with nothing but a fee, except accounts that
 * signed their own creation (createdAccountSigners).
 */
export function ownerChangesOf(tx: NormalizedTransaction): OwnerChanges[] {
  const tokenOwners = [...tx.preTokenBalances, ...tx.postTokenBalances].flatMap((b) => (b.owner === null ? [] : [b.owner]));
  const created = createdAccountSigners(tx);
  const wallets = tx.signers.filter((s) => !created.has(s));
  const signers = new Set(wallets);
  return [...new Set([...wallets, ...tokenOwners])]
    .map((owner) => balanceChangesFor(tx, owner))
    .filter((c) => signers.has(c.owner) || c.changes.length > 0);
}

/** One address's change: lamports post minus pre, and for a token account its raw token amounts. */
export interface AccountChange {
  readonly address: string;
  /** Lamports before and after: JSON integers, exact (a bigint beyond 2^53). */
  readonly lamportsBefore: number | bigint;
  readonly lamportsAfter: number | bigint;
  /** After minus before; the fee payer's includes the fee. */
  readonly lamportsChange: number | bigint;
  /** For a token account: its mint, owner and raw amounts before/after (exact, with decimals). */
  readonly token: {
    readonly mint: string;
    /** null only on very old nodes that did not report token owners. */
    readonly owner: string | null;
    readonly decimals: number;
    readonly before: string;
    readonly after: string;
    readonly change: string;
  } | null;
}

/**
 * Every account whose lamports or token amount changed, in account-key order, exactly as the balance arrays
 * say: the per-address view. Regrouped by owner (a token account under its owner, any other account under
 * its own address, plus the fee for the fee payer) it gives ownerChangesOf's numbers.
 */
export function accountChangesOf(tx: NormalizedTransaction): AccountChange[] {
  const tokenAt = (balances: readonly TokenBalance[], i: number) => balances.find((b) => b.accountIndex === i);
  return tx.accountKeys.flatMap((address, i) => {
    const lb = tx.preBalances[i] ?? 0n;
    const la = tx.postBalances[i] ?? 0n;
    const pre = tokenAt(tx.preTokenBalances, i);
    const post = tokenAt(tx.postTokenBalances, i);
    const t = post ?? pre;
    const tb = pre?.amount ?? 0n;
    const ta = post?.amount ?? 0n;
    if (lb === la && tb === ta) return [];
    return [
      {
        address,
        lamportsBefore: exactInteger(lb),
        lamportsAfter: exactInteger(la),
        lamportsChange: exactInteger(la - lb),
        token: t ? { mint: t.mint, owner: t.owner, decimals: t.decimals, before: tb.toString(), after: ta.toString(), change: (ta - tb).toString() } : null,
      },
    ];
  });
}
