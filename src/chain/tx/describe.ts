// decode-tx body: getTransaction result (any encoding) -> what a human or an agent needs to know.
// Transport concerns (fetching, 404 for null, live_status, HTTP) belong to the caller.

import type { Network } from '../../config.ts';
import type { VenueKind } from '../program-ids';
import { SOL_DECIMALS, formatAssetAmount, formatUnits, mintSymbol, shortenAddress } from '../format';
import { type Action, type ActionSource, type Category, type Classification, classifyTransaction, isNamedInner, programLabel, programName } from './classify';
import { type AccountChange, type AssetChange, type OwnerChanges, accountChangesOf, accountRentOf, balanceChangesFor, ownerChangesOf, systemCreatedAccounts } from './changes';
import { type ActionKind, KIND_TEXT, identifyInstruction } from './instructions';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../program-ids';
import { type TransactionErrorInfo, describeTransactionError, formatTransactionError } from './errors';
import { type NormalizedInstruction, type NormalizedTransaction, normalizeTransaction } from './normalize';
import type { IdlDirectory } from './idl';
import { type TokenOwners, resolveTokenOwners } from './token-owners';
import { type CompressedNftAction, compressedNftActions, compressedNftSentence } from './bubblegum';
import { type RentPaidFor, type Side, counterpartiesOf, feePayerSide, rentPaidFor, walletSide, withoutRentPaidFor } from './point-of-view';
import { exactInteger } from '../../json';

export type TxStatus = 'SUCCESS' | 'FAILED';

export interface DescribeOptions {
  readonly signature: string;
  readonly network: Network;
  /** Anchor IDLs found on chain for programs the tables do not know (the capability fetches them). */
  readonly idls?: IdlDirectory;
  /**
   * Owners of token accounts whose balances came without one and that the transaction's own instructions do
   * not name (the capability reads them from the chain as they are now); the transaction's own word wins.
   */
  readonly tokenOwners?: TokenOwners;
  /** Tell the summary from this wallet's side (point-of-view.ts); the fee payer's when absent. */
  readonly wallet?: string;
}

export interface BalanceChangeView {
  /** 'SOL' (native; the fee payer's wrapped SOL folded in) or a token mint. */
  readonly asset: string;
  /** Symbol of a well-known mint ('SOL' for native), else null. */
  readonly symbol: string | null;
  readonly decimals: number;
  /** Signed raw integer amount as a string (lamports / base units); negative = left the fee payer. */
  readonly raw: string;
  /** Same, exact decimal ("-0.4", "27504.297755"). */
  readonly amount: string;
  /** Wallet on the other side when one can be singled out, else null. */
  readonly counterparty: string | null;
}

/** One owner's changes: every signer, and every other owner whose token balances moved. Lamports are JSON integers. */
export interface OwnerChangesView {
  readonly owner: string;
  readonly signer: boolean;
  readonly feePayer: boolean;
  /** Fee this owner paid, lamports (non-zero only for the fee payer). */
  readonly feeLamports: number | bigint;
  /** Non-zero changes net of the fee and of rent; SOL first (wrapped SOL folded in). */
  readonly changes: readonly BalanceChangeView[];
  /** Lamports put into (+) or recovered from (−) this owner's own token accounts as rent, whoever paid; not in its SOL change. */
  readonly tokenAccountRentLamports: number | bigint;
  /** Another wallet that paid that rent (this owner signed nothing): then it is not in the owner's SOL change either. */
  readonly tokenAccountRentPaidBy: string | null;
}

/** Whether `category` is what the transaction is, or only the nearest of Swap, MemeCoin and Transfer (then `kind` and the summary say what it is). */
export type CategoryFit = 'exact' | 'nearest';

/** A program the transaction invoked, and the kind of venue it is when it is one the classifier recognizes. */
export interface ProgramView {
  readonly programId: string;
  readonly name: string | null;
  readonly venue: VenueKind | null;
}

/** What one instruction did (see classify.ts actionsOf). */
export interface ActionView {
  readonly instructionIndex: number;
  readonly inner: boolean;
  readonly programId: string;
  readonly program: string | null;
  readonly name: string | null;
  readonly kind: ActionKind;
  readonly source: ActionSource;
}

/** TransactionErrorInfo with the message located ("instruction 2 (Raydium AMM v4) failed: ...") and meta.err as sent. */
export type DecodeTxError = Omit<TransactionErrorInfo, 'message'> & {
  readonly message: string;
  /** meta.err as the node returned it (big integers as strings). */
  readonly raw: unknown;
};

