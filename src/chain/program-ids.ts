// Mainnet program ids, each checked against a public source (see ../../tests/fixtures/mainnet and
// the project's program-ids notes). Classification keys on these ids, never on brand names in logs.

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const MEMO_V1_PROGRAM = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

export const SERUM_DEX_V3_PROGRAM = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
export const OPENBOOK_V1_PROGRAM = 'srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX';
export const OPENBOOK_V2_PROGRAM = 'opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb';
// project-serum/swap programs/swap/src/lib.rs `declare_id!`; invoked by the recorded serum-swap-* fixtures.
export const SERUM_SWAP_PROGRAM = '22Y43yTVxuUkoRKdm9thyRhQ3SdgQS7c7kB6UNCiaczD';

export const WRAPPED_SOL_MINT = 'So11111111111111111111111111111111111111112';

export const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];

export type VenueKind = 'aggregator' | 'exchange' | 'launchpad';

export interface Venue {
  readonly programId: string;
  readonly name: string;
  readonly kind: VenueKind;
}

// Launchpads win over every other venue when classifying (DESIGN.md §3), so their kind matters.
export const VENUES: readonly Venue[] = [
  { programId: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', name: 'Jupiter v6', kind: 'aggregator' },
  { programId: 'JUP4Fb2cqiRUcaTHdrPC8h2gNsA2ETXiPDD33WcGuJB', name: 'Jupiter v4', kind: 'aggregator' },
  // Jupiter DCA ("Recurring"): Jupiter's own docs ("DCA Program (mainnet-beta)"), its Rust client's `PROGRAM_ID`,
  // and invoked by three signature-verified recorded fixtures (jupiter-dca-*). An id from a single third-party
  // table (DCAK36Vf…) that stood here before is not the DCA program: no recorded transaction invokes it.
  { programId: 'DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M', name: 'Jupiter DCA', kind: 'aggregator' },
  { programId: 'routeUGWgWzqBWFcrCfv8tritsqukccJPu3q5GPP3xS', name: 'Raydium Router', kind: 'aggregator' },
  { programId: '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', name: 'Raydium AMM v4', kind: 'exchange' },
  { programId: 'CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK', name: 'Raydium CLMM', kind: 'exchange' },
  { programId: 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', name: 'Raydium CPMM', kind: 'exchange' },
  { programId: '5quBtoiQqxF9Jv6KYKctB59NT3gtJD2Y65kdnB1Uev3h', name: 'Raydium Stable AMM', kind: 'exchange' },
  { programId: 'whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', name: 'Orca Whirlpool', kind: 'exchange' },
  // Orca's immutable (non-upgradable) Whirlpool deployment, same program and instructions: orca-so/whirlpools
  // ts-sdk/client/src/config.ts IMMUTABLE_WHIRLPOOLS_PROGRAM_ADDRESS ("for Solana Mainnet", config 8pm8er…).
  { programId: 'iwhrLHdsgrvmnwU8GF2FSmyabSMjfHwFGJAX2ufJ3ZN', name: 'Orca Whirlpool (immutable)', kind: 'exchange' },
  { programId: 'LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', name: 'Meteora DLMM', kind: 'exchange' },
  { programId: 'Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB', name: 'Meteora Dynamic AMM', kind: 'exchange' },
  { programId: 'cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG', name: 'Meteora DAMM v2', kind: 'exchange' },
  { programId: 'PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY', name: 'Phoenix', kind: 'exchange' },
  { programId: 'EewxydAPCCVuNEyrVN68PuSYdQ7wKn27V9Gjeoi8dy3S', name: 'Lifinity v1', kind: 'exchange' },
  { programId: '2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c', name: 'Lifinity v2', kind: 'exchange' },
  { programId: OPENBOOK_V1_PROGRAM, name: 'OpenBook v1', kind: 'exchange' },
  { programId: OPENBOOK_V2_PROGRAM, name: 'OpenBook v2', kind: 'exchange' },
  { programId: SERUM_DEX_V3_PROGRAM, name: 'Serum DEX v3', kind: 'exchange' },
  { programId: 'LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj', name: 'Raydium LaunchLab', kind: 'launchpad' },
  { programId: '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', name: 'Pump.fun', kind: 'launchpad' },
  { programId: 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA', name: 'PumpSwap', kind: 'launchpad' },
  { programId: 'MoonCVVNZFSYkqNXP6bxHLPL6QQJiMagDL3qcqUQTrG', name: 'Moonshot', kind: 'launchpad' },
  { programId: 'dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN', name: 'Meteora Dynamic Bonding Curve', kind: 'launchpad' },
  // Invoked by recorded fixtures; ids checked against several independent public sources:
  // OKX: `declare_id!` of the dex_solana router program + carbon-okx-dex-decoder (fixture okx-router-pumpswap-buy).
  { programId: '6m2CDdhRgxpH4WjvdzxAYbGxwdGUz5MziiL5jek2kBma', name: 'OKX DEX Router', kind: 'aggregator' },
  // SolFi: several DEX-label tables and decoders (fixture jupiter-v6-sharedroute-sol-usdt-dlmm-solfi).
  { programId: 'SoLFiHG9TfgtdUXUjWAxi3LtvYuFyDLVhBWxdMZxyCe', name: 'SolFi', kind: 'exchange' },
  // PancakeSwap CLMM (Raydium CLMM fork): connector docs name it with pool DJNtGu… (SOL/USDC), the pool in
  // fixture jupiter-v6-route-sol-usdc-base64.
  { programId: 'HpNfyc2Saw7RKkQd8nEL4khUcuPhQ7WwY1B2qjx8jxFq', name: 'PancakeSwap CLMM', kind: 'exchange' },
  // SPL token-swap and Orca's two deployments of it (constant-product pools, 2021's main AMMs; Orca v2 still in
  // routes): the token-swap `declare_id!` (solana-program-library token-swap/program/src/lib.rs); Orca's ids in
  // several bots' and label tables ("Orca V2", `ORCA_SWAP_PROGRAM_ID`); each invoked by a recorded 2021 fixture.
  { programId: 'SwaPpA9LAaLfeLi3a68M4DjnLqgtticKg6CnyNwgAC8', name: 'SPL Token Swap', kind: 'exchange' },
  { programId: 'DjVE6JNiYqPL2QXyCUUh8rNjHrbz9hXHNYt99MQ59qw1', name: 'Orca Token Swap v1', kind: 'exchange' },
  { programId: '9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP', name: 'Orca Token Swap v2', kind: 'exchange' },
  // Jupiter limit orders ("Trigger"): v2 id in several independent trackers and bots (e.g. a DEX-type test
  // suite, a Go event parser `JupLimit2ProgramAddress`); v1 id listed beside it as "Jupiter Limit Orders V1".
  { programId: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X', name: 'Jupiter Limit Order v2', kind: 'aggregator' },
  { programId: 'jupoNjAxXgZ4rjzxzPMP4oxduvQsQtZzyknqvzYNrNu', name: 'Jupiter Limit Order v1', kind: 'aggregator' },
];

// Programs beyond trading venues whose instructions the decoder names (tx/instructions.ts). Each id was
// checked against several independent public files (find_string over the code index), noted per line.
/** Stake program: invoked by the recorded stake-withdraw fixture; solana-program stake `declare_id!`. */
export const STAKE_PROGRAM = 'Stake11111111111111111111111111111111111111';
/** Vote program: invoked by the recorded vote fixture. */
export const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
/** Metaplex Token Metadata: invoked by the recorded NFT fixtures. */
export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
/** Metaplex Bubblegum (compressed NFTs): NFT-program tables in several trackers; invoked in the recorded block fixture. */
export const BUBBLEGUM_PROGRAM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';
/** Kamino Lending (klend): Kamino SDK constants copied in several bots and a CPI crate (`KAMINO_LENDING_PROGRAM_ID`). */
export const KAMINO_LENDING_PROGRAM = 'KLend2g3cP87fffoy8q1mQqGKjrxjC8boSyAYavgmjD';
/** MarginFi v2: lending-program tables in several analytics repos. */
export const MARGINFI_PROGRAM = 'MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA';
/** Solend (SPL token-lending fork): `SOLEND_PROGRAM` in several bots and program-label tables. */
export const SOLEND_PROGRAM = 'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo';
/** Squads multisig v4: carbon's decoder generator, Squads SDK defaults, several wallets' vault checks. */
export const SQUADS_V4_PROGRAM = 'SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf';
/** Magic Eden v2 marketplace: the M2 contract README, NFT-marketplace label tables. */
export const MAGIC_EDEN_V2_PROGRAM = 'M2mx93ekt1fmXSVkTrUL9xVFHkmME8HTUi5Cyc5aF7K';
/** Tensor marketplace (TCOMP): tensor-foundation marketplace client defaults, marketplace label tables. */
export const TENSOR_MARKETPLACE_PROGRAM = 'TCMPhJdwDryooaGtiocG1u3xcYbRpiJzb283XfCZsDp';
/** SPL Governance (Realms), default instance: its Anchor.toml and governance/README.md (Mythic-Project/spl-governance). */
export const SPL_GOVERNANCE_PROGRAM = 'GovER5Lthms3bLBqWub97yVrMmEogzX7xNjdXpPPCVZw';
/** Metaplex Auction House: `declare_id!` in metaplex-program-library auction-house/program/src/lib.rs. */
export const AUCTION_HOUSE_PROGRAM = 'hausS13jsjafwWwGqZTUQRmWyvyxn9EQpqMwV1PBBmk';
/** Metaplex Auction (legacy, deprecated): `declare_id!` in metaplex-program-library auction/program/src/lib.rs before its removal. */
export const METAPLEX_AUCTION_PROGRAM = 'auctxRXPeJoc4817jDhf4HbjnhEcr1cCXenosMhK5R8';
/** Metaplex Candy Machine v2: `declare_id!` in metaplex-program-library candy-machine/program/src/lib.rs. */
export const CANDY_MACHINE_V2_PROGRAM = 'cndy3Z4yapfJBmL3ShUp5exZKqR3z33thTzeNMm2gRZ';
/** Metaplex Candy Machine Core (v3): `declare_id!` in metaplex-program-library candy-machine-core/program/src/lib.rs. */
export const CANDY_MACHINE_V3_PROGRAM = 'CndyV3LdqHUfDLmE5naZjVN8rBZz4tqhdefbAnjHG3JR';

const venueById = new Map(VENUES.map((v) => [v.programId, v]));

export function venueOf(programId: string): Venue | undefined {
  return venueById.get(programId);
}
