// Owners of token accounts whose balances came without one (pure). Nodes answered pre/postTokenBalances
// without `owner` before 2022; the transaction itself often says who owns such an account: the owner an
// initializeAccount (1/2/3) or an associated-token-account create gave it, or the authority that moved
// tokens out of it or closed it (transfer, transferChecked, burn, approve, closeAccount and their checked
// forms). What the transaction does not say the capability asks the chain (the account as it is now);
// what neither says stays unknown.

import { ASSOCIATED_TOKEN_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../program-ids';
import { base58 } from '@scure/base';
import type { NormalizedInstruction, NormalizedTransaction, TokenBalance } from './normalize';
import { roleClaimsOf } from './account-roles';

/** Token account -> owner wallet. */
export type TokenOwners = ReadonlyMap<string, string>;

/**
 * How sure a claim is: the owner an account was initialized with; the owner only an owner can sign for
 * (approve, revoke, close); an authority that moved or burned tokens, which may be a delegate (an AMM swap
 * moves the user's tokens through a delegate it was approved for in the same transaction).
 */
const CREATED = 2;
const OWNER_SIGNED = 1;
const AUTHORITY = 0;

// Raw Token instructions: tag -> [index of the account, index of its owner or authority, strength] in the
// instruction's accounts (spl-token instruction.rs). InitializeAccount2/3 carry the owner in their data.
const RAW_AUTHORITY: ReadonlyMap<number, readonly [number, number, number]> = new Map([
  [1, [0, 2, CREATED]], // InitializeAccount: account, mint, owner, rent
  [3, [0, 2, AUTHORITY]], // Transfer: source, destination, authority
  [4, [0, 2, OWNER_SIGNED]], // Approve: source, delegate, owner
  [5, [0, 1, OWNER_SIGNED]], // Revoke: source, owner
  [6, [0, 1, OWNER_SIGNED]], // SetAuthority (AccountOwner only, see claimOf): account, current owner
  [8, [0, 2, AUTHORITY]], // Burn: account, mint, authority
  [9, [0, 2, OWNER_SIGNED]], // CloseAccount: account, destination, owner
  [12, [0, 3, AUTHORITY]], // TransferChecked: source, mint, destination, authority
  [13, [0, 3, OWNER_SIGNED]], // ApproveChecked: source, mint, delegate, owner
  [15, [0, 2, AUTHORITY]], // BurnChecked: account, mint, authority
]);
const RAW_OWNER_IN_DATA: ReadonlySet<number> = new Set([16, 18]); // InitializeAccount2, InitializeAccount3

// The node's parsed forms: type -> [field naming the account, field naming its owner or authority, strength].
const PARSED_AUTHORITY: Readonly<Record<string, readonly [string, string, number]>> = {
  initializeAccount: ['account', 'owner', CREATED],
  initializeAccount2: ['account', 'owner', CREATED],
  initializeAccount3: ['account', 'owner', CREATED],
  transfer: ['source', 'authority', AUTHORITY],
  transferChecked: ['source', 'authority', AUTHORITY],
  approve: ['source', 'owner', OWNER_SIGNED],
  approveChecked: ['source', 'owner', OWNER_SIGNED],
  revoke: ['source', 'owner', OWNER_SIGNED],
  // only an owner hands an account to another (an escrow taking the initializer's deposit): the owner it had
  setAuthority: ['account', 'authority', OWNER_SIGNED],
  burn: ['account', 'authority', AUTHORITY],
  burnChecked: ['account', 'authority', AUTHORITY],
  closeAccount: ['account', 'owner', OWNER_SIGNED],
};

interface Claim {
  readonly account: string;
  readonly owner: string;
  readonly strength: number;
}

function claimOf(ix: NormalizedInstruction): Claim | null {
  const isToken = ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM;
  if (ix.parsed?.type && ix.parsed.info) {
    const info = ix.parsed.info;
    if (ix.programId === ASSOCIATED_TOKEN_PROGRAM) {
      return typeof info.account === 'string' && typeof info.wallet === 'string' ? { account: info.account, owner: info.wallet, strength: CREATED } : null;
    }
    const fields = isToken ? PARSED_AUTHORITY[ix.parsed.type] : undefined;
    if (!fields || (ix.parsed.type === 'setAuthority' && info.authorityType !== 'accountOwner')) return null;
    const account = info[fields[0]];
    // a multisig authority signs through its signers; the account's owner is the multisig
    const owner = info[fields[1]] ?? info[fields[1] === 'authority' ? 'multisigAuthority' : 'multisigOwner'];
    return typeof account === 'string' && typeof owner === 'string' ? { account, owner, strength: fields[2] } : null;
  }
  const data = ix.data;
  if (!data) return null;
  if (ix.programId === ASSOCIATED_TOKEN_PROGRAM) {
    // Create (empty or 0) and CreateIdempotent (1): payer, associated account, wallet, mint, ...
    const tag = data.length === 0 ? 0 : data[0];
    const [account, owner] = [ix.accounts[1], ix.accounts[2]];
    return (tag === 0 || tag === 1) && account && owner ? { account, owner, strength: CREATED } : null;
  }
  if (!isToken || data.length === 0) return null;
  const tag = data[0]!;
  if (RAW_OWNER_IN_DATA.has(tag)) {
    const account = ix.accounts[0];
    return account && data.length >= 33 ? { account, owner: base58.encode(data.subarray(1, 33)), strength: CREATED } : null;
  }
  if (tag === 6 && data[1] !== 2) return null; // SetAuthority of a mint or of another authority type than AccountOwner
  const at = RAW_AUTHORITY.get(tag);
  const account = at ? ix.accounts[at[0]] : undefined;
  const owner = at ? ix.accounts[at[1]] : undefined;
  return account && owner && at ? { account, owner, strength: at[2] } : null;
}

/**
 * Owners the transaction's own instructions give its owner-less token accounts: for each account, the claims
 * of the strongest kind it has (initialized with; signed for as owner; acted on as authority), when they
 * all name one wallet. Claims of one kind that disagree (an account closed and reopened for another owner,
 * two authorities) leave it unknown.
 */
export function tokenOwnersFromInstructions(tx: NormalizedTransaction): Map<string, string> {
  const ownerless = new Set(ownerlessTokenAccounts(tx));
  // every balance carries its owner (any node since 2022): no instruction can add one
  if (ownerless.size === 0) return new Map();
  const best = new Map<string, { strength: number; owners: Set<string> }>();
  for (const ix of [...tx.instructions, ...(tx.innerInstructions ?? [])]) {
    const claim = claimOf(ix);
    if (!claim || !ownerless.has(claim.account)) continue;
    const known = best.get(claim.account);
    if (!known || claim.strength > known.strength) best.set(claim.account, { strength: claim.strength, owners: new Set([claim.owner]) });
    else if (claim.strength === known.strength) known.owners.add(claim.owner);
  }
  const owners = new Map<string, string>();
  for (const [account, { owners: named }] of best) if (named.size === 1) owners.set(account, [...named][0]!);
  return owners;
}

/**
 * Owners the account roles of known instructions give (account-roles.ts) to owner-less token accounts that
 * `known` (what the transaction's own instructions said) leaves unknown: the owner a role names, or the owner of
 * the account a role says it shares one with (as known, or as found here), followed until nothing more is found.
 * Roles that disagree on an account leave it unknown.
 */
export function tokenOwnersFromRoles(tx: NormalizedTransaction, known: TokenOwners): Map<string, string> {
  const ownerless = new Set(ownerlessTokenAccounts(tx).filter((account) => !known.has(account)));
  if (ownerless.size === 0) return new Map();
  const claims = [...tx.instructions, ...(tx.innerInstructions ?? [])].flatMap(roleClaimsOf).filter((c) => ownerless.has(c.account));
  const found = new Map<string, string>();
  const ownerOf = (account: string) => known.get(account) ?? found.get(account) ?? ownerWithBalance(tx, account);
  for (let round = 0; round < 4; round++) {
    const named = new Map<string, Set<string>>();
    for (const claim of claims) {
      const owner = claim.owner ?? (claim.sameOwnerAs ? ownerOf(claim.sameOwnerAs) : undefined);
      if (owner) named.set(claim.account, (named.get(claim.account) ?? new Set()).add(owner));
    }
    let added = false;
    for (const [account, owners] of named) {
      if (owners.size !== 1) {
        found.delete(account);
        continue;
      }
      const owner = [...owners][0]!;
      if (found.get(account) !== owner) added = true;
      found.set(account, owner);
    }
    if (!added) break;
  }
  return found;
}

/** The owner a token balance of this account carries, if any. */
function ownerWithBalance(tx: NormalizedTransaction, account: string): string | undefined {
  return [...tx.preTokenBalances, ...tx.postTokenBalances].find((b) => b.account === account && b.owner !== null)?.owner ?? undefined;
}

/** Every owner the transaction gives its owner-less token accounts: its own instructions first, then account roles. */
export function tokenOwnersFromTransaction(tx: NormalizedTransaction): Map<string, string> {
  const fromInstructions = tokenOwnersFromInstructions(tx);
  return new Map([...tokenOwnersFromRoles(tx, fromInstructions), ...fromInstructions]);
}

/** Token accounts whose balances carry no owner, in first-seen order. */
export function ownerlessTokenAccounts(tx: NormalizedTransaction): string[] {
  const accounts = [...tx.preTokenBalances, ...tx.postTokenBalances].flatMap((b) => (b.owner === null && b.account ? [b.account] : []));
  return [...new Set(accounts)];
}

/** The transaction with these owners given to its owner-less token balances (others untouched). */
function withTokenOwners(tx: NormalizedTransaction, owners: TokenOwners): NormalizedTransaction {
  if (owners.size === 0) return tx;
  const fill = (b: TokenBalance): TokenBalance => (b.owner === null && b.account && owners.has(b.account) ? { ...b, owner: owners.get(b.account)! } : b);
  return { ...tx, preTokenBalances: tx.preTokenBalances.map(fill), postTokenBalances: tx.postTokenBalances.map(fill) };
}

/**
 * The owners the transaction gives (its instructions, then account roles), then those found elsewhere (`found`,
 * the chain's accounts) for the rest.
 */
export function resolveTokenOwners(tx: NormalizedTransaction, found: TokenOwners = new Map()): NormalizedTransaction {
  const fromTransaction = tokenOwnersFromTransaction(tx);
  return withTokenOwners(tx, new Map([...found, ...fromTransaction]));
}