export interface DecodeTxBody {
  readonly signature: string;
  readonly network: Network;
  /** One line: what moved for the fee payer, via which venues, or why it failed. */
  readonly summary: string;
  readonly category: Category;
  /** 'nearest' when the transaction is none of Swap/MemeCoin/Transfer and `category` is only the nearest of them. */
  readonly categoryFit: CategoryFit;
  /** What it does (or tried to): the most significant kind among its instructions. */
  readonly kind: ActionKind;
  readonly details: {
    readonly slot: number;
    /** Lamports. */
    readonly fee: number | bigint;
    /** Block time, Unix seconds; null when the node has none. */
    readonly timestamp: number | null;
    readonly status: TxStatus;
  };
  readonly raw_logs: readonly string[];
  readonly llm_context: string;
  /** Every program invoked (top-level, inner, logs), in first-invoked order; recognized venues say their kind. */
  readonly programs: readonly ProgramView[];
  readonly feePayer: string;
  /** Accounts that signed, fee payer first. */
  readonly signers: readonly string[];
  /** Changes per owner: every signer, then every other owner whose token balances moved. */
  readonly ownerChanges: readonly OwnerChangesView[];
  /** Changes per address, as the balance arrays record them (ownerChanges regroups them by owner). */
  readonly accountChanges: readonly AccountChange[];
  /** What each instruction did, in order. */
  readonly actions: readonly ActionView[];
  readonly error: DecodeTxError | null;
  /** Only when told for a wallet: its entry of the per-owner view (computed when it is in none). */
  readonly walletChanges?: OwnerChangesView;
  /** Only when told for a wallet: the wallets on the other side of its changes (point-of-view.ts counterpartiesOf). */
  readonly counterparties?: readonly string[];
  /** Only when it touched compressed NFTs (Metaplex Bubblegum): what each instruction did to which asset (bubblegum.ts). */
  readonly compressedNfts?: readonly CompressedNftAction[];
}

// ---- summary pieces -----------------------------------------------------------------------------

const abs = (n: bigint) => (n < 0n ? -n : n);

function amountText(c: AssetChange): string {
  return formatAssetAmount(abs(c.raw), c.decimals, c.asset);
}

function solText(lamports: bigint): string {
  return formatAssetAmount(abs(lamports), SOL_DECIMALS, 'SOL');
}

function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * "Jupiter v6 → Raydium AMM v4", "OKX DEX Router → PumpSwap", "Pump.fun"; venues no table lists that the route
 * went through by their short id among the others, in the order they ran ("Jupiter v6 → ZERor4…hbZY, Raydium CLMM").
 */
function venuePhrase(tx: NormalizedTransaction, classification: Classification): string {
  const aggregators = classification.venues.filter((v) => v.kind === 'aggregator').map((v) => v.name);
  const listed = classification.venues.filter((v) => v.kind !== 'aggregator').map((v) => v.programId);
  const order = (id: string) => tx.invokedProgramIds.indexOf(id);
  const others = [...listed, ...classification.routeVenues].sort((a, b) => order(a) - order(b)).map(programLabel);
  if (aggregators.length > 0 && others.length > 0) return `${aggregators.join(' + ')} → ${others.join(', ')}`;
  return [...aggregators, ...others].join(', ');
}

/** "sent 0.1 USDC to 3UJQqK…dKnK", "received 0.010483145 SOL", "paid 0.00203928 SOL rent to open G7B17A…VdR's token account". */
function movementText(c: AssetChange): string {
  const who = c.counterparty ? shortenAddress(c.counterparty) : null;
  if (c.raw < 0n) {
    if (c.counterpartyIsNewTokenAccount && who) return `paid ${amountText(c)} rent to open ${who}'s token account`;
    return `sent ${amountText(c)}${who ? ` to ${who}` : ''}`;
  }
  return `received ${amountText(c)}${who ? ` from ${who}` : ''}`;
}

function rentNote(rent: bigint): string {
  if (rent > 0n) return ` (plus ${solText(rent)} rent for new token accounts)`;
  if (rent < 0n) return ` (plus ${solText(rent)} rent recovered from closed token accounts)`;
  return '';
}

