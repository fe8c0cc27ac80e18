import { type DecodeTxBody, describeNormalized } from '../chain/tx/describe.ts';
import { programsWithoutTable } from '../chain/tx/classify.ts';
import {
  type IdlDirectory,
  MAX_IDL_ACCOUNT_BYTES,
  PROGRAM_METADATA_PROGRAM,
  type ProgramIdl,
  idlAddress,
  metadataIdlAddress,
  parseIdlAccount,
  parseMetadataIdlAccount,
} from '../chain/tx/idl.ts';
import { type NormalizedTransaction, normalizeTransaction } from '../chain/tx/normalize.ts';
import { type TokenOwners, ownerlessTokenAccounts, tokenOwnersFromTransaction } from '../chain/tx/token-owners.ts';
import { TOKEN_PROGRAMS } from '../chain/program-ids.ts';
import { tokenAccountOwnerFromRpc } from '../chain/token/holders.ts';
import { isAddress } from '@solana/kit';
import type { Rpc } from '../chain/upstream.ts';
import { LRUCache } from 'lru-cache';
import { notFound } from '../errors.ts';
import { Type as t } from '@sinclair/typebox';
import { NETWORKS, type Network } from '../config.ts';
import { defineCapability } from './capability.ts';
import { base58Address, base58Signature, lamportsChange, nodeError, nullable, rawAmount, u64, uiAmount } from './output.ts';
import { ACTION_KINDS } from '../chain/tx/instructions.ts';
import { EXAMPLE_SIGNATURE, EXAMPLE_WALLET } from './examples.ts';
import { network, optionalAddress, signature } from './params.ts';
import { within } from '../within.ts';

const FETCH = { encoding: 'json', maxSupportedTransactionVersion: 0 } as const;

// The finalized transaction comes from the upstream cache as the same object every time, and its
// description cannot change either: describe it once per instance (and per wallet it is told for, the
// fee payer's as ''). Weakly keyed, so it goes when the cache lets the transaction go; a confirmed one
// is a new object per fetch and never matches.
const described = new WeakMap<object, Map<string, DecodeTxBody>>();

/** One asset's change for one owner (decode-tx and simulate). */
export const BALANCE_CHANGE = t.Object(
  {
    asset: t.String({ description: '"SOL" for the native coin (wrapped SOL folded in), else the token mint' }),
    symbol: nullable(t.String({ description: 'Symbol of a well-known asset, else null' })),
    decimals: t.Integer({ minimum: 0, maximum: 255 }),
    raw: rawAmount('Signed raw amount (lamports or base units; a decimal string, as every raw amount beside its decimals); negative left the owner', true),
    amount: uiAmount('raw / 10^decimals, exact', true),
    counterparty: nullable(base58Address('Wallet on the other side, when one can be singled out')),
  },
  { title: 'AssetChange' },
);

/** One owner's changes (decode-tx, simulate and decoded history). */
export const OWNER_CHANGE = t.Object(
  {
    owner: base58Address('Wallet (or program-derived owner of token accounts)'),
    signer: t.Boolean({ description: 'Whether it signed the transaction' }),
    feePayer: t.Boolean({ description: 'Whether it paid the fee' }),
    feeLamports: u64('Fee this owner paid, lamports (only the fee payer pays)'),
    changes: t.Array(BALANCE_CHANGE, { description: 'Non-zero changes net of the fee and of token-account rent; SOL first' }),
    tokenAccountRentLamports: lamportsChange("Rent put into (+) or recovered from (-) this owner's own token accounts, whoever paid it; not in its SOL change"),
    tokenAccountRentPaidBy: nullable(
      base58Address(
        "Set when another wallet paid that rent (it opened this owner's token accounts, and this owner signed nothing): that wallet; the rent is then neither SOL this owner received nor spent. Null when this owner paid it, when none moved, or when the payer cannot be singled out",
      ),
    ),
  },
  { title: 'OwnerChange' },
);

