// The usage history merges calls paid by key with the wallet's settled x402 payments, newest first.
// On a real SQLite file: pages of any size join up to the whole list (x402 payments recorded in the
// same millisecond included), calls made while a client pages never show on an older page, a
// cursor of a wallet that never paid with x402 is the id it always was, and a forged cursor is refused.
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/client.ts';
import { x402Payments } from '../../src/db/schema.ts';
import { Ledger } from '../../src/billing/backend/sqlite/ledger.ts';
import type { Debit } from '../../src/billing/credit.ts';
import { UsageLog } from '../../src/billing/backend/sqlite/usage.ts';
import type { UsageItem } from '../../src/billing/usage-history.ts';
import { parseCursor } from '../../src/billing/usage-pages.ts';
import { silentLogger } from '../../src/log.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

let dir: string;
let db: Db;
let usage: UsageLog;
const W = 'wallet-a';
const T0 = Date.now() - 60_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cig-usage-pages-'));
  db = openDatabase(join(dir, 'u.sqlite'));
  usage = new UsageLog(db, new Ledger(db), 30, silentLogger);
});
afterEach(async () => {
  // Rows recorded after the last page are still held: written now, not by a timer after the close.
  await usage.settled();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const debit = (wallet: string): Debit => ({ callId: newCallId(), wallet, kind: 'credit', price: 1000, balance: { freeCalls: 0, creditLamports: 0n } });
const keyPaid = (at: number, capability = 'find-ata', wallet = W) => usage.record(debit(wallet), { capability, face: 'rest', at, status: 200, refunded: false });
let n = 0;
function x402(createdAt: number, over: Partial<typeof x402Payments.$inferInsert> = {}) {
  const txKey = over.txKey ?? `${(n++).toString(36).padStart(4, '0')}+/=key`;
  db.insert(x402Payments)
    .values({ txKey, network: 'mainnet-beta', payer: W, asset: 'USDC', amount: 10_000, payTo: 'gw', capability: 'token-profile', face: 'mcp', status: 'settled', signature: `sig-${txKey}`, createdAt, settledAt: createdAt + 500, ...over })
    .run();
  return txKey;
}
/** What tells two rows apart. */
const idOf = (i: UsageItem) => ('id' in i ? `k${i.id}` : `x${i.transaction}`);

function walk(limit: number, between?: (page: number) => void): UsageItem[] {
  const seen: UsageItem[] = [];
  let cursor: string | null = null;
  let page = 0;
  do {
    const res = usage.page(W, limit, cursor === null ? {} : parseCursor(cursor)!);
    expect(res.items.length).toBeLessThanOrEqual(limit);
    seen.push(...res.items);
    cursor = res.nextCursor;
    between?.(page++);
  } while (cursor);
  return seen;
}

test('both kinds, newest first, told apart by paidWith; held, failed and other payers\' payments are not listed', () => {
  keyPaid(T0);
  const paid = x402(T0 + 1000);
  keyPaid(T0 + 2000, 'decode-tx');
  x402(T0 + 3000, { status: 'held', signature: null });
  x402(T0 + 4000, { status: 'failed', signature: 'sig-failed', reason: 'settlement_failed: x' });
  x402(T0 + 5000, { payer: 'wallet-b' });
  keyPaid(T0 + 6000, 'optimal-fee', 'wallet-b');
  const items = usage.page(W, 10).items;
  expect(items.map((i) => [i.paidWith, i.capability])).toEqual([
    ['credit', 'decode-tx'],
    ['x402', 'token-profile'],
    ['credit', 'find-ata'],
  ]);
  expect(items[1]).toEqual({
    time: Math.floor((T0 + 1000) / 1000),
    capability: 'token-profile',
    face: 'mcp',
    paidWith: 'x402',
    refunded: false,
    status: 200,
    network: 'mainnet-beta',
    payer: W,
    asset: 'USDC',
    amount: '10000',
    transaction: `sig-${paid}`,
  });
});

test('payments older than the retention are not listed', () => {
  x402(Date.now() - 31 * 86_400_000);
  const kept = x402(Date.now() - 29 * 86_400_000);
  expect(usage.page(W, 10).items.map(idOf)).toEqual([`xsig-${kept}`]);
});

test('pages of every size join up to the whole list, with payments recorded in the same millisecond', () => {
  for (let i = 0; i < 12; i++) {
    if (i % 3 !== 1) keyPaid(T0 + i * 10);
    x402(T0 + i * 10 + 5);
    if (i % 4 === 0) x402(T0 + i * 10 + 5);
    if (i === 6) x402(T0 + i * 10 + 5);
  }
  const all = usage.page(W, 100).items;
  expect(all).toHaveLength(8 + 12 + 3 + 1);
  const times = all.map((i) => i.time);
  expect(times).toEqual([...times].sort((a, b) => b - a));
  for (let limit = 1; limit <= 9; limit++) expect([limit, walk(limit).map(idOf)]).toEqual([limit, all.map(idOf)]);
});

test('calls made while a client pages never show on an older page', () => {
  keyPaid(T0);
  x402(T0 + 10);
  keyPaid(T0 + 20);
  x402(T0 + 30);
  const all = usage.page(W, 100).items.map(idOf);
  const seen = walk(1, () => {
    keyPaid(Date.now());
    x402(Date.now());
  });
  expect(seen.map(idOf)).toEqual(all);
});

test('a kind with no row on a page is held at its next row: a later call of that kind stays off older pages', () => {
  for (let i = 0; i < 3; i++) x402(T0 + 100 + i);
  keyPaid(T0);
  // Page one shows payments only; the key-paid list is held at its next row.
  const first = usage.page(W, 2);
  expect(first.items.map((i) => i.paidWith)).toEqual(['x402', 'x402']);
  keyPaid(Date.now());
  const second = usage.page(W, 2, parseCursor(first.nextCursor!)!);
  expect(second.items.map((i) => i.paidWith)).toEqual(['x402', 'credit']);
  expect(second.items[1]!.time).toBe(Math.floor(T0 / 1000));
  expect(second.nextCursor).toBeNull();
});

test('a wallet that never paid with x402 pages by row id, as before; a cursor of digits alone lists key-paid rows only', () => {
  for (let i = 0; i < 5; i++) keyPaid(T0 + i);
  const first = usage.page(W, 2);
  const ids = first.items.map((i) => ('id' in i ? i.id : 0));
  expect(first.nextCursor).toBe(String(ids[1]));
  x402(T0 + 2);
  expect(usage.page(W, 10, parseCursor(first.nextCursor!)!).items.every((i) => i.paidWith === 'credit')).toBe(true);
});

test('a cursor the gateway did not write is refused', () => {
  for (const bad of ['', '0', '-1', '1e3', '1.5e3', ' 1', '1 ', '9'.repeat(17), '9007199254740992', '1.', '1..', '1.2.', '1.2.=', '1.2.a+b', '1.2.a/b', '1.2.3.4', `1.2.${'a'.repeat(201)}`, '1.2.YQ', '1.2.YR']) {
    expect([bad, parseCursor(bad)]).toEqual([bad, bad === '1.2.YQ' ? { before: 1, x402: { at: 2, txKey: 'a' } } : null]);
  }
  expect(parseCursor('42')).toEqual({ before: 42, x402: null });
  expect(parseCursor('42.7')).toEqual({ before: 42, x402: { at: 7 } });
});