/** Token accounts whose owner no one could tell (a pre-2022 node's balances) and whose amount moved. */
function unownedMoves(tx: NormalizedTransaction): AssetChange[] {
  const moves = new Map<string, AssetChange>();
  const add = (b: NormalizedTransaction['preTokenBalances'][number], sign: 1n | -1n) => {
    if (b.owner !== null || !b.account) return;
    const raw = (moves.get(b.account)?.raw ?? 0n) + sign * b.amount;
    moves.set(b.account, { asset: b.mint, decimals: b.decimals, raw, counterparty: b.account, counterpartyIsNewTokenAccount: false });
  };
  for (const b of tx.preTokenBalances) add(b, -1n);
  for (const b of tx.postTokenBalances) add(b, 1n);
  return [...moves.values()].filter((m) => m.raw !== 0n);
}

/** "; token account FT3A24…GaH (owner unknown) received 0.013 2FPyTw…6Pxk": said apart, for nobody. */
function unownedText(tx: NormalizedTransaction): string {
  return unownedMoves(tx)
    .map((m) => `; token account ${shortenAddress(m.counterparty!)} (owner unknown) ${m.raw < 0n ? 'sent' : 'received'} ${amountText(m)}`)
    .join('');
}

/** A wallet's changes as told, with the rent others paid for its token accounts taken out of them (point-of-view.ts). */
type Told = OwnerChanges & { readonly rentPaidFor?: RentPaidFor };

/** "its new token account", "its 2 new token accounts". */
function ownNewAccounts(paid: RentPaidFor): string {
  return paid.opened === 1 ? 'its new token account' : paid.opened > 1 ? `its ${paid.opened} new token accounts` : 'its token accounts';
}

function rentPayer(paid: RentPaidFor): string {
  return paid.payer ? shortenAddress(paid.payer) : 'another account';
}

/** " (its new token account's 0.00203928 SOL rent paid by JsP7iv…AmT9)": after what the wallet sent and received. */
function rentPaidForNote(paid: RentPaidFor): string {
  const whose = paid.opened === 1 ? `${ownNewAccounts(paid)}'s` : `${ownNewAccounts(paid)}'`;
  return ` (${whose} ${solText(paid.lamports)} rent paid by ${rentPayer(paid)})`;
}

/**
 * Only the owner's own fee is named: told for a wallet that did not pay it, there is none. A wallet that got
 * nothing but token accounts another paid for is said to have got them.
 */
function noChangeText(tx: NormalizedTransaction, owner: Told): string {
  // accounts of unknown owner moved: they may be this wallet's, so claim no more than is known
  const known = unownedMoves(tx).length > 0 ? ' known' : '';
  const paid = owner.rentPaidFor && owner.changes.length === 0 ? owner.rentPaidFor : null;
  const apart = paid
    ? ` apart from ${ownNewAccounts(paid)}, whose ${solText(paid.lamports)} rent ${rentPayer(paid)} paid`
    : owner.feeLamports > 0n
      ? ` apart from the ${solText(owner.feeLamports)} fee`
      : '';
  return `no balance change${known} for ${shortenAddress(owner.owner)}${apart}`;
}

/** `accountRent`: a note on the rent of accounts the trade opened or closed, kept apart from the amounts. */
function swapSummary(tx: NormalizedTransaction, cls: Classification, owner: OwnerChanges, accountRent = ''): string {
  const via = venuePhrase(tx, cls);
  const outs = owner.changes.filter((c) => c.raw < 0n).map(amountText);
  const ins = owner.changes.filter((c) => c.raw > 0n).map(amountText);
  const tokenRent = rentNote(owner.tokenAccountRentLamports);
  const rent = accountRent === '' ? tokenRent : tokenRent === '' ? ` (plus ${accountRent})` : `${tokenRent.slice(0, -1)}; ${accountRent})`;
  if (outs.length > 0 && ins.length > 0) return `Swapped ${joinList(outs)} for ${joinList(ins)} via ${via}${rent}`;
  const spender = owner.owner === tx.feePayer ? 'the fee payer' : shortenAddress(owner.owner);
  if (outs.length > 0) return `Spent ${joinList(outs)} via ${via}; ${spender} received nothing back${rent}`;
  if (ins.length > 0) return `Received ${joinList(ins)} via ${via}${rent}`;
  return `Invoked ${via} with ${noChangeText(tx, owner)}${rent}`;
}

