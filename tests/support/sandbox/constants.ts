// Identity of the sandbox cluster and the mainnet program ids it renders.

/** The Agave version the sandbox claims to run; every `context.apiVersion` and getVersion use it. */
export const API_VERSION = '2.3.7';
/** `feature-set` reported by getVersion (an opaque u32 on mainnet). */
export const FEATURE_SET = 3_073_396_398;
/** Mainnet-beta's genesis hash: the sandbox renders mainnet program ids and shapes, so it claims mainnet's identity too. */
export const GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/** USDC's mainnet mint; the sandbox holds it at genesis (6 decimals, `payer` its mint authority). */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

export const SLOTS_PER_EPOCH = 432_000n;
/** Mainnet's block height trails its slot by the number of skipped slots; the sandbox keeps a fixed gap. */
export const BLOCK_HEIGHT_GAP = 21_819_948n;
/** Mainnet accepts a blockhash for 150 blocks (MAX_PROCESSING_AGE); lastValidBlockHeight = blockHeight + 150. */
export const MAX_PROCESSING_AGE = 150n;
/** getSignatureStatuses without searchTransactionHistory only sees the status cache (MAX_RECENT_BLOCKHASHES). */
export const STATUS_CACHE_SLOTS = 300n;
export const MS_PER_SLOT = 400;

export const LAMPORTS_PER_SIGNATURE = 5000n;
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
export const MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT = 3_000n;
/** SIMD-0186: every loaded account costs 64 bytes on top of its data in loadedAccountsDataSize. */
export const TRANSACTION_ACCOUNT_BASE_SIZE = 64;

export const U64_MAX = 18_446_744_073_709_551_615n;

// Program ids are facts shared with the gateway: one checked table.
export {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  TOKEN_PROGRAMS,
} from '../../../src/chain/program-ids.ts';
import { COMPUTE_BUDGET_PROGRAM, SYSTEM_PROGRAM } from '../../../src/chain/program-ids.ts';
export const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
export const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
export const BPF_UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
export const ED25519_PROGRAM = 'Ed25519SigVerify111111111111111111111111111';
export const SECP256K1_PROGRAM = 'KeccakSecp256k11111111111111111111111111111';
export const SECP256R1_PROGRAM = 'Secp256r1SigVerify1111111111111111111111111';


/** Builtins that still run natively: each reserves 3,000 CUs when no SetComputeUnitLimit is given. */
export const NATIVE_BUILTINS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  VOTE_PROGRAM,
  BPF_UPGRADEABLE_LOADER,
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  ED25519_PROGRAM,
  SECP256K1_PROGRAM,
  SECP256R1_PROGRAM,
]);

/** Accounts the runtime never lets a transaction write (sysvars and native programs): demoted to read-only. */
export const RESERVED_ACCOUNTS: ReadonlySet<string> = new Set([
  ...NATIVE_BUILTINS,
  'NativeLoader1111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  'SysvarC1ock11111111111111111111111111111111',
  'SysvarEpochSchedu1e111111111111111111111111',
  'SysvarFees111111111111111111111111111111111',
  'Sysvar1nstructions1111111111111111111111111',
  'SysvarRecentB1ockHashes11111111111111111111',
  'SysvarRent111111111111111111111111111111111',
  'SysvarRewards111111111111111111111111111111',
  'SysvarS1otHashes111111111111111111111111111',
  'SysvarS1otHistory11111111111111111111111111',
  'SysvarStakeHistory1111111111111111111111111',
  'SysvarEpochRewards1111111111111111111111111',
  'SysvarLastRestartS1ot1111111111111111111111',
]);