/** Per-owner changes: every signer, then every other owner whose balances moved (decode-tx and simulate). */
export const OWNER_CHANGES = t.Array(OWNER_CHANGE, {
  description: 'Exact SOL and token changes for every signer (fee payer first) and every other owner whose balances moved',
});

/** The wallets on the other side of the asked wallet's changes (decode-tx with `wallet`, and decoded history). */
const CREATOR = t.Object({
  address: base58Address('Creator'),
  verified: t.Boolean(),
  share: t.Integer({ minimum: 0, maximum: 255, description: 'Percent of the royalty' }),
});

/** What Bubblegum instructions did to compressed NFTs (src/chain/tx/bubblegum.ts). */
const COMPRESSED_NFTS = t.Array(
  t.Object({
    instructionIndex: t.Integer({ minimum: 0, description: 'Top-level instruction it is, or ran under' }),
    inner: t.Boolean({ description: 'A CPI (a marketplace calling Bubblegum)' }),
    instruction: t.String({ description: "Bubblegum's instruction, snake_case (mint_v1, mint_to_collection_v1, transfer, burn, ...)" }),
    action: t.Union([t.Literal('mint'), t.Literal('transfer'), t.Literal('burn'), t.Literal('other')]),
    assetId: nullable(base58Address('Asset id: the PDA of tree and leaf index under Bubblegum')),
    tree: nullable(base58Address('Merkle tree')),
    leafIndex: nullable(t.Integer({ minimum: 0, description: "The leaf's nonce (its index in the tree)" })),
    leafOwnerBefore: nullable(base58Address('Leaf owner before (null for a mint)')),
    leafOwnerAfter: nullable(base58Address('Leaf owner after (null for a burn)')),
    leafDelegateBefore: nullable(base58Address('Leaf delegate before')),
    leafDelegateAfter: nullable(base58Address('Leaf delegate after')),
    collection: nullable(base58Address('Collection the instruction names (collection mint, core collection or the metadata\'s)')),
    metadata: nullable(
      t.Object(
        {
          name: nullable(t.String({ description: 'Plain printable name of at most 64 characters, else null' })),
          symbol: nullable(t.String()),
          uri: nullable(t.String()),
          sellerFeeBasisPoints: t.Integer({ minimum: 0, description: 'Royalty, basis points' }),
          primarySaleHappened: t.Boolean(),
          isMutable: t.Boolean(),
          collection: nullable(t.Object({ key: base58Address('Collection'), verified: t.Boolean() })),
          creators: t.Array(CREATOR),
        },
        { description: "A mint's (or decompression's) metadata as the instruction carries it" },
      ),
    ),
  }),
  { description: 'Only when it touched compressed NFTs (Metaplex Bubblegum): what each instruction did to which asset, owners before and after' },
);

export const COUNTERPARTIES = t.Array(base58Address('Wallet'), {
  description:
    "The wallets on the other side of the wallet's changes: each change's counterparty when one can be singled out, in order; when none can, the signers other than the wallet",
});

/** One address's change, as the balance arrays record it (decode-tx and simulate). */
export const ACCOUNT_CHANGE = t.Object(
  {
    address: base58Address('Account'),
    lamportsBefore: u64('Lamports before'),
    lamportsAfter: u64('Lamports after'),
    lamportsChange: lamportsChange("After minus before; the fee payer's includes the fee"),
    token: nullable(
      t.Object({
        mint: base58Address('Mint'),
        owner: nullable(base58Address('Owner of the token account; null only when a very old node did not report it')),
        decimals: t.Integer({ minimum: 0, maximum: 255 }),
        before: rawAmount('Raw amount before'),
        after: rawAmount('Raw amount after'),
        change: rawAmount('After minus before', true),
      }),
    ),
  },
  { title: 'AccountChange' },
);