/** What moved for the fee payer; `named` prefixes "for <owner>: " when there is something to list. */
function movementSummary(tx: NormalizedTransaction, owner: OwnerChanges, named = false): string {
  if (owner.changes.length === 0) return noChangeText(tx, owner) + rentNote(owner.tokenAccountRentLamports);
  // Main movements first; SOL that only paid rent for someone's new token account last.
  const ordered = [
    ...owner.changes.filter((c) => !c.counterpartyIsNewTokenAccount),
    ...owner.changes.filter((c) => c.counterpartyIsNewTokenAccount),
  ];
  const burned = burnsIn(tx).filter((b) => b.owner === owner.owner);
  const burnedWhole = (c: AssetChange) => c.raw < 0n && burned.some((b) => b.mint === c.asset && b.raw === -c.raw);
  const text = joinList(ordered.map((c) => (burnedWhole(c) ? `burned ${amountText(c)}` : movementText(c)))) + rentNote(owner.tokenAccountRentLamports);
  return named ? `for ${shortenAddress(owner.owner)}: ${text}` : text;
}

/**
 * The SOL a pool or order action really deposited or paid out, apart from the rent of the accounts it opened or
 * closed (accountRentOf), never more rent than the SOL that moved that way, and a note naming that rent.
 */
function splitRent(tx: NormalizedTransaction, owner: OwnerChanges): { sol: bigint; rent: bigint; note: string } {
  const rent = accountRentOf(tx, owner.owner);
  const sol = owner.changes.find((c) => c.asset === 'SOL')?.raw ?? 0n;
  const min = (a: bigint, b: bigint) => (a < b ? a : b);
  let carved = 0n;
  if (rent.lamports > 0n && sol < 0n) carved = min(rent.lamports, -sol);
  else if (rent.lamports < 0n && sol > 0n) carved = -min(-rent.lamports, sol);
  const plural = (n: number) => `${n} account${n === 1 ? '' : 's'}`;
  const note =
    carved > 0n
      ? `${solText(carved)} rent for ${plural(rent.opened)} it opened`
      : carved < 0n
        ? `${solText(carved)} rent back from ${plural(rent.closed)} it closed`
        : '';
  return { sol: sol + carved, rent: carved, note };
}

/** "deposited 1 SOL and 5 USDC, received 3 LP…" from one owner's side, rent for pool or order accounts apart. */
function flowText(tx: NormalizedTransaction, owner: OwnerChanges, outVerb: string, inVerb: string): string {
  const { sol, rent: accountRent, note } = splitRent(tx, owner);
  const shown = owner.changes.flatMap((c) => (c.asset !== 'SOL' ? [c] : sol === 0n ? [] : [{ ...c, raw: sol }]));
  const outs = shown.filter((c) => c.raw < 0n).map(amountText);
  const ins = shown.filter((c) => c.raw > 0n).map(amountText);
  const parts = [...(outs.length > 0 ? [`${outVerb} ${joinList(outs)}`] : []), ...(ins.length > 0 ? [`${inVerb} ${joinList(ins)}`] : [])];
  const tokenRent = rentNote(owner.tokenAccountRentLamports);
  const rent = note === '' ? tokenRent : tokenRent === '' ? ` (plus ${note})` : `${tokenRent.slice(0, -1)}; ${note})`;
  // nothing moved but rent: say so plainly rather than "no balance change (plus rent)"
  if (parts.length === 0 && tokenRent === '' && accountRent !== 0n) return `${accountRent > 0n ? 'paid' : 'got'} ${note}`;
  return (parts.length > 0 ? parts.join(', ') : noChangeText(tx, owner)) + rent;
}

function invokedText(tx: NormalizedTransaction, cls: Classification): string {
  const shown = cls.otherPrograms.length > 0 ? cls.otherPrograms : tx.invokedProgramIds;
  return `invoked ${joinList(shown.map(programLabel))}`;
}

/**
 * The action that gives the transaction its kind (first one of that kind): never an inner one only named by
 * its log or IDL, nor a top-level program's own named action when table actions stand for it (its kind is
 * theirs, and theirs say where).
 */
function mainAction(cls: Classification): Action | undefined {
  const standsFor = (a: Action) => cls.actions.some((b) => b.inner && b.instructionIndex === a.instructionIndex && (b.source === 'table' || b.source === 'venue'));
  return cls.actions.find((a) => a.kind === cls.kind && !isNamedInner(a) && !(!a.inner && (a.source === 'idl' || a.source === 'log') && standsFor(a)));
}

/** "Raydium CPMM (deposit)", "Kamino Lending (repay_obligation_liquidity_v2)". */
function actionWhere(action: Action): string {
  return `${programLabel(action.programId)}${action.name ? ` (${action.name})` : ''}`;
}

