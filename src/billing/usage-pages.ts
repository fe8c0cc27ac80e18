// Pages of the usage history, and the calls they list as the key holder sees them: calls paid by
// key (usage_events, newest id first) and calls paid with x402 (settled rows of x402_payments,
// newest first), merged by time. The cursor holds a
// position in each list, so pages join up exactly, and a call made while a client pages never
// shows on an older page. A wallet that never paid with x402 gets the cursor it always got: the
// id of the last row shown.
import { and, desc, eq, gte, lt, lte, or, type Column } from 'drizzle-orm';
import { Type as t, type Static } from '@sinclair/typebox';

const CALL_FIELDS = {
  time: t.Integer({ description: 'When the call arrived, Unix seconds' }),
  capability: t.String({ description: 'The capability, e.g. token-accounts' }),
  face: t.Union([t.Literal('rest'), t.Literal('mcp')], { description: 'REST or MCP' }),
};

/** A call paid by key: a free call or the price taken from credit. */
const KEY_PAID_ITEM = t.Object({
  id: t.Integer({ minimum: 1, description: 'Increases with each call paid by key' }),
  ...CALL_FIELDS,
  paidWith: t.Union([t.Literal('free_call'), t.Literal('credit')], { description: 'A free call, or the price taken from credit' }),
  // bigint in code, a JSON integer on the wire (written exactly by toJson).
  lamports: t.Unsafe<bigint>({ type: 'integer', minimum: 0, description: 'Taken from credit; 0 when a free call paid' }),
  refunded: t.Boolean({ description: 'The call did not succeed and what it took was given back' }),
  status: t.Integer({ description: 'HTTP status of the answer (MCP calls: the same status)' }),
});

/** A call the wallet paid for with an x402 payment that settled. */
const X402_ITEM = t.Object({
  ...CALL_FIELDS,
  paidWith: t.Literal('x402', { description: 'An x402 payment, signed by this wallet, bought the call' }),
  refunded: t.Literal(false, { description: 'Settled only once the call succeeded, so never refunded' }),
  status: t.Literal(200, { description: 'Settled only once the call answered 200' }),
  network: t.String({ description: 'The network the payment settled on (mainnet-beta or devnet)' }),
  payer: t.String({ description: 'The wallet that signed the payment' }),
  asset: t.String({ description: 'The mint paid in (X402_ASSET; USDC by default)' }),
  amount: t.String({ pattern: '^[0-9]+$', description: 'Paid, in the asset\'s atomic units' }),
  transaction: t.String({ description: 'Signature of the landed settlement transaction' }),
});

/** One call as the key holder sees it (the OpenAPI document serves this schema as is). */
export const USAGE_ITEM = t.Union([KEY_PAID_ITEM, X402_ITEM], { description: 'paidWith tells the kinds apart' });
export type UsageItem = Static<typeof USAGE_ITEM>;