export const SUMMARY = t.String({
  description:
    'One line: what it did and what moved for the signer(s), via which venues, or which instruction failed and why; with `wallet`, told from that wallet\'s side (what it sent and received, an incoming transfer as received, a fee or token-account rent another wallet paid named as such)',
});
export const CATEGORY = t.Union([t.Literal('Swap'), t.Literal('MemeCoin'), t.Literal('Transfer')], { description: 'Swap, MemeCoin or Transfer, by the programs invoked' });
export const CATEGORY_FIT = t.Union([t.Literal('exact'), t.Literal('nearest')], {
  description: "exact: the transaction is what category says; nearest: it is none of Swap, MemeCoin and Transfer, category is only the nearest of them, and kind and summary say what it is",
});
export const STATUS = t.Union([t.Literal('SUCCESS'), t.Literal('FAILED')], { description: 'Whether the transaction succeeded' });

export const ACTION_KIND = t.Union(
  ACTION_KINDS.map((k) => t.Literal(k)),
  { description: 'What an instruction (or the transaction: the first kind, in this order, its instructions reach) does', title: 'ActionKind' },
);

/** Why a transaction failed (decode-tx and simulate): located at its instruction, with the node's own error. */
export const TX_ERROR = t.Object(
  {
    message: t.String({ description: 'Readable error, located at its instruction' }),
    instructionIndex: nullable(t.Integer({ minimum: 0 })),
    programId: nullable(base58Address('Program of the failed top-level instruction')),
    failedProgramId: nullable(base58Address('Program that raised the error, when the logs tell')),
    customCode: nullable(t.Integer({ minimum: 0 })),
    name: nullable(t.String()),
    raw: nodeError('The error as the node returned it'),
  },
  { title: 'TransactionError' },
);

const OUTPUT = t.Object({
  signature: base58Signature('Echo of the signature asked about'),
  network: t.Union(NETWORKS.map((n) => t.Literal(n))),
  summary: SUMMARY,
  category: CATEGORY,
  categoryFit: CATEGORY_FIT,
  kind: ACTION_KIND,
  details: t.Object({
    slot: u64('Slot of the transaction'),
    fee: u64('Fee in lamports'),
    timestamp: nullable(t.Integer({ description: 'Block time, Unix seconds; null when the node has none' })),
    status: STATUS,
  }),
  raw_logs: t.Array(t.String(), { description: 'Program log lines' }),
  llm_context: t.String({ description: 'Category, summary and status in one sentence, for prompts' }),
  programs: t.Array(
    t.Object({
      programId: base58Address('Program id'),
      name: nullable(t.String({ description: 'Program name when known' })),
      venue: nullable(t.Union([t.Literal('aggregator'), t.Literal('exchange'), t.Literal('launchpad')], { description: 'The kind of trading venue it is, when the classifier recognizes it as one' })),
    }),
    { description: 'Every program invoked (top-level, inner, logs), in first-invoked order; the recognized venues carry their kind' },
  ),
  feePayer: base58Address('The fee payer'),
  signers: t.Array(base58Address('Signer'), { description: 'Accounts that signed, fee payer first' }),
  ownerChanges: OWNER_CHANGES,
  accountChanges: t.Array(ACCOUNT_CHANGE, {
    description:
      "Per-address view: every account whose lamports or token amount changed, in account-key order, exactly as preBalances/postBalances and the token balances record it (the fee payer's lamportsChange includes the fee; a token account carries its mint, owner and raw amounts). ownerChanges is this list regrouped by owner: a token account counts under its owner (its lamports in SOL, wrapped SOL as SOL, rent apart in tokenAccountRentLamports, and out of its SOL too when tokenAccountRentPaidBy names another wallet that paid it), any other account under its own address, and the fee is apart in feeLamports",
  }),
  actions: t.Array(
    t.Object({
      instructionIndex: t.Integer({ minimum: 0, description: 'Top-level instruction it is, or ran under' }),
      inner: t.Boolean({
        description: "A CPI: one standing for a top-level program the decoder does not know, or (source idl or log) a program no table names, named where it ran at any depth",
      }),
      programId: base58Address('Program id'),
      program: nullable(t.String({ description: 'Program name when known' })),
      name: nullable(t.String({ description: "Instruction name from the program's IDL or source; null when not known" })),
      kind: ACTION_KIND,
      source: t.Union([t.Literal('table'), t.Literal('venue'), t.Literal('idl'), t.Literal('log'), t.Literal('effects'), t.Literal('none')], {
        description:
          "Where name and kind come from: the decoder's tables; a venue it has no table for (a trade); for a program the tables do not know, its Anchor IDL published on chain (the name; the kind from its effects), its own `Instruction: <Name>` log line at its invocation (the name, snake_case; the kind from its effects) or the effects of its inner Token and System instructions (burn, mint, transfer, account_management); none (kind unknown)",
      }),
    }),
    { description: 'What each instruction did, in order' },
  ),
  error: nullable(TX_ERROR),
  walletChanges: t.Optional({ ...OWNER_CHANGE, description: "Only with `wallet`: the wallet's entry of the per-owner view (all zero when nothing of it moved)" }),
  counterparties: t.Optional(COUNTERPARTIES),
  compressedNfts: t.Optional(COMPRESSED_NFTS),
});