const TOKEN_BURNS = new Set(['burn', 'burn_checked', 'burnChecked']);

interface Burned {
  readonly mint: string;
  /** Owner of the token account burned from (null: unknown to the balance arrays). */
  readonly owner: string | null;
  readonly raw: bigint;
  readonly decimals: number;
}

/** The burn's own amount: u64 after the tag byte, or the parsed `amount` / `tokenAmount.amount`. */
function burnAmount(ix: NormalizedInstruction): bigint | null {
  if (ix.data && ix.data.length >= 9) return new DataView(ix.data.buffer, ix.data.byteOffset + 1, 8).getBigUint64(0, true);
  const info = ix.parsed?.info;
  const text = info?.amount ?? (info?.tokenAmount as { amount?: unknown } | undefined)?.amount;
  return typeof text === 'string' && /^\d+$/.test(text) ? BigInt(text) : null;
}

/**
 * What the Token programs burned, per mint and holder, by the burn instructions' own amounts: a
 * holder's net change can mix a burn with a transfer out of the same account. Under one top-level
 * instruction (its inner burns) when `topLevelIndex` is given, else in the whole transaction.
 */
function burnsIn(tx: NormalizedTransaction, topLevelIndex?: number): Burned[] {
  const totals = new Map<string, Burned>();
  const all = topLevelIndex === undefined ? [...tx.instructions, ...(tx.innerInstructions ?? [])] : (tx.innerInstructions ?? []);
  for (const ix of all) {
    if (topLevelIndex !== undefined && ix.topLevelIndex !== topLevelIndex) continue;
    if (ix.programId !== TOKEN_PROGRAM && ix.programId !== TOKEN_2022_PROGRAM) continue;
    const name = identifyInstruction(ix)?.name;
    if (!name || !TOKEN_BURNS.has(name)) continue;
    const source = ix.parsed?.info?.account ?? ix.accounts[0];
    const mint = ix.parsed?.info?.mint ?? ix.accounts[1];
    const raw = burnAmount(ix);
    if (typeof mint !== 'string' || raw === null) continue;
    const balance = [...tx.preTokenBalances, ...tx.postTokenBalances].find((b) => b.account === source);
    const owner = balance?.owner ?? null;
    const key = `${mint} ${owner}`;
    const sum = totals.get(key);
    totals.set(key, { mint, owner, raw: (sum?.raw ?? 0n) + raw, decimals: balance?.decimals ?? sum?.decimals ?? 0 });
  }
  return [...totals.values()];
}

/**
 * "Burned 72 X and received 72 Y through program Ab12…yZ": what a program the tables do not know did, by its
 * effects. SOL that only funded an account the System Program created here (the program's own data account,
 * e.g. a bridge's message account) is rent, said apart rather than as a payment to that account. Tokens it
 * burned from accounts other owners hold (an order's escrow) are named after, with their holder.
 */
function effectsSummary(tx: NormalizedTransaction, action: Action, owner: OwnerChanges, routeVenues: readonly string[] = []): string {
  const via = routeVenues.length > 0 ? ` via ${joinList(routeVenues.map(programLabel))}` : '';
  const through = `through program ${actionWhere(action)}${via}`;
  const tokenRent = rentNote(owner.tokenAccountRentLamports);
  const burns = burnsIn(tx, action.instructionIndex);
  const othersBurned = burns
    .filter((b) => b.owner !== owner.owner)
    .map((b) => `burned ${formatAssetAmount(b.raw, b.decimals, b.mint)}${b.owner ? ` held by ${shortenAddress(b.owner)}` : ''}`);
  const others = othersBurned.length === 0 ? '' : `; ${joinList(othersBurned)}`;
  if (owner.changes.length === 0) return `${capitalize(KIND_TEXT[action.kind])} ${through}; ${noChangeText(tx, owner)}${tokenRent}${others}`;
  const created = systemCreatedAccounts(tx);
  const isRent = (c: AssetChange) => c.asset === 'SOL' && c.raw < 0n && c.counterparty !== null && created.has(c.counterparty);
  const burned = new Set(burns.filter((b) => b.owner === owner.owner).map((b) => b.mint));
  const parts = owner.changes
    .filter((c) => !isRent(c))
    .map((c) => (c.raw < 0n && burned.has(c.asset) ? `burned ${amountText(c)}` : movementText(c)));
  const rent = owner.changes.filter(isRent).map((c) => `${amountText(c)} rent for ${shortenAddress(c.counterparty!)}, an account it opened`);
  const notes = [...(tokenRent === '' ? [] : [tokenRent.slice(' (plus '.length, -1)]), ...rent];
  const note = notes.length === 0 ? '' : ` (plus ${notes.join('; ')})`;
  if (parts.length === 0) return `${capitalize(KIND_TEXT[action.kind])} ${through}: paid ${rent.join(' and ')}${tokenRent}${others}`;
  return `${capitalize(joinList(parts))} ${through}${note}${others}`;
}

