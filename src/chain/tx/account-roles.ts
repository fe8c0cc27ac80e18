// Owners of token accounts from where they sit in a known instruction (pure). A swap program's account
// order fixes which accounts are the user's token accounts, which wallet signs for them, and which accounts
// are the pool's vaults under the pool's authority. Used for balances a pre-2022 node sent without an owner,
// after what the transaction's own Token instructions say (token-owners.ts) and before the chain is asked.

import { SERUM_SWAP_PROGRAM } from '../program-ids';
import type { NormalizedInstruction } from './normalize';

/** Where a token account's owner comes from: an account of the same instruction, or another token account's owner. */
type OwnerRole = { readonly authority: number } | { readonly sameOwnerAs: number };

/** Token account position -> its owner's role, for positions counted from the start (>= 0) or the end (< 0). */
type Roles = ReadonlyArray<readonly [number, OwnerRole]>;

interface RoleSpec {
  /** Matches the instruction's data (its tag or discriminator). */
  readonly matches: (data: Uint8Array) => boolean;
  readonly roles: Roles;
  /** Fewest accounts the instruction takes in this layout (others are another layout: no claim). */
  readonly minAccounts: number;
}

const tag = (n: number) => (data: Uint8Array) => data[0] === n;
const discriminator = (hex: string) => (data: Uint8Array) => data.length >= 8 && Buffer.from(data.subarray(0, 8)).toString('hex') === hex;

// spl-token-swap (and Orca's two deployments of it) instruction.rs, SwapInstruction (tag = first byte):
// the pool's token accounts belong to the swap authority (position 1); the user's accounts to one wallet,
// which signs (or approved the transfer authority at position 2) for the source: the destination is the
// source's owner's too.
const TOKEN_SWAP: readonly RoleSpec[] = [
  // Swap: swap, authority, user transfer authority, source, swap source, swap destination, destination, pool mint, fee, token program, [host fee]
  { matches: tag(1), minAccounts: 10, roles: [[3, { authority: 2 }], [6, { sameOwnerAs: 3 }], [4, { authority: 1 }], [5, { authority: 1 }]] },
  // DepositAllTokenTypes: swap, authority, user transfer authority, source A, source B, swap A, swap B, pool mint, destination (LP), token program
  { matches: tag(2), minAccounts: 10, roles: [[3, { authority: 2 }], [4, { sameOwnerAs: 3 }], [8, { sameOwnerAs: 3 }], [5, { authority: 1 }], [6, { authority: 1 }]] },
  // WithdrawAllTokenTypes: swap, authority, user transfer authority, pool mint, source (LP), swap A, swap B, destination A, destination B, fee, token program
  { matches: tag(3), minAccounts: 11, roles: [[4, { authority: 2 }], [7, { sameOwnerAs: 4 }], [8, { sameOwnerAs: 4 }], [5, { authority: 1 }], [6, { authority: 1 }]] },
];

// raydium-io/raydium-amm program/src/instruction.rs. SwapBaseIn (9) / SwapBaseOut (11) take 17 or 18 accounts
// (the target-orders account is optional), so the user's are counted from the end: source, destination, owner;
// the pool's coin and pc vaults (12th and 13th from the end) belong to the AMM authority (position 2).
const RAYDIUM_SWAP: Roles = [[-3, { authority: -1 }], [-2, { authority: -1 }], [-13, { authority: 2 }], [-12, { authority: 2 }]];
const RAYDIUM_AMM_V4: readonly RoleSpec[] = [
  { matches: tag(9), minAccounts: 17, roles: RAYDIUM_SWAP },
  { matches: tag(11), minAccounts: 17, roles: RAYDIUM_SWAP },
  // Deposit: token program, amm, authority, open orders, target orders, lp mint, pool coin, pool pc, market, user coin, user pc, user lp, user owner, [event queue]
  { matches: tag(3), minAccounts: 13, roles: [[9, { authority: 12 }], [10, { authority: 12 }], [11, { authority: 12 }], [6, { authority: 2 }], [7, { authority: 2 }]] },
];

// project-serum/swap programs/swap/src/lib.rs. A market's accounts: market, open orders, request queue, event
// queue, bids, asks, order payer token account, coin vault, pc vault, vault signer, coin wallet.
const SERUM_SWAP: readonly RoleSpec[] = [
  // swap: market accounts (0-10), authority, pc wallet, dex program, token program, rent
  { matches: discriminator('f8c69e91e17587c8'), minAccounts: 16, roles: [[6, { authority: 11 }], [10, { authority: 11 }], [12, { authority: 11 }]] },
  // swap_transitive: from market (0-10), to market (11-21), authority, pc wallet, dex program, token program, rent
  {
    matches: discriminator('816dfecf1fc02f33'),
    minAccounts: 27,
    roles: [[6, { authority: 22 }], [10, { authority: 22 }], [17, { authority: 22 }], [21, { authority: 22 }], [23, { authority: 22 }]],
  },
];

/** Programs whose account order tells owners; ids as in program-ids.ts and docs/decoding.md. */
const ROLE_SPECS: ReadonlyMap<string, readonly RoleSpec[]> = new Map([
  ['SwaPpA9LAaLfeLi3a68M4DjnLqgtticKg6CnyNwgAC8', TOKEN_SWAP], // SPL token-swap
  ['DjVE6JNiYqPL2QXyCUUh8rNjHrbz9hXHNYt99MQ59qw1', TOKEN_SWAP], // Orca token-swap v1
  ['9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP', TOKEN_SWAP], // Orca token-swap v2
  ['675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', RAYDIUM_AMM_V4],
  [SERUM_SWAP_PROGRAM, SERUM_SWAP],
]);

/** What one instruction's account order says: token account -> its owner, or the account whose owner it shares. */
export interface RoleClaim {
  readonly account: string;
  readonly owner?: string;
  readonly sameOwnerAs?: string;
}

/** The claims one instruction's roles make (none for a program or instruction without roles). */
export function roleClaimsOf(ix: NormalizedInstruction): RoleClaim[] {
  const specs = ix.data ? ROLE_SPECS.get(ix.programId) : undefined;
  const spec = specs?.find((s) => s.matches(ix.data!) && ix.accounts.length >= s.minAccounts);
  if (!spec) return [];
  const at = (i: number) => ix.accounts[i < 0 ? ix.accounts.length + i : i];
  return spec.roles.flatMap(([position, role]): RoleClaim[] => {
    const account = at(position);
    const other = 'authority' in role ? at(role.authority) : at(role.sameOwnerAs);
    if (!account || !other || account === other) return [];
    return ['authority' in role ? { account, owner: other } : { account, sameOwnerAs: other }];
  });
}

/** Programs with account roles (for docs and tests). */
export function roleProgramIds(): string[] {
  return [...ROLE_SPECS.keys()];
}
