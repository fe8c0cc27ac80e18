// The ledger on a real SQLite file: exact under concurrency, durable before it answers, and
// batched so that one commit serves every debit asked for in the same turn of the event loop.
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/client.ts';
import { Ledger } from '../../src/billing/ledger.ts';

let dir: string;
let db: Db;
let ledger: Ledger;
const PRICE = 2_200_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cig-ledger-'));
  db = openDatabase(join(dir, 'l.sqlite'));
  ledger = new Ledger(db);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

test('free calls first, then the price from credit, then nothing; never below zero', async () => {
  ledger.credit('w', 2 * PRICE + 5, 2);
  const kinds = [];
  for (let i = 0; i < 5; i++) kinds.push((await ledger.debit('w', PRICE))?.kind ?? null);
  expect(kinds).toEqual(['free', 'free', 'credit', 'credit', null]);
  expect(ledger.account('w')).toMatchObject({ freeCalls: 0, creditLamports: 5, callsMade: 4 });
});

test('500 debits asked at once: exactly what the account covers succeeds, in one commit', async () => {
  ledger.credit('w', 123 * PRICE, 7);
  const before = ledger.commits;
  const results = await Promise.all(Array.from({ length: 500 }, () => ledger.debit('w', PRICE)));
  expect(results.filter((r) => r?.kind === 'free')).toHaveLength(7);
  expect(results.filter((r) => r?.kind === 'credit')).toHaveLength(123);
  expect(results.filter((r) => r === null)).toHaveLength(370);
  expect(ledger.commits - before).toBe(1);
  expect(ledger.account('w')).toMatchObject({ freeCalls: 0, creditLamports: 0, callsMade: 130 });
});

test('a debit is on disk when it resolves: another connection sees it', async () => {
  ledger.credit('w', 10 * PRICE, 0);
  await ledger.debit('w', PRICE);
  const other = new Database(join(dir, 'l.sqlite'), { readonly: true });
  expect(other.query('SELECT credit_lamports AS c FROM credit_accounts WHERE wallet = ?').get('w')).toEqual({ c: 9 * PRICE });
  other.close();
});

test('a refund gives back exactly what was taken, free call or credit', async () => {
  ledger.credit('w', PRICE, 1);
  const free = (await ledger.debit('w', PRICE))!;
  const paid = (await ledger.debit('w', PRICE))!;
  expect([free.kind, paid.kind]).toEqual(['free', 'credit']);
  await Promise.all([ledger.refund(free), ledger.refund(paid)]);
  expect(ledger.account('w')).toMatchObject({ freeCalls: 1, creditLamports: PRICE, callsMade: 0 });
});

test('an operation that fails in a batch fails alone', async () => {
  ledger.credit('w', 3 * PRICE, 0);
  const ghost = { wallet: 'nobody', kind: 'credit' as const, price: PRICE, balance: { freeCalls: 0, creditLamports: 0 } };
  const [a, refund, b] = await Promise.allSettled([ledger.debit('w', PRICE), ledger.refund(ghost), ledger.debit('w', PRICE)]);
  expect(a.status).toBe('fulfilled');
  expect(refund.status).toBe('rejected');
  expect(b.status).toBe('fulfilled');
  expect(ledger.account('w')!.creditLamports).toBe(PRICE);
});

test('accounts of different wallets do not touch each other', async () => {
  ledger.credit('a', PRICE, 0);
  ledger.credit('b', 0, 0);
  const [a, b] = await Promise.all([ledger.debit('a', PRICE), ledger.debit('b', PRICE)]);
  expect(a?.kind).toBe('credit');
  expect(b).toBeNull();
});