/** Summary lead for kinds that are not a trade or a plain transfer. */
function kindSummary(tx: NormalizedTransaction, cls: Classification, owner: OwnerChanges): string {
  const action = mainAction(cls);
  const named = action?.source === 'idl' || action?.source === 'log';
  if (action && (action.source === 'effects' || (named && action.kind !== 'unknown'))) return effectsSummary(tx, action, owner, cls.routeVenues);
  const where = action ? actionWhere(action) : '';
  switch (cls.kind) {
    case 'pool_create':
      return `Created a pool on ${where}: ${flowText(tx, owner, 'deposited', 'received')}`;
    case 'liquidity_add':
      return `Added liquidity on ${where}: ${flowText(tx, owner, 'deposited', 'received')}`;
    case 'liquidity_remove':
      return `Removed liquidity on ${where}: ${flowText(tx, owner, 'returned', 'received')}`;
    case 'order_place':
      return `Placed an order on ${where}: ${flowText(tx, owner, 'put in', 'received')}`;
    case 'order_cancel':
      return `Cancelled or closed an order on ${where}: ${flowText(tx, owner, 'paid', 'got back')}`;
    case 'governance_proposal':
    case 'governance_vote':
    case 'governance_execute':
    case 'governance_deposit':
    case 'governance_withdraw':
      return `${capitalize(KIND_TEXT[cls.kind])} on ${where}: ${flowText(tx, owner, 'deposited', 'received')}`;
    // what it is, first: the category is only the nearest of three (llm_context and categoryFit say so)
    case 'unknown':
      return `${capitalize(invokedText(tx, cls))}, whose instructions the decoder does not recognize; ${movementSummary(tx, owner, true)}`;
    default:
      return `${capitalize(KIND_TEXT[cls.kind])}${action ? ` (${`${programLabel(action.programId)} ${action.name ?? ''}`.trim()})` : ''}: ${invokedText(tx, cls)}; ${movementSummary(tx, owner, true)}`;
  }
}

function successSummary(tx: NormalizedTransaction, cls: Classification, owner: OwnerChanges): string {
  switch (cls.basis) {
    case 'launchpad':
    case 'venue': {
      const action = mainAction(cls);
      if (cls.kind === 'pool_create' && action) {
        const swapped = cls.actions.some((a) => a.kind === 'swap');
        return `Created a pool on ${actionWhere(action)}; ${swapped ? swapSummary(tx, cls, owner) : flowText(tx, owner, 'deposited', 'received')}`;
      }
      if (cls.kind === 'order_fill' && action) return `${swapSummary(tx, cls, owner)} (order fill on ${actionWhere(action)})`;
      if (cls.kind === 'swap' && cls.actions.some((a) => a.kind === 'order_place')) {
        // an order placed and settled at once (settledOrderTrade): the open-orders account's rent is no price
        const { sol, note } = splitRent(tx, owner);
        const changes = owner.changes.flatMap((c) => (c.asset !== 'SOL' ? [c] : sol === 0n ? [] : [{ ...c, raw: sol }]));
        return swapSummary(tx, cls, { ...owner, changes }, note);
      }
      return swapSummary(tx, cls, owner);
    }
    case 'plain-transfer': {
      const also = cls.otherPrograms.length > 0 ? `; also invoked ${joinList(cls.otherPrograms.map(programLabel))}` : '';
      return capitalize(movementSummary(tx, owner)) + also;
    }
    case 'fallback':
      return kindSummary(tx, cls, owner);
  }
}