export const decodeTx = defineCapability({
  name: 'decode-tx',
  tool: 'decode_tx',
  method: 'GET',
  title: 'Decode a transaction',
  summary:
    "What a confirmed transaction did: a one-line summary, category (Swap, MemeCoin or Transfer; categoryFit \"nearest\" when none fits), each instruction's action, programs, exact SOL and token changes per owner and account, fee, error.",
  description:
    'Decodes a confirmed transaction: category (Swap, MemeCoin or Transfer, judged by the program ids it actually invoked; ' +
    'categoryFit is "nearest" when it is none of them and the category is only the nearest, "exact" otherwise), kind (what it did, from each instruction\'s discriminator in the decoder\'s tables (swap venues, lending, Squads, SPL Governance, Metaplex Token Metadata, Auction House, legacy Auction, Candy Machine and Bubblegum among others), and for a program the tables do not know from what its inner Token and System instructions did, its name from its published IDL or its own "Instruction: <Name>" log line; ' +
    'an order placed and settled at once on an order book is a swap; one of ' +
    ACTION_KINDS.join(', ') +
    ', the first of these its instructions reach), a one-line summary of what moved ("Swapped 1.5 SOL for 212.3 USDC via Jupiter v6", "Added liquidity on Raydium CPMM (deposit): deposited ...", or for a failed one the instruction and program that failed), actions (each instruction\'s program, name, kind and where they come from), every program invoked with the kind of venue each recognized venue is (programs), signers, exact SOL and token changes (raw amounts as integer strings with decimals; lamports as JSON integers) for every signer (the fee payer first) and every owner whose balances moved (ownerChanges), the same per address (accountChanges), slot, fee, time, status, the error of a failed transaction, and its program logs. ' +
    'Two accounting views: ownerChanges is per owner, with the fee apart (feeLamports) and the lamports of the token accounts an owner holds counted in its SOL (wrapped SOL as SOL; their rent apart in tokenAccountRentLamports; when another wallet paid the rent of an owner that signed nothing, tokenAccountRentPaidBy names it and that rent is not in the owner\'s SOL either). ' +
    'accountChanges is per address, post minus pre exactly as preBalances/postBalances record it (the fee payer\'s includes the fee), with each token account\'s raw change, mint and owner; regrouped by owner it gives ownerChanges. With `wallet`, the summary and llm_context are told from that wallet\'s side (what it sent and received; ' +
    'an incoming transfer reads as received, a transaction another wallet paid the fee for as the wallet\'s own, naming who paid) and the answer adds walletChanges (its exact changes) and counterparties. Token balances an old node sent without an owner get it from the transaction, else from the account as it is now; one still unknown is said so. Use it to understand what a signature did.',
  paid: true,
  params: {
    signature: signature('Transaction signature (base58)', EXAMPLE_SIGNATURE),
    wallet: optionalAddress("Tell it from this wallet's side, adding its walletChanges and counterparties (default: the fee payer's)", EXAMPLE_WALLET),
    network: network(),
  },
  output: OUTPUT,
  async run(ctx, { signature, wallet, network }) {
    const description = await decodeSignature(ctx.rpc(network), signature, network, wallet);
    if (description === null) throw notFound('Transaction not found or not yet confirmed', { signature });
    return description;
  },
});

