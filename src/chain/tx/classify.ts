// Category of a transaction from the program ids it ACTUALLY invoked (top-level, inner, and
// `Program <id> invoke [n]` log lines) — never from brand names or other text in the logs, and never
// from ids that merely sit in the account keys or lookup tables without being invoked.
//
// Beside the category, each instruction is named from its discriminator (instructions.ts) and the
// transaction gets a `kind`: the most significant of its instructions' kinds (liquidity deposit,
// pool creation, order placed, ...), so a liquidity deposit on an AMM is not called a swap.
//
// Precedence (DESIGN.md §3), for transactions whose kind is a trade (swap, order fill, or a venue
// instruction the decoder cannot name): any launchpad venue -> MemeCoin (even when an aggregator
// routed it); else any aggregator/exchange venue -> Swap. A pool (token) created on a launchpad is
// MemeCoin too (a launchpad mint). Else a plain SOL/token transfer -> Transfer. Anything else
// (liquidity, orders placed or cancelled, lending, stake, NFT, vote, unknown programs) still gets a
// category, 'Transfer', with matched = false: it claims no trade and no meme-coin risk, and `kind`
// and the summary say what it is.

import {
  ASSOCIATED_TOKEN_PROGRAM,
  AUCTION_HOUSE_PROGRAM,
  CANDY_MACHINE_V2_PROGRAM,
  CANDY_MACHINE_V3_PROGRAM,
  METAPLEX_AUCTION_PROGRAM,
  SPL_GOVERNANCE_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  BUBBLEGUM_PROGRAM,
  KAMINO_LENDING_PROGRAM,
  MAGIC_EDEN_V2_PROGRAM,
  MARGINFI_PROGRAM,
  OPENBOOK_V1_PROGRAM,
  OPENBOOK_V2_PROGRAM,
  SERUM_DEX_V3_PROGRAM,
  SERUM_SWAP_PROGRAM,
  SOLEND_PROGRAM,
  SQUADS_V4_PROGRAM,
  STAKE_PROGRAM,
  TENSOR_MARKETPLACE_PROGRAM,
  TOKEN_METADATA_PROGRAM,
  type Venue,
  VOTE_PROGRAM,
  venueOf,
} from '../program-ids';
import { type ActionKind, decodableProgramIds, dominantKind, identifyInstruction } from './instructions';
import { type IdlDirectory, idlInstructionName } from './idl';
import { loggedInstructionNames, placeInnerInstructions } from './log-names';
import { shortenAddress } from '../format';
import { balanceChangesFor } from './changes';
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
  /** What the transaction does (or tried to): the most significant kind among its actions. */
  readonly kind: ActionKind;
  /** What each instruction does, in order (see actionsOf). */
  readonly actions: readonly Action[];
  /**
   * Programs no table lists as venues that a route went through: ones a router (an aggregator, or a top-level
   * program the tables do not know) called and that moved tokens, named by their own log or IDL; invocation order.
   */
  readonly routeVenues: readonly string[];
}

/**
 * Where an action's name and kind come from: the decoder's tables; a venue the tables do not detail (a
 * trade); the program's Anchor IDL published on chain (the name; the kind from its effects); the program's
 * own `Instruction: <Name>` log line (the name; the kind from its effects); the effects of a program the
 * tables do not know (its inner Token / System instructions: a burn, a mint, a transfer, an account opened
 * or closed); or nothing (kind unknown).
 */
export type ActionSource = 'table' | 'venue' | 'idl' | 'log' | 'effects' | 'none';