/** "Raydium AMM v4 swap" for a venue's trade, else "instruction 3 (System Program) transfer". */
function failedSubject(cls: Classification, err: TransactionErrorInfo, failed: Action | undefined): string {
  const venue = err.programId ? cls.venues.find((v) => v.programId === err.programId) : undefined;
  if (venue && failed && !failed.inner && (failed.kind === 'swap' || failed.kind === 'unknown')) return `${venue.name} swap`;
  const label = err.programId ? ` (${programLabel(err.programId)})` : '';
  const name = failed?.name && !failed.inner ? ` ${failed.name}` : '';
  return `instruction ${err.instructionIndex}${label}${name}`;
}

function failedSummary(tx: NormalizedTransaction, cls: Classification, owner: OwnerChanges, err: TransactionErrorInfo): string {
  const raisedBy =
    err.failedProgramId && err.failedProgramId !== err.programId ? ` in ${programLabel(err.failedProgramId)}` : '';
  const cost =
    owner.changes.length > 0 ? movementSummary(tx, owner, true) : owner.feeLamports > 0n ? `only the ${solText(owner.feeLamports)} fee was charged` : noChangeText(tx, owner);
  if (err.instructionIndex === null) {
    return `Failed: transaction rejected with ${err.message}; ${cost}`;
  }
  const failed = cls.actions.find((a) => a.instructionIndex === err.instructionIndex);
  const main = mainAction(cls);
  // The instruction that failed is not the one the transaction was for: say what did not happen.
  const unmet =
    main && failed && main.kind !== 'unknown' && main.instructionIndex !== failed.instructionIndex
      ? `; the ${KIND_TEXT[main.kind]} on ${actionWhere(main)} (instruction ${main.instructionIndex}) did not complete`
      : '';
  const subject = failedSubject(cls, err, failed);
  switch (cls.basis) {
    case 'launchpad':
    case 'venue':
      return `Failed: ${subject} reverted with ${err.message}${raisedBy}${unmet}; ${cost}`;
    case 'plain-transfer':
      return `Failed: transfer (instruction ${err.instructionIndex}, ${programLabel(err.programId ?? '')}) reverted with ${err.message}${raisedBy}; ${cost}`;
    case 'fallback': {
      const what = cls.kind === 'unknown' ? 'instructions not recognized' : KIND_TEXT[cls.kind];
      return `Failed: ${subject} reverted with ${err.message}${raisedBy}${unmet}; ${what}: ${invokedText(tx, cls)}; ${cost}`;
    }
  }
}

/** The other parties' changes after the speaker's (point-of-view.ts chooses them), and who paid the fee when the speaker did not. */
function othersText(tx: NormalizedTransaction, side: Side): string {
  const others = side.others.map((o) => `; ${o.role} ${shortenAddress(o.changes.owner)} ${movementSummary(tx, o.changes)}`).join('');
  return side.paidBy ? `${others}; the ${solText(tx.fee)} fee paid by ${shortenAddress(side.paidBy)}` : others;
}

function llmContext(network: Network, signature: string, cls: Classification, status: TxStatus, summary: string): string {
  const note = !cls.matched
    ? ` as the nearest of Swap, MemeCoin and Transfer, being none of them (it is: ${cls.kind === 'unknown' ? 'not recognized' : KIND_TEXT[cls.kind]})`
    : cls.category === 'MemeCoin'
      ? ' (launchpad meme-coin activity, higher risk)'
      : '';
  const text = /[.!?]$/.test(summary) ? summary : `${summary}.`;
  return `This ${status === 'SUCCESS' ? 'successful' : 'failed'} Solana ${network} transaction ${signature} is categorized as ${cls.category}${note}: ${text}`;
}

/** JSON-safe copy (bigints as strings). */
function plain(value: unknown): unknown {
  return value === undefined
    ? null
    : JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null');
}

export function changeView(c: AssetChange): BalanceChangeView {
  return {
    asset: c.asset,
    symbol: c.asset === 'SOL' ? 'SOL' : mintSymbol(c.asset),
    decimals: c.decimals,
    raw: c.raw.toString(),
    amount: formatUnits(c.raw, c.decimals),
    counterparty: c.counterparty,
  };
}

/** Why a transaction failed, as decode-tx and simulate answer it: located, with the node's error as sent. */
export function errorView(info: TransactionErrorInfo | null, err: unknown): DecodeTxError | null {
  return info ? { ...info, message: formatTransactionError(info), raw: plain(err) } : null;
}

/**
 * One owner's entry of the per-owner view (decode-tx, decoded history and simulate alike). Rent another
 * wallet put into the token accounts of an owner that signed nothing is said as that, apart: it is not SOL
 * the owner received, nor rent it paid.
 */