/** How many wallets' views of one transaction are kept beside its own (a history page asks for one). */
const VIEWS_PER_TRANSACTION = 4;

/**
 * The decode of `signature`, told for `wallet` when given; null when the node has no such confirmed transaction.
 * Shared by decode-tx and the decoded history.
 */
export async function decodeSignature(rpc: Rpc, signature: string, network: Network, wallet?: string): Promise<DecodeTxBody | null> {
  // A finalized transaction never changes: cache it for good (bounded LRU). A merely confirmed
  // one is fetched fresh, and an absent one is never cached: it may land a moment later.
  const tx =
    (await rpc.call('getTransaction', [signature, { ...FETCH, commitment: 'finalized' }], { cacheMs: Infinity, cacheWhen: (v) => v !== null })) ??
    (await rpc.call('getTransaction', [signature, { ...FETCH, commitment: 'confirmed' }]));
  if (tx === null) return null;
  const view = wallet ?? '';
  const views = described.get(tx as object);
  const known = views?.get(view);
  if (known) return known;
  const normalized = normalizeTransaction(tx);
  const unnamed = programsWithoutTable(normalized, IDL_PROGRAMS_PER_TRANSACTION);
  const ownerless = ownersToLookUp(normalized);
  if (unnamed.length > 0 || ownerless.length > 0) {
    const [idls, tokenOwners] = await Promise.all([
      unnamed.length > 0 ? publishedIdls(rpc, unnamed) : undefined,
      ownerless.length > 0 ? currentTokenOwners(rpc, ownerless) : undefined,
    ]);
    return describeNormalized(normalized, { signature, network, wallet, idls, tokenOwners });
  }
  // Only the tables named it: the description is the transaction's for good.
  const description = Object.freeze(describeNormalized(normalized, { signature, network, wallet }));
  const kept = views ?? new Map<string, DecodeTxBody>();
  if (kept.size >= VIEWS_PER_TRANSACTION) kept.delete(kept.keys().next().value!);
  kept.set(view, description);
  if (!views) described.set(tx as object, kept);
  return description;
}

// ---- owners of token balances old nodes reported without one ----------------------------------------

/** Accounts read per lookup: getMultipleAccounts takes at most 100. */
const OWNER_ACCOUNTS_PER_LOOKUP = 100;
/** A token account's owner is read once for this long (the upstream's bounded cache holds it). */
const OWNER_CACHE_MS = 10 * 60_000;
/** A decode waits at most this long for the owners; an owner not read in time is said to be unknown. */
const OWNER_WAIT_MS = 1_500;

/** Token accounts whose balances carry no owner and whose owner the transaction itself (instructions, account roles) does not give. */
export function ownersToLookUp(tx: NormalizedTransaction): string[] {
  const given = tokenOwnersFromTransaction(tx);
  return ownerlessTokenAccounts(tx).filter((account) => !given.has(account));
}

/**
 * The owners of token accounts as the chain holds them now, in one getMultipleAccounts (jsonParsed, the first
 * 100 accounts), each answer cached: what the decoder is told for balances that came without an owner
 * (`describeNormalized(tx, { tokenOwners })`; decoded history reaches it through `decodeSignature`). An account
 * that is gone, is no token account, or was not read within 1.5 s is left out: its owner stays unknown.
 */
async function currentTokenOwners(rpc: Rpc, accounts: readonly string[]): Promise<TokenOwners> {
  const asked = accounts.slice(0, OWNER_ACCOUNTS_PER_LOOKUP);
  const owners = new Map<string, string>();
  const read = (async () => {
    const res = await rpc.call<{ value: unknown }>('getMultipleAccounts', [asked, { encoding: 'jsonParsed', commitment: 'finalized' }], { cacheMs: OWNER_CACHE_MS });
    const values = Array.isArray(res?.value) ? res.value : [];
    values.forEach((value: unknown, i) => {
      const owner = tokenAccountOwner(value);
      if (owner !== null && asked[i] !== undefined) owners.set(asked[i]!, owner);
    });
  })().catch(() => {
    // no owner then: the decode says it is unknown
  });
  await within(read, OWNER_WAIT_MS);
  // a copy: a read landing after the wait must not change an answer already given
  return new Map(owners);
}

