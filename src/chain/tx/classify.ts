// Category of a transaction from the program ids it ACTUALLY invoked (top-level, inner, and
// `Program <id> invoke [n]` log lines) — never from brand names or other text in the logs, and never
// from ids that merely sit in the account keys or lookup tables without being invoked.
//
// Precedence (DESIGN.md §3): any launchpad venue -> MemeCoin (even when an aggregator routed it);
// else any aggregator/exchange venue -> Swap; else a plain SOL/token transfer -> Transfer.
// Anything else (vote, stake, NFT, unknown programs) still gets a category, 'Transfer', with
// matched = false: it claims no trade and no meme-coin risk, and most such transactions do move
// value between accounts; the summary then says plainly that it is not a swap or transfer.

import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  type Venue,
  venueOf,
} from '../program-ids';
import { shortenAddress } from '../format';
import type { NormalizedInstruction, NormalizedTransaction } from './normalize';

export type Category = 'Swap' | 'MemeCoin' | 'Transfer';

/** What the category rests on. */
export type ClassificationBasis = 'launchpad' | 'venue' | 'plain-transfer' | 'fallback';

export interface Classification {
  readonly category: Category;
  /** false when no rule matched and `category` is only the fallback. */
  readonly matched: boolean;
  readonly basis: ClassificationBasis;
  /** Recognized venues, in the order they were first invoked. */
  readonly venues: readonly Venue[];
  /** Invoked programs that are neither venues nor the plain System/Token/ATA/Memo/Compute Budget programs. */
  readonly otherPrograms: readonly string[];
}

/** Programs a plain wallet-to-wallet transfer may use. */
export const PLAIN_PROGRAMS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM,
  TOKEN_PROGRAM,
  TOKEN_2022_PROGRAM,
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
]);

// Names for well-known non-venue programs, used only to describe what a transaction invoked.
// Vote/Stake/Metaplex ids are those invoked by the recorded vote, stake-withdraw and NFT fixtures.
const PROGRAM_NAMES: Readonly<Record<string, string>> = {
  [SYSTEM_PROGRAM]: 'System Program',
  [TOKEN_PROGRAM]: 'SPL Token',
  [TOKEN_2022_PROGRAM]: 'Token-2022',
  [ASSOCIATED_TOKEN_PROGRAM]: 'Associated Token Account',
  [COMPUTE_BUDGET_PROGRAM]: 'Compute Budget',
  [MEMO_PROGRAM]: 'Memo',
  [MEMO_V1_PROGRAM]: 'Memo v1',
  Vote111111111111111111111111111111111111111: 'Vote program',
  Stake11111111111111111111111111111111111111: 'Stake program',
  metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s: 'Metaplex Token Metadata',
};

/** Venue or well-known program name, or null. */
export function programName(programId: string): string | null {
  return venueOf(programId)?.name ?? PROGRAM_NAMES[programId] ?? null;
}

/** Name when known, else the shortened id. */
export function programLabel(programId: string): string {
  return programName(programId) ?? shortenAddress(programId);
}

function u32le(data: Uint8Array): number | null {
  return data.length >= 4 ? (data[0]! | (data[1]! << 8) | (data[2]! << 16)) + data[3]! * 0x1000000 : null;
}

const SYSTEM_TRANSFERS = new Set([2 /* Transfer */, 11 /* TransferWithSeed */]);
const TOKEN_TRANSFERS = new Set([3 /* Transfer */, 12 /* TransferChecked */]);
const PARSED_TRANSFERS = new Set(['transfer', 'transferWithSeed', 'transferChecked', 'transferCheckedWithFee']);

/** System transfer / transferWithSeed, or Token / Token-2022 transfer, transferChecked, transferCheckedWithFee. */
export function isPlainTransferInstruction(ix: NormalizedInstruction): boolean {
  const isSystem = ix.programId === SYSTEM_PROGRAM;
  const isToken = ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM;
  if (!isSystem && !isToken) return false;
  if (ix.parsed) return ix.parsed.type !== null && PARSED_TRANSFERS.has(ix.parsed.type);
  const data = ix.data;
  if (!data || data.length === 0) return false;
  if (isSystem) {
    const tag = u32le(data);
    return tag !== null && SYSTEM_TRANSFERS.has(tag);
  }
  if (TOKEN_TRANSFERS.has(data[0]!)) return true;
  // Token-2022 TransferFeeExtension (26) / TransferCheckedWithFee (1)
  return ix.programId === TOKEN_2022_PROGRAM && data[0] === 26 && data[1] === 1;
}

/**
 * An otherwise-unknown top-level program does not spoil a plain transfer when it made no CPI: without
 * one it cannot have moved tokens, and the value movement is the plain transfer instruction's.
 * Needs the node's inner instructions to tell; without them we do not assume.
 */
function isInertTopLevelProgram(tx: NormalizedTransaction, programId: string): boolean {
  if (tx.innerInstructions === null) return false;
  const ownIndexes = tx.instructions.filter((ix) => ix.programId === programId).map((ix) => ix.topLevelIndex);
  if (ownIndexes.length === 0) return false; // invoked only by CPI or only seen in logs
  return !tx.innerInstructions.some((inner) => inner.programId === programId || ownIndexes.includes(inner.topLevelIndex));
}

export function classifyTransaction(tx: NormalizedTransaction): Classification {
  const venues: Venue[] = [];
  const otherPrograms: string[] = [];
  for (const id of tx.invokedProgramIds) {
    const venue = venueOf(id);
    if (venue) venues.push(venue);
    else if (!PLAIN_PROGRAMS.has(id)) otherPrograms.push(id);
  }

  if (venues.some((v) => v.kind === 'launchpad')) {
    return { category: 'MemeCoin', matched: true, basis: 'launchpad', venues, otherPrograms };
  }
  if (venues.length > 0) {
    return { category: 'Swap', matched: true, basis: 'venue', venues, otherPrograms };
  }
  const hasPlainTransfer = tx.instructions.some(isPlainTransferInstruction);
  if (hasPlainTransfer && otherPrograms.every((id) => isInertTopLevelProgram(tx, id))) {
    return { category: 'Transfer', matched: true, basis: 'plain-transfer', venues, otherPrograms };
  }
  return { category: 'Transfer', matched: false, basis: 'fallback', venues, otherPrograms };
}
