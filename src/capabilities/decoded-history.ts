// A wallet's history decoded (transactions with decode=true, issue 35): each transaction told from the
// wallet's side by decode-tx's decoder, and with the transactions that named only one of its token
// accounts (a token sent to an existing account names the account, not its owner, so the wallet's own
// signature list misses it).
import { Type as t, type Static } from '@sinclair/typebox';
import { errorView, type DecodeTxBody } from '../chain/tx/describe.ts';
import { memoText } from '../chain/memo.ts';
import { RpcError, UpstreamError, upstreamCode, type Rpc } from '../chain/upstream.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../chain/program-ids.ts';
import type { Network } from '../config.ts';
import { ACTION_KIND, CATEGORY, CATEGORY_FIT, COUNTERPARTIES, OWNER_CHANGE, STATUS, SUMMARY, decodeSignature } from './decode-tx.ts';
import { base58Address, u64 } from './output.ts';
import type { MaybePromise } from '../maybe.ts';
import { mapBounded } from '../bounded.ts';
import { describeTransactionError } from '../chain/tx/errors.ts';

/** Most transactions one decoded page holds: each is a getTransaction and a decode. */
export const DECODED_LIMIT = 25;
/** Token accounts whose own signatures join the history, at most (one page each, of `limit`); those holding tokens first. */
export const HISTORY_TOKEN_ACCOUNTS = 8;
/** getTransaction calls in flight at once for one page. */
const FETCHES_AT_ONCE = 8;
/** A wallet's token accounts are listed again after this long (a new one joins the history then). */
const TOKEN_ACCOUNTS_CACHE_MS = 30_000;

/** One getSignaturesForAddress entry as the node sends it. */
export interface SignatureInfo {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: unknown;
  memo: string | null;
  confirmationStatus: string | null;
}

/** Why something the page needed could not be read from the node. */
function fetchError(description: string) {
  return t.Object(
    {
      code: t.Union([t.Literal('not_found'), t.Literal('upstream_unavailable'), t.Literal('upstream_timeout'), t.Literal('upstream_bad_answer'), t.Literal('upstream_rpc_error')], {
        description: 'not_found: the node has no confirmed transaction for it; else why the node could not answer (as the 500 codes of docs/api.md)',
      }),
      message: t.String({ description: 'What went wrong, in words' }),
    },
    { description },
  );
}

/** With decode, when the wallet's token accounts or one of their signature lists could not be read. */
export const TOKEN_ACCOUNTS_ERROR = fetchError(
  "With decode, when the wallet's token accounts (or one of their signature lists) could not be read: the page holds what could be, and tokenAccountsSearched counts only the lists read",
);

/** What a decoded history item adds to the signature entry (all optional in the schema: absent without decode). */
export const DECODED_ITEM = {
  foundVia: t.Optional(
    t.Union([t.Literal('wallet'), t.Literal('token_account')], {
      description: "With decode: how it joined the history, by the wallet's own signatures or only by one of its token accounts'",
    }),
  ),
  summary: t.Optional(SUMMARY),
  kind: t.Optional(ACTION_KIND),
  category: t.Optional(CATEGORY),
  categoryFit: t.Optional(CATEGORY_FIT),
  status: t.Optional(STATUS),
  walletChanges: t.Optional({ ...OWNER_CHANGE, description: "With decode: the wallet's exact SOL and token changes (its entry of decode-tx's per-owner view)" }),
  counterparties: t.Optional(COUNTERPARTIES),
  fee: t.Optional(u64('With decode: the fee in lamports')),
  feePayer: t.Optional(base58Address('With decode: who paid the fee')),
  decodeError: t.Optional(
    fetchError('With decode, when this transaction could not be fetched: the other fields of the decode are absent, the rest of the page stands'),
  ),
};

/** A decoded item's own fields, as its schema says (a wallet's changes as the decoder hands them, read-only). */
type Decoded = Omit<Static<typeof DECODED>, 'walletChanges' | 'counterparties'> & {
  walletChanges?: DecodeTxBody['walletChanges'];
  counterparties?: DecodeTxBody['counterparties'];
};
const DECODED = t.Object(DECODED_ITEM);

const CONFIRMED = { commitment: 'confirmed' } as const;

/** The token accounts `wallet` holds under both token programs, those holding tokens first, the first HISTORY_TOKEN_ACCOUNTS of them to search. */
export async function tokenAccountsOf(rpc: Rpc, wallet: string, cacheMs = TOKEN_ACCOUNTS_CACHE_MS): Promise<{ held: number; searched: string[] }> {
  // Only the amount (bytes 64..72 of both programs' accounts) is read: the list is all that is needed.
  const list = (programId: string) =>
    rpc.call<{ value: { pubkey: string; account: { data: [string, string] } }[] }>(
      'getTokenAccountsByOwner',
      [wallet, { programId }, { encoding: 'base64', dataSlice: { offset: 64, length: 8 }, ...CONFIRMED }],
      { cacheMs },
    );
  const answers = await Promise.all([list(TOKEN_PROGRAM), list(TOKEN_2022_PROGRAM)]);
  const accounts = answers.flatMap((a) => (Array.isArray(a?.value) ? a.value : []));
  const holds = (data: unknown) => Array.isArray(data) && typeof data[0] === 'string' && Buffer.from(data[0], 'base64').some((b) => b !== 0);
  const ordered = [...accounts.filter((a) => holds(a.account?.data)), ...accounts.filter((a) => !holds(a.account?.data))];
  return { held: accounts.length, searched: ordered.slice(0, HISTORY_TOKEN_ACCOUNTS).map((a) => a.pubkey) };
}

