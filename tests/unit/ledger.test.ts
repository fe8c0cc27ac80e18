// The ledger on a real SQLite file: exact under concurrency, durable before it answers, and
// batched so that one commit serves every debit asked for in the same turn of the event loop.
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/client.ts';
import { Ledger, MAX_BATCH } from '../../src/billing/backend/sqlite/ledger.ts';
import { debitStep, refundStep, type AccountView } from '../../src/billing/credit.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

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
  ledger.credit('w', BigInt(2 * PRICE + 5), 2);
  const kinds = [];
  for (let i = 0; i < 5; i++) kinds.push((await ledger.debit('w', PRICE, newCallId()))?.kind ?? null);
  expect(kinds).toEqual(['free', 'free', 'credit', 'credit', null]);
  expect(ledger.account('w')).toMatchObject({ freeCalls: 0, creditLamports: 5n, callsMade: 4 });
});

test('500 debits asked at once: exactly what the account covers succeeds, in as few commits as the batch cap allows', async () => {
  ledger.credit('w', BigInt(123 * PRICE), 7);
  const before = ledger.commits;
  const results = await Promise.all(Array.from({ length: 500 }, () => ledger.debit('w', PRICE, newCallId())));
  expect(results.filter((r) => r?.kind === 'free')).toHaveLength(7);
  expect(results.filter((r) => r?.kind === 'credit')).toHaveLength(123);
  expect(results.filter((r) => r === null)).toHaveLength(370);
  expect(ledger.commits - before).toBe(Math.ceil(500 / MAX_BATCH));
  expect(ledger.account('w')).toMatchObject({ freeCalls: 0, creditLamports: 0n, callsMade: 130 });
});

test('a debit is on disk when it resolves: another connection sees it', async () => {
  ledger.credit('w', BigInt(10 * PRICE), 0);
  await ledger.debit('w', PRICE, newCallId());
  const other = new Database(join(dir, 'l.sqlite'), { readonly: true });
  expect(other.query('SELECT credit_lamports AS c FROM credit_accounts WHERE wallet = ?').get('w')).toEqual({ c: 9 * PRICE });
  other.close();
});

test('a refund gives back exactly what was taken, free call or credit', async () => {
  ledger.credit('w', BigInt(PRICE), 1);
  const free = (await ledger.debit('w', PRICE, newCallId()))!;
  const paid = (await ledger.debit('w', PRICE, newCallId()))!;
  expect([free.kind, paid.kind]).toEqual(['free', 'credit']);
  await Promise.all([ledger.refund(free), ledger.refund(paid)]);
  expect(ledger.account('w')).toMatchObject({ freeCalls: 1, creditLamports: BigInt(PRICE), callsMade: 0 });
});

test('an operation that fails in a batch fails alone', async () => {
  ledger.credit('w', BigInt(3 * PRICE), 0);
  const ghost = { callId: newCallId(), wallet: 'nobody', kind: 'credit' as const, price: PRICE, balance: { freeCalls: 0, creditLamports: 0n } };
  const [a, refund, b] = await Promise.allSettled([ledger.debit('w', PRICE, newCallId()), ledger.refund(ghost), ledger.debit('w', PRICE, newCallId())]);
  expect(a.status).toBe('fulfilled');
  expect(refund.status).toBe('rejected');
  expect(b.status).toBe('fulfilled');
  expect(ledger.account('w')!.creditLamports).toBe(BigInt(PRICE));
});

test('accounts of different wallets do not touch each other', async () => {
  ledger.credit('a', BigInt(PRICE), 0);
  ledger.credit('b', BigInt(0), 0);
  const [a, b] = await Promise.all([ledger.debit('a', PRICE, newCallId()), ledger.debit('b', PRICE, newCallId())]);
  expect(a?.kind).toBe('credit');
  expect(b).toBeNull();
});

test('amounts past 2^53 stay exact through credit, debit and refund', async () => {
  const big = 2n ** 60n + 7n;
  expect(ledger.credit('w', big, 0).creditLamports).toBe(big);
  const debit = (await ledger.debit('w', PRICE, newCallId()))!;
  expect(debit.balance.creditLamports).toBe(big - BigInt(PRICE));
  expect((await ledger.refund(debit)).balance.creditLamports).toBe(big);
  expect(ledger.account('w')!.creditLamports).toBe(big);
});