export interface Action {
  /** Top-level instruction this action is, or ran under. */
  readonly instructionIndex: number;
  /** True when it is a CPI made by a program the decoder does not know (a bot's router, say). */
  readonly inner: boolean;
  readonly programId: string;
  /** Instruction name from the program's IDL or source; null when the program or instruction is not known. */
  readonly name: string | null;
  readonly kind: ActionKind;
  readonly source: ActionSource;
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
  [VOTE_PROGRAM]: 'Vote program',
  [STAKE_PROGRAM]: 'Stake program',
  [TOKEN_METADATA_PROGRAM]: 'Metaplex Token Metadata',
  [BUBBLEGUM_PROGRAM]: 'Metaplex Bubblegum',
  [KAMINO_LENDING_PROGRAM]: 'Kamino Lending',
  [MARGINFI_PROGRAM]: 'MarginFi v2',
  [SOLEND_PROGRAM]: 'Solend',
  [SQUADS_V4_PROGRAM]: 'Squads v4',
  [MAGIC_EDEN_V2_PROGRAM]: 'Magic Eden v2',
  [TENSOR_MARKETPLACE_PROGRAM]: 'Tensor Marketplace',
  [SPL_GOVERNANCE_PROGRAM]: 'SPL Governance',
  [AUCTION_HOUSE_PROGRAM]: 'Metaplex Auction House',
  [METAPLEX_AUCTION_PROGRAM]: 'Metaplex Auction (legacy)',
  [CANDY_MACHINE_V2_PROGRAM]: 'Metaplex Candy Machine v2',
  [CANDY_MACHINE_V3_PROGRAM]: 'Metaplex Candy Machine Core',
  // project-serum/swap `declare_id!`; a router over Serum markets, named here but no venue: its trades are
  // the Serum orders it places and settles (settledOrderTrade)
  [SERUM_SWAP_PROGRAM]: 'Serum Swap',
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

/** What one instruction does: from its own discriminator, else (a venue without a table) a swap. */
function actionOf(ix: NormalizedInstruction, inner: boolean): Action | null {
  const known = identifyInstruction(ix);
  if (known) return { instructionIndex: ix.topLevelIndex, inner, programId: ix.programId, name: known.name, kind: known.kind, source: 'table' };
  // Aggregators and exchanges the decoder has no instruction table for exist to trade.
  if (venueOf(ix.programId)) return { instructionIndex: ix.topLevelIndex, inner, programId: ix.programId, name: null, kind: 'swap', source: 'venue' };
  return null;
}

/**
 * What the plain programs did under one top-level instruction, most significant first (a burn outweighs the
 * transfers around it; closing or opening an account is account management); null when they did nothing.
 */
export function effectKind(tx: NormalizedTransaction, topLevelIndex: number): ActionKind | null {
  const kinds = (tx.innerInstructions ?? []).flatMap((inner) => {
    if (inner.topLevelIndex !== topLevelIndex || !PLAIN_PROGRAMS.has(inner.programId)) return [];
    const kind = identifyInstruction(inner)?.kind;
    return kind && kind !== 'unknown' ? [kind] : [];
  });
  return kinds.length > 0 ? dominantKind(kinds) : null;
}

/** An inner action named by its program's IDL or log line, with who called it (for route venues). */
interface NamedInner {
  readonly action: Action;
  readonly caller: string | null;
}

/**
 * Inner instructions of programs no table names (and no venue), named where they ran: by the program's IDL,
 * else by the `Instruction: <Name>` line it printed at that invocation (log-names.ts placeInnerInstructions).
 * The kind is what the plain programs under it did (effects), else `unknown`. By top-level index.
 */
function namedInnerActions(tx: NormalizedTransaction, idls: IdlDirectory): Map<number, NamedInner[]> {
  const out = new Map<number, NamedInner[]>();
  const inner = tx.innerInstructions ?? [];
  if (inner.length === 0) return out;
  const placed = placeInnerInstructions(tx.logs, tx.instructions.map((ix) => ix.programId), inner);
  const depthAt = new Map(placed.map((p) => [p.innerIndex, p.invocation.depth]));
  const depthOf = (i: number) => depthAt.get(i) ?? inner[i]!.stackHeight;
  for (const { innerIndex, invocation } of placed) {
    const ix = inner[innerIndex]!;
    if (PLAIN_PROGRAMS.has(ix.programId) || venueOf(ix.programId) || identifyInstruction(ix)) continue;
    const idl = idls.get(ix.programId);
    const idlName = idl ? idlInstructionName(idl, ix.data) : null;
    const name = idlName ?? invocation.name;
    if (name === null) continue;
    const kinds: ActionKind[] = [];
    for (let j = innerIndex + 1; j < inner.length && inner[j]!.topLevelIndex === ix.topLevelIndex; j++) {
      const depth = depthOf(j);
      if (depth === null || depth <= invocation.depth) break;
      const kind = PLAIN_PROGRAMS.has(inner[j]!.programId) ? identifyInstruction(inner[j]!)?.kind : undefined;
      if (kind && kind !== 'unknown') kinds.push(kind);
    }
    const action: Action = {
      instructionIndex: ix.topLevelIndex,
      inner: true,
      programId: ix.programId,
      name,
      kind: kinds.length > 0 ? dominantKind(kinds) : 'unknown',
      source: idlName ? 'idl' : 'log',
    };
    const list = out.get(ix.topLevelIndex);
    if (list) list.push({ action, caller: invocation.caller });
    else out.set(ix.topLevelIndex, [{ action, caller: invocation.caller }]);
  }
  return out;
}

/** The name a top-level instruction of a program no table knows gives itself: its IDL's, else its log line's. */
function ownName(ix: NormalizedInstruction, idls: IdlDirectory, logged: () => ReadonlyMap<number, string>) {
  const idl = idls.get(ix.programId);
  const idlName = idl ? idlInstructionName(idl, ix.data) : null;
  const logName = idlName ? null : (logged().get(ix.topLevelIndex) ?? null);
  return { name: idlName ?? logName, source: idlName ? ('idl' as const) : logName ? ('log' as const) : null };
}

/**
 * One action per top-level instruction whose program the decoder knows. For a top-level program it does
 * not know, the outermost CPIs it made into known non-plain programs stand for it (a trading bot's
 * router calling a Raydium deposit is a liquidity deposit), after an action of its own when its IDL or log
 * names it (its kind the most significant of theirs); with none, its kind is what its inner Token and
 * System instructions did (effectKind), else `unknown`, unless it made no CPI at all next to a plain
 * transfer (inert: see isInertTopLevelProgram). Then, at any depth, each program no table names that logged
 * its own name where it ran (namedInnerActions).
 * Compute-budget and memo instructions carry no action.
 */
export function actionsOf(tx: NormalizedTransaction, idls: IdlDirectory = NO_IDLS): Action[] {
  return actionsAndRoutes(tx, idls).actions;
}

function actionsAndRoutes(tx: NormalizedTransaction, idls: IdlDirectory): { actions: Action[]; routeVenues: string[] } {
  const actions: Action[] = [];
  // read from the logs only once an instruction the tables cannot name needs it
  let logged: ReadonlyMap<number, string> | undefined;
  const loggedNames = () => (logged ??= loggedInstructionNames(tx.logs, tx.instructions.map((top) => top.programId)));
  const namedInner = namedInnerActions(tx, idls);
  const routers = new Set<string>();
  for (const ix of tx.instructions) {
    const own = actionOf(ix, false);
    const before = actions.length;
    if (own) actions.push(own);
    else if (!PLAIN_PROGRAMS.has(ix.programId)) {
      const cpis = (tx.innerInstructions ?? [])
        .filter((inner) => inner.topLevelIndex === ix.topLevelIndex && !PLAIN_PROGRAMS.has(inner.programId))
        .map((inner) => [inner, actionOf(inner, true)] as const)
        .filter((pair): pair is readonly [NormalizedInstruction, Action] => pair[1] !== null);
      if (cpis.length > 0) {
        const outermost = Math.min(...cpis.map(([inner]) => inner.stackHeight ?? Number.POSITIVE_INFINITY));
        const standing = cpis.filter(([inner]) => (inner.stackHeight ?? Number.POSITIVE_INFINITY) === outermost).map(([, action]) => action);
        const { name, source } = ownName(ix, idls, loggedNames);
        if (name !== null && source !== null) {
          actions.push({ instructionIndex: ix.topLevelIndex, inner: false, programId: ix.programId, name, kind: dominantKind(standing.map((a) => a.kind)), source });
        }
        actions.push(...standing);
        routers.add(ix.programId);
      } else if (!(tx.instructions.some(isPlainTransferInstruction) && isInertTopLevelProgram(tx, ix.programId))) {
        const effect = effectKind(tx, ix.topLevelIndex);
        const { name, source } = ownName(ix, idls, loggedNames);
        actions.push({ instructionIndex: ix.topLevelIndex, inner: false, programId: ix.programId, name, kind: effect ?? 'unknown', source: source ?? (effect ? 'effects' : 'none') });
        routers.add(ix.programId);
      }
    }
    // compute budget and memo carry no action, nor their inner instructions
    if (actions.length > before) actions.push(...(namedInner.get(ix.topLevelIndex) ?? []).map((n) => n.action));
  }
  const isRouter = (caller: string | null) => caller !== null && (venueOf(caller)?.kind === 'aggregator' || routers.has(caller));
  const venues = new Set(
    [...namedInner.values()].flat().flatMap((n) => (isRouter(n.caller) && n.action.kind === 'transfer' ? [n.action.programId] : [])),
  );
  return { actions, routeVenues: tx.invokedProgramIds.filter((id) => venues.has(id)) };
}

/** Inner actions named from an IDL or a log line tell where a transaction went, not what it was. */
export function isNamedInner(action: Action): boolean {
  return action.inner && (action.source === 'idl' || action.source === 'log');
}

/** Kinds that make a transaction a trade (Swap or MemeCoin) when a venue ran. */
const TRADE_KINDS: ReadonlySet<ActionKind> = new Set(['swap', 'order_fill', 'unknown']);

const NO_IDLS: IdlDirectory = new Map();

/**
 * Top-level programs the tables cannot name and that are no venue: the ones whose published IDL could
 * (the capability fetches those, at most `limit`).
 */
export function programsWithoutTable(tx: NormalizedTransaction, limit: number): string[] {
  const known = new Set(decodableProgramIds());
  const ids = tx.instructions.map((ix) => ix.programId).filter((id) => !known.has(id) && !PLAIN_PROGRAMS.has(id) && !venueOf(id));
  return [...new Set(ids)].slice(0, limit);
}

/** Central limit order books whose orders can be placed and settled in one transaction. */
const ORDER_BOOKS: ReadonlySet<string> = new Set([SERUM_DEX_V3_PROGRAM, OPENBOOK_V1_PROGRAM, OPENBOOK_V2_PROGRAM]);

/**
 * An order placed on an order book and settled in the same transaction (directly, through a router, or via
 * the Serum swap program), leaving a signer with less of one asset and more of another: a trade, not an
 * order left resting.
 */
function settledOrderTrade(tx: NormalizedTransaction, actions: readonly Action[]): boolean {
  const onBook = actions.filter((a) => ORDER_BOOKS.has(a.programId));
  if (!onBook.some((a) => a.kind === 'order_place') || !onBook.some((a) => a.name === 'settle_funds')) return false;
  return tx.signers.some((signer) => {
    const changes = balanceChangesFor(tx, signer).changes;
    return changes.some((c) => c.raw < 0n) && changes.some((c) => c.raw > 0n);
  });
}

export function classifyTransaction(tx: NormalizedTransaction, idls: IdlDirectory = NO_IDLS): Classification {
  const venues: Venue[] = [];
  const otherPrograms: string[] = [];
  for (const id of tx.invokedProgramIds) {
    const venue = venueOf(id);
    if (venue) venues.push(venue);
    else if (!PLAIN_PROGRAMS.has(id)) otherPrograms.push(id);
  }
  const { actions, routeVenues } = actionsAndRoutes(tx, idls);
  const dominant = dominantKind(actions.filter((a) => !isNamedInner(a)).map((a) => a.kind));
  const kind = dominant === 'order_place' && settledOrderTrade(tx, actions) ? 'swap' : dominant;
  const base = { venues, otherPrograms, kind, actions, routeVenues };

  const launchpad = venues.some((v) => v.kind === 'launchpad');
  if (venues.length > 0 && (TRADE_KINDS.has(kind) || (launchpad && kind === 'pool_create'))) {
    return launchpad
      ? { category: 'MemeCoin', matched: true, basis: 'launchpad', ...base }
      : { category: 'Swap', matched: true, basis: 'venue', ...base };
  }
  const hasPlainTransfer = tx.instructions.some(isPlainTransferInstruction);
  if (venues.length === 0 && hasPlainTransfer && otherPrograms.every((id) => isInertTopLevelProgram(tx, id))) {
    return { category: 'Transfer', matched: true, basis: 'plain-transfer', ...base };
  }
  return { category: 'Transfer', matched: false, basis: 'fallback', ...base };
}