/** Why the node could not answer, as decodeError and tokenAccountsError say it; anything else is a bug and is thrown. */
type FetchError = NonNullable<Decoded['decodeError']>;

function fetchErrorOf(e: unknown): FetchError {
  if (!(e instanceof UpstreamError)) throw e;
  return { code: upstreamCode(e), message: e instanceof RpcError ? `The node answered JSON-RPC error ${e.code}` : e.message };
}

interface TokenAccountHistories {
  /** How many token accounts the wallet holds; null when they could not be listed. */
  held: number | null;
  /** The signature lists read, one per token account searched. */
  lists: SignatureInfo[][];
  error: FetchError | null;
}

const NO_TOKEN_ACCOUNTS: TokenAccountHistories = { held: 0, lists: [], error: null };

/**
 * The signature lists of up to HISTORY_TOKEN_ACCOUNTS of the wallet's token accounts, each started as soon
 * as the accounts are listed. A node that cannot list them, or one of their lists, costs those lists, not
 * the page: what was read is kept and the error is said.
 */
async function tokenAccountHistories(rpc: Rpc, wallet: string, page: (address: string) => MaybePromise<SignatureInfo[]>): Promise<TokenAccountHistories> {
  let accounts: { held: number; searched: string[] };
  try {
    accounts = await tokenAccountsOf(rpc, wallet);
  } catch (e) {
    return { held: null, lists: [], error: fetchErrorOf(e) };
  }
  const read = await Promise.allSettled(accounts.searched.map(async (address) => page(address)));
  const failed = read.find((r) => r.status === 'rejected');
  return {
    held: accounts.held,
    lists: read.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
    error: failed ? fetchErrorOf((failed as PromiseRejectedResult).reason) : null,
  };
}

/** How a transaction joined a wallet's history: by the wallet's own signatures or only by one of its token accounts'. */
export type FoundVia = NonNullable<Decoded['foundVia']>;
/** One history item before it is laid out: the node's signature entry and the decode told for the wallet. */
export type DecodedItem = Decoded & { info: SignatureInfo; foundVia: FoundVia };

/**
 * One transaction of a wallet's history decoded from the wallet's side; a transaction the node could
 * not return carries decodeError instead (the rest of a page stands). Watches (src/watch/ingest) decode
 * each transaction they find with this same function, so an event's item is the history's.
 */
export async function decodeItem(rpc: Rpc, info: SignatureInfo, foundVia: FoundVia, network: Network, wallet: string): Promise<DecodedItem> {
  try {
    const body = await decodeSignature(rpc, info.signature, network, wallet);
    if (body === null) return { info, foundVia, decodeError: { code: 'not_found', message: 'The node has no confirmed transaction for this signature' } };
    return {
      info,
      foundVia,
      summary: body.summary,
      kind: body.kind,
      category: body.category,
      categoryFit: body.categoryFit,
      status: body.details.status,
      walletChanges: body.walletChanges,
      counterparties: body.counterparties,
      fee: body.details.fee,
      feePayer: body.feePayer,
    };
  } catch (e) {
    return { info, foundVia, decodeError: fetchErrorOf(e) };
  }
}

/** One getSignaturesForAddress entry as the gateway answers it: the node's fields plus a readable error. */
export function signatureEntry(s: SignatureInfo) {
  return {
    signature: s.signature,
    slot: s.slot,
    blockTime: s.blockTime,
    err: s.err,
    error: errorView(describeTransactionError(s.err), s.err),
    memo: memoText(s.memo),
    confirmationStatus: s.confirmationStatus,
  };
}

/** A decoded item as `transactions?decode=true` lists it: the signature entry, then the decode. */
export function historyItem({ info, ...decoded }: DecodedItem) {
  return { ...signatureEntry(info), ...decoded };
}

export interface HistoryInput {
  wallet: string;
  limit: number;
  before: string | undefined;
  network: Network;
  tokenAccounts: boolean;
}

/**
 * The newest `limit` transactions (before `before`) of the wallet and of up to HISTORY_TOKEN_ACCOUNTS of its
 * token accounts, merged newest first without repeats, each with its decode told for the wallet. Each list
 * is asked for `limit` entries, so the merged page is exactly the newest `limit` of their union.
 */
export async function decodedHistory(rpc: Rpc, input: HistoryInput) {
  const { wallet, limit, before, network } = input;
  const page = (address: string) => rpc.call<SignatureInfo[]>('getSignaturesForAddress', [address, { limit, ...CONFIRMED, ...(before ? { before } : {}) }]);
  // The token accounts' lists start as soon as the accounts are known, without waiting for the wallet's own.
  const [own, viaAccounts] = await Promise.all([page(wallet), input.tokenAccounts ? tokenAccountHistories(rpc, wallet, page) : NO_TOKEN_ACCOUNTS]);
  const found = new Map<string, { info: SignatureInfo; foundVia: NonNullable<Decoded['foundVia']> }>();
  for (const info of own) found.set(info.signature, { info, foundVia: 'wallet' });
  for (const info of viaAccounts.lists.flat()) if (!found.has(info.signature)) found.set(info.signature, { info, foundVia: 'token_account' });
  // Newest first by slot; the sort is stable, so within a slot the wallet's own order stands.
  const merged = [...found.values()].sort((a, b) => b.info.slot - a.info.slot).slice(0, limit);
  const items = await mapBounded(merged, FETCHES_AT_ONCE, ({ info, foundVia }) => decodeItem(rpc, info, foundVia, network, wallet));
  return { items, tokenAccountsHeld: viaAccounts.held, tokenAccountsSearched: viaAccounts.lists.length, ...(viaAccounts.error ? { tokenAccountsError: viaAccounts.error } : {}) };
}