export interface UsagePage {
  items: UsageItem[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** A row of usage_events, as both backends read it. */
export interface KeyPaidRow {
  id: number;
  at: number;
  capability: string;
  face: 'rest' | 'mcp';
  paidWith: 'free_call' | 'credit';
  lamports: bigint;
  refunded: boolean;
  status: number;
}

/** A settled x402 payment, as both backends read it. */
export interface X402Row {
  txKey: string;
  /** When the payment was verified and recorded, as its call began (Unix ms). */
  createdAt: number;
  capability: string;
  face: 'rest' | 'mcp';
  network: string;
  payer: string;
  asset: string;
  amount: number;
  signature: string | null;
}

/** Where the next page of x402 rows starts: older than `at`, or, with `txKey`, older than that row. */
export interface X402Position {
  at: number;
  txKey?: string;
}

/** Where the next page starts in each list; `x402: null` when no x402 row is left to show. */
export interface UsageCursor {
  /** Key-paid rows with a smaller id. */
  before?: number;
  x402?: X402Position | null;
}

/** What a cursor looks like (the OpenAPI document states it): the key-paid position, then the x402 one. */
export const USAGE_CURSOR_PATTERN = '^[0-9]{1,16}(\\.[0-9]{1,16}(\\.[A-Za-z0-9_-]{1,200})?)?$';
const CURSOR = /^([0-9]{1,16})(?:\.([0-9]{1,16})(?:\.([A-Za-z0-9_-]{1,200}))?)?$/;

/** The cursor a client sent, or null when it is not one this gateway writes. */
export function parseCursor(raw: string): UsageCursor | null {
  const m = CURSOR.exec(raw);
  if (!m) return null;
  const before = Number(m[1]);
  if (before < 1 || before > Number.MAX_SAFE_INTEGER) return null;
  if (m[2] === undefined) return { before, x402: null };
  const at = Number(m[2]);
  if (at > Number.MAX_SAFE_INTEGER) return null;
  if (m[3] === undefined) return { before, x402: { at } };
  const txKey = Buffer.from(m[3], 'base64url').toString();
  // Only the exact encoding of a key: anything else would name a row no cursor pointed at.
  if (Buffer.from(txKey).toString('base64url') !== m[3]) return null;
  return { before, x402: { at, txKey } };
}

function formatCursor(before: number, x402: X402Position | null): string {
  if (!x402) return String(before);
  return x402.txKey === undefined ? `${before}.${x402.at}` : `${before}.${x402.at}.${Buffer.from(x402.txKey).toString('base64url')}`;
}

/** The SQL conditions for a wallet's key-paid rows from the cursor on (columns of either backend's usage_events). */
export function keyPaidWhere(c: { wallet: Column; at: Column; id: Column }, wallet: string, cutoff: number, cursor: UsageCursor) {
  return and(eq(c.wallet, wallet), gte(c.at, cutoff), cursor.before === undefined ? undefined : lt(c.id, cursor.before));
}

/** The SQL conditions and order for a wallet's settled x402 payments from the position on (either backend's x402_payments). */
export function x402Query(c: { payer: Column; status: Column; createdAt: Column; txKey: Column }, wallet: string, cutoff: number, from: X402Position | undefined) {
  // The bound on created_at alone keeps the index range narrow; the key breaks ties within one millisecond.
  const after = from === undefined ? undefined : from.txKey === undefined ? lt(c.createdAt, from.at) : and(lte(c.createdAt, from.at), or(lt(c.createdAt, from.at), lt(c.txKey, from.txKey)));
  return { where: and(eq(c.payer, wallet), eq(c.status, 'settled'), gte(c.createdAt, cutoff), after), orderBy: [desc(c.createdAt), desc(c.txKey)] };
}

const keyPaidItem = (r: KeyPaidRow): UsageItem => ({
  id: r.id,
  time: Math.floor(r.at / 1000),
  capability: r.capability,
  face: r.face,
  paidWith: r.paidWith,
  lamports: r.lamports,
  refunded: r.refunded,
  status: r.status,
});

// Settled only after the call answered 200, so never refunded.
const x402Item = (r: X402Row): UsageItem => ({
  time: Math.floor(r.createdAt / 1000),
  capability: r.capability,
  face: r.face,
  paidWith: 'x402',
  refunded: false,
  status: 200,
  network: r.network,
  payer: r.payer,
  asset: r.asset,
  amount: String(r.amount),
  transaction: r.signature ?? '',
});

/**
 * One page from the next `limit + 1` rows of each list (fewer when a list ends), newest first, and
 * the cursor after it. A list with nothing shown keeps its next row for the next page; a list that
 * ran out is closed, so rows added later never appear on older pages.
 */
export function mergePage(keyPaid: KeyPaidRow[], x402: X402Row[], limit: number): { items: UsageItem[]; nextCursor: string | null } {
  const items: UsageItem[] = [];
  let k = 0;
  let x = 0;
  while (items.length < limit && (k < keyPaid.length || x < x402.length)) {
    if (x < x402.length && (k >= keyPaid.length || x402[x]!.createdAt > keyPaid[k]!.at)) items.push(x402Item(x402[x++]!));
    else items.push(keyPaidItem(keyPaid[k++]!));
  }
  if (k >= keyPaid.length && x >= x402.length) return { items, nextCursor: null };
  // Ids start at 1, so `before` 1 is a closed list.
  const before = k > 0 ? keyPaid[k - 1]!.id : k < keyPaid.length ? keyPaid[k]!.id + 1 : 1;
  const lastX = x > 0 ? x402[x - 1]! : undefined;
  const x402From = lastX ? { at: lastX.createdAt, txKey: lastX.txKey } : x < x402.length ? { at: x402[x]!.createdAt + 1 } : null;
  return { items, nextCursor: formatCursor(before, x402From) };
}