test('a credit that would overflow 64 bits is refused, not rounded', () => {
  ledger.credit('w', 2n ** 62n, 0);
  expect(() => ledger.credit('w', 2n ** 62n, 0)).toThrow();
  expect(ledger.account('w')!.creditLamports).toBe(2n ** 62n);
});

test('a deferred write rides along with the debits of the same turn: no extra commit; alone it still commits soon', async () => {
  ledger.credit('w', BigInt(10 * PRICE), 0);
  db.$client.run('CREATE TABLE notes (n INTEGER)');
  const note = db.$client.prepare('INSERT INTO notes VALUES (?)');
  const count = () => (db.$client.query('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
  const failures: unknown[] = [];
  const before = ledger.commits;
  const debits = Promise.all([ledger.debit('w', PRICE, newCallId()), ledger.debit('w', PRICE, newCallId())]);
  ledger.defer(() => note.run(1), (e) => failures.push(e));
  await debits;
  expect(ledger.commits - before).toBe(1);
  expect(count()).toBe(1);

  ledger.defer(() => note.run(2), (e) => failures.push(e));
  ledger.defer(() => { throw new Error('bad row'); }, (e) => failures.push(e));
  expect(count()).toBe(1);
  await Bun.sleep(400);
  expect(count()).toBe(2);
  expect(ledger.commits - before).toBe(2);
  expect(failures.map((e) => (e as Error).message)).toEqual(['bad row']);
});

test('the in-memory view matches the database after debits, refunds and a credit', async () => {
  ledger.credit('w', BigInt(5 * PRICE), 1);
  const stored = () => {
    const row = db.$client.query('SELECT free_calls AS freeCalls, cast(credit_lamports AS text) AS c, calls_made AS callsMade FROM credit_accounts WHERE wallet = ?').get('w') as { freeCalls: number; c: string; callsMade: number };
    return { freeCalls: row.freeCalls, creditLamports: BigInt(row.c), callsMade: row.callsMade };
  };
  expect(ledger.account('w')).toMatchObject(stored());
  const debits = await Promise.all([ledger.debit('w', PRICE, newCallId()), ledger.debit('w', PRICE, newCallId()), ledger.debit('w', PRICE, newCallId())]);
  expect(ledger.account('w')).toMatchObject(stored());
  await ledger.refund(debits[1]!);
  expect(ledger.account('w')).toMatchObject(stored());
  db.transaction(() => ledger.credit('w', 7n, 0));
  expect(ledger.account('w')).toMatchObject(stored());
  expect(ledger.account('w')).toMatchObject({ freeCalls: 0, creditLamports: BigInt(4 * PRICE + 7), callsMade: 2 });
});

test('a credit inside a transaction that rolls back leaves the view as committed', async () => {
  ledger.credit('w', BigInt(PRICE), 0);
  expect(ledger.account('w')!.creditLamports).toBe(BigInt(PRICE));
  expect(() =>
    db.transaction(() => {
      ledger.credit('w', 1000n, 0);
      throw new Error('claim failed later');
    }),
  ).toThrow('claim failed later');
  expect(ledger.account('w')!.creditLamports).toBe(BigInt(PRICE));
});

test('debits commit without an fsync (synchronous=NORMAL) by default, or with one under LEDGER_SYNC=full; other commits always fsync', async () => {
  const synchronous = () => (db.$client.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
  const FULL = 2;
  ledger.credit('w', BigInt(10 * PRICE), 0);
  expect(synchronous()).toBe(FULL);
  // The setting in force while the batch commits, seen from inside the batch.
  const seen: number[] = [];
  // A deferred write runs inside the same batch as the debit queued in the same turn.
  const probe = (l: Ledger) => l.defer(() => seen.push(synchronous()), (e) => { throw e; });
  await Promise.all([ledger.debit('w', PRICE, newCallId()), probe(ledger)]);
  expect(synchronous()).toBe(FULL);
  const strict = new Ledger(db, 'full');
  await Promise.all([strict.debit('w', PRICE, newCallId()), probe(strict)]);
  expect(seen).toEqual([1, FULL]);
  expect(synchronous()).toBe(FULL);
});

test('debit and refund steps: free call first, then credit, never below zero; a refund undoes exactly its debit', () => {
  const a: AccountView = { wallet: 'w', freeCalls: 1, creditLamports: 5n, callsMade: 0 };
  const first = debitStep(a, 3)!;
  expect(first).toEqual({ kind: 'free', next: { wallet: 'w', freeCalls: 0, creditLamports: 5n, callsMade: 1 } });
  const second = debitStep(first.next, 3)!;
  expect(second).toEqual({ kind: 'credit', next: { wallet: 'w', freeCalls: 0, creditLamports: 2n, callsMade: 2 } });
  expect(debitStep(second.next, 3)).toBeUndefined();
  expect(debitStep(null, 3)).toBeUndefined();
  const debit = { callId: 'c', wallet: 'w', kind: 'credit' as const, price: 3, balance: { freeCalls: 0, creditLamports: 2n } };
  expect(refundStep(second.next, debit)).toEqual(first.next);
  expect(refundStep(first.next, { ...debit, kind: 'free' })).toEqual(a);
});

test('debits, refunds and refusals of one wallet in one batch: each answer and the row match doing them one by one', async () => {
  ledger.credit('w', BigInt(3 * PRICE), 2);
  const first = (await ledger.debit('w', PRICE, newCallId()))!;
  const before = ledger.commits;
  // One turn: a refund, then more debits than the account covers.
  const [refunded, ...debits] = await Promise.all([ledger.refund(first), ...Array.from({ length: 8 }, () => ledger.debit('w', PRICE, newCallId()))]);
  expect(ledger.commits - before).toBe(1);
  expect(refunded).toEqual({ balance: { freeCalls: 2, creditLamports: BigInt(3 * PRICE) }, given: first });
  expect(debits.map((d) => d?.kind ?? null)).toEqual(['free', 'free', 'credit', 'credit', 'credit', null, null, null]);
  expect(debits.map((d) => d?.balance.creditLamports ?? null)).toEqual([BigInt(3 * PRICE), BigInt(3 * PRICE), BigInt(2 * PRICE), BigInt(PRICE), 0n, null, null, null]);
  const row = db.$client.query('SELECT free_calls, CAST(credit_lamports AS TEXT) AS credit, calls_made FROM credit_accounts WHERE wallet = ?').get('w');
  expect(row).toEqual({ free_calls: 0, credit: '0', calls_made: 5 });
});

test('a change another process commits between batches is what the next batch debits from, not the remembered view', async () => {
  ledger.credit('w', BigInt(PRICE), 0);
  expect((await ledger.debit('w', PRICE, newCallId()))?.kind).toBe('credit');
  expect(ledger.account('w')?.creditLamports).toBe(0n);
  // Another connection (another process) adds credit behind the ledger's back.
  const other = new Database(join(dir, 'l.sqlite'));
  other.run('UPDATE credit_accounts SET credit_lamports = ? WHERE wallet = ?', [2 * PRICE, 'w']);
  other.close();
  const results = await Promise.all([ledger.debit('w', PRICE, newCallId()), ledger.debit('w', PRICE, newCallId()), ledger.debit('w', PRICE, newCallId())]);
  expect(results.map((r) => r?.kind ?? null)).toEqual(['credit', 'credit', null]);
  expect(results[1]?.balance.creditLamports).toBe(0n);
});

test('one call id is debited once, whether asked again later or twice in one batch', async () => {
  ledger.credit('w', BigInt(10 * PRICE), 0);
  const id = newCallId();
  const first = (await ledger.debit('w', PRICE, id))!;
  const again = await ledger.debit('w', PRICE, id);
  expect(again).toMatchObject({ callId: id, kind: 'credit', price: PRICE });
  const twin = newCallId();
  const both = await Promise.all([ledger.debit('w', PRICE, twin), ledger.debit('w', PRICE, twin)]);
  expect(both.map((d) => d?.callId)).toEqual([twin, twin]);
  expect(ledger.account('w')).toMatchObject({ creditLamports: BigInt(8 * PRICE), callsMade: 2 });
  expect(first.balance.creditLamports).toBe(BigInt(9 * PRICE));
});

test('refunds of one debit asked at once, and again later, give it back once; a call never debited gets nothing', async () => {
  ledger.credit('w', BigInt(2 * PRICE), 0);
  const debit = (await ledger.debit('w', PRICE, newCallId()))!;
  const refunds = await Promise.all(Array.from({ length: 5 }, () => ledger.refund(debit)));
  expect(refunds.filter((r) => r.given !== null)).toHaveLength(1);
  expect((await ledger.refund(debit)).given).toBeNull();
  const never = { ...debit, callId: newCallId() };
  expect(await ledger.refund(never)).toEqual({ balance: { freeCalls: 0, creditLamports: BigInt(2 * PRICE) }, given: null });
  expect(ledger.account('w')).toMatchObject({ creditLamports: BigInt(2 * PRICE), callsMade: 0 });
});