/** The owner a jsonParsed token account states, when the value is one (owned by a Token program). */
function tokenAccountOwner(value: unknown): string | null {
  const owner = (value as { owner?: unknown } | null)?.owner;
  if (typeof owner !== 'string' || !TOKEN_PROGRAMS.includes(owner)) return null;
  const wallet = tokenAccountOwnerFromRpc(value);
  return wallet !== null && isAddress(wallet) ? wallet : null;
}

// ---- IDLs published on chain, for programs the tables do not know ------------------------------------

const IDL_PROGRAMS_PER_TRANSACTION = 4;
/** A program's IDL accounts are read once for this long (the upstream's bounded cache holds them). */
const IDL_CACHE_MS = 10 * 60_000;
/** A decode waits at most this long for IDLs; a slower read still lands in the cache for the next one. */
const IDL_WAIT_MS = 1_500;

interface UiAccount {
  owner?: unknown;
  data?: unknown;
}

// Parsed once per account answer: the upstream cache hands back the same object while it holds it.
const parsedIdls = new WeakMap<object, ProgramIdl | null>();

/** The IDL in a getMultipleAccounts value, parsed by `parse` when `owner` owns it and its base64 data is within the cap. */
function idlOfAccount(value: UiAccount | null | undefined, owner: string, parse: (data: Uint8Array) => ProgramIdl | null): ProgramIdl | null {
  if (value === null || value === undefined || typeof value !== 'object') return null;
  const cached = parsedIdls.get(value);
  if (cached !== undefined) return cached;
  const data = Array.isArray(value.data) && value.data[1] === 'base64' && typeof value.data[0] === 'string' ? value.data[0] : null;
  const idl = value.owner === owner && data !== null && data.length <= Math.ceil(MAX_IDL_ACCOUNT_BYTES / 3) * 4 ? parse(Buffer.from(data, 'base64')) : null;
  parsedIdls.set(value, idl);
  return idl;
}

// Where a program's IDLs live never changes: two program-address searches (up to 256 hashes each)
// per program, not per decode.
const idlAccounts = new LRUCache<string, Promise<string[]>>({ max: 4096 });

/** A program's Anchor IDL account and its Program Metadata "idl" entry, in that order. */
function idlAccountsOf(programId: string): Promise<string[]> {
  let addresses = idlAccounts.get(programId);
  if (!addresses) idlAccounts.set(programId, (addresses = Promise.all([idlAddress(programId), metadataIdlAddress(programId)])));
  return addresses;
}

/**
 * The programs' IDLs that could be read in time, each program's Anchor IDL account and Program Metadata "idl"
 * entry read in one call (the Anchor one first); a missing, unreadable or unreachable one is left out.
 */
async function publishedIdls(rpc: Rpc, programIds: readonly string[]): Promise<IdlDirectory> {
  const found = new Map<string, ProgramIdl>();
  const reads = programIds.map(async (programId) => {
    try {
      const accounts = await rpc.call<{ value: (UiAccount | null)[] }>(
        'getMultipleAccounts',
        [await idlAccountsOf(programId), { encoding: 'base64', commitment: 'finalized' }],
        { cacheMs: IDL_CACHE_MS },
      );
      const [anchorAccount, metadataAccount] = Array.isArray(accounts.value) ? accounts.value : [];
      const idl =
        idlOfAccount(anchorAccount, programId, parseIdlAccount) ??
        idlOfAccount(metadataAccount, PROGRAM_METADATA_PROGRAM, (data) => parseMetadataIdlAccount(data, programId));
      if (idl) found.set(programId, idl);
    } catch {
      // no IDL then: the instruction's kind comes from its effects
    }
  });
  await within(Promise.all(reads), IDL_WAIT_MS);
  // a copy: reads still running after the wait must not change an answer already given
  return new Map(found);
}