export function ownerView(tx: NormalizedTransaction, owners: readonly OwnerChanges[], o: OwnerChanges): OwnerChangesView {
  const signer = tx.signers.includes(o.owner);
  const paid = signer ? null : rentPaidFor(tx, owners, o);
  const shown = paid ? withoutRentPaidFor(o, paid) : o;
  return {
    owner: o.owner,
    signer,
    feePayer: o.owner === tx.feePayer,
    feeLamports: exactInteger(o.feeLamports),
    changes: shown.changes.map(changeView),
    tokenAccountRentLamports: exactInteger(o.tokenAccountRentLamports),
    tokenAccountRentPaidBy: paid?.payer ?? null,
  };
}

export function ownerViews(tx: NormalizedTransaction, owners: readonly OwnerChanges[]): OwnerChangesView[] {
  return owners.map((o) => ownerView(tx, owners, o));
}

// ---- entry points -------------------------------------------------------------------------------

/** Describe an already-normalized transaction. */
export function describeNormalized(normalized: NormalizedTransaction, options: DescribeOptions): DecodeTxBody {
  const tx = resolveTokenOwners(normalized, options.tokenOwners);
  const idls = options.idls ?? new Map();
  const cls = classifyTransaction(tx, idls);
  const nameOf = (id: string) => programName(id) ?? idls.get(id)?.name ?? null;
  const venues = new Map(cls.venues.map((v) => [v.programId, v]));
  const owners = ownerChangesOf(tx);
  const owner = owners.find((o) => o.owner === tx.feePayer) ?? balanceChangesFor(tx, tx.feePayer);
  const side = options.wallet === undefined ? feePayerSide(tx, owners, owner) : walletSide(tx, owners, options.wallet);
  const speaker = side.speaker;
  const errInfo = describeTransactionError(tx.err, {
    programIdOf: (i) => tx.instructions[i]?.programId,
    logs: tx.logs,
  });
  const status: TxStatus = errInfo ? 'FAILED' : 'SUCCESS';
  // a wallet that did not sign is told what it got, not the rent others paid for it as its own
  const told: Told = side.rentPaidFor ? { ...withoutRentPaidFor(speaker, side.rentPaidFor), rentPaidFor: side.rentPaidFor } : speaker;
  const rentPaid = side.rentPaidFor && told.changes.length > 0 ? rentPaidForNote(side.rentPaidFor) : '';
  // compressed NFTs move in no balance: what happened to them leads, from the speaker's side (a failed one did nothing)
  const nfts = compressedNftActions(tx);
  const nftLead = errInfo || nfts.length === 0 ? '' : `${compressedNftSentence(nfts, speaker.owner)}; `;
  const summary =
    nftLead + (errInfo ? failedSummary(tx, cls, told, errInfo) : successSummary(tx, cls, told)) + rentPaid + othersText(tx, side) + unownedText(tx);

  return {
    signature: options.signature,
    network: options.network,
    summary,
    category: cls.category,
    categoryFit: cls.matched ? 'exact' : 'nearest',
    kind: cls.kind,
    details: {
      slot: tx.slot,
      fee: exactInteger(tx.fee),
      timestamp: tx.blockTime,
      status,
    },
    raw_logs: [...tx.logs],
    llm_context: llmContext(options.network, options.signature, cls, status, summary),
    programs: tx.invokedProgramIds.map((id) => {
      const venue = venues.get(id);
      return { programId: id, name: venue?.name ?? nameOf(id), venue: venue?.kind ?? null };
    }),
    feePayer: tx.feePayer,
    signers: [...tx.signers],
    ownerChanges: ownerViews(tx, owners),
    accountChanges: accountChangesOf(tx),
    actions: cls.actions.map((a) => ({ ...a, program: nameOf(a.programId) })),
    error: errorView(errInfo, tx.err),
    ...(options.wallet === undefined ? {} : { walletChanges: ownerView(tx, owners, speaker), counterparties: counterpartiesOf(tx, speaker) }),
    ...(nfts.length === 0 ? {} : { compressedNfts: nfts }),
  };
}

/**
 * The decode-tx body for a getTransaction result (json, jsonParsed, base64 or base58 encoding, parsed with
 * parseJson). Throws TransactionFormatError when `rpcResult` is null or not a transaction result.
 */
export function describeTransaction(rpcResult: unknown, options: DescribeOptions): DecodeTxBody {
  return describeNormalized(normalizeTransaction(rpcResult), options);
}
