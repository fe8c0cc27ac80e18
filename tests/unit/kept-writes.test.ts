// What the database cannot take when it is written is kept and written once it can: a refund (once,
// by its call's id) and usage rows (in order, once, at most USAGE_QUEUE_ROWS of them; what
// overflows, or is left when a stop stops waiting, is counted and logged once). On a real SQLite
// file whose writes a trigger refuses while a fault is set: SQLite's own error, on demand.
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/client.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';
import { KeptWrites } from '../../src/billing/resilience/kept-writes.ts';
import { Ledger } from '../../src/billing/backend/sqlite/ledger.ts';
import type { Debit, Refund } from '../../src/billing/credit.ts';
import { createPayments } from '../../src/billing/payments.ts';
import { sqliteStore } from '../../src/billing/backend/sqlite/store.ts';
import { UsageLog } from '../../src/billing/backend/sqlite/usage.ts';
import { defaultConfig } from '../../src/config.ts';
import type { Logger } from '../../src/log.ts';
import { registry } from '../../src/metrics.ts';

const PRICE = 5000;
let dir: string;
let db: Db;
let ledger: Ledger;
let lines: { level: string; msg: string }[];
let log: Logger;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cig-kept-'));
  db = openDatabase(join(dir, 'k.sqlite'));
  ledger = new Ledger(db);
  lines = [];
  const at = (level: string) => (msg: string) => void lines.push({ level, msg });
  log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: () => true, format: 'text', line() {} };
  db.$client.run('CREATE TABLE fault (on_table TEXT)');
  for (const table of ['credit_accounts', 'usage_events']) {
    for (const op of ['INSERT', 'UPDATE']) {
      db.$client.run(`CREATE TRIGGER refuse_${op}_${table} BEFORE ${op} ON ${table} WHEN EXISTS (SELECT 1 FROM fault WHERE on_table = '${table}') BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    }
  }
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const fault = (table: string | null) => {
  db.$client.run('DELETE FROM fault');
  if (table) db.$client.run('INSERT INTO fault VALUES (?)', [table]);
};
const metric = async (name: string, labels = '') => {
  const text = await registry.metrics();
  return Number(new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
};

test('a refund the database refuses is kept, then made once when it takes writes again', async () => {
  const kept = new KeptWrites(log);
  const payments = createPayments(sqliteStore(db, ledger), { ...defaultConfig(), priceLamports: PRICE }, kept);
  ledger.credit('w', BigInt(3 * PRICE), 0);
  const debit = await payments.charge({ wallet: 'w', keyHash: 'h' }, 'key', PRICE, newCallId());
  fault('credit_accounts');
  const written: Refund[] = [];
  expect(await payments.refund(debit, (r) => written.push(r))).toBeUndefined();
  expect(kept.size).toBe(1);
  expect(await metric('gateway_kept_writes', '{kind="refund"}')).toBe(1);
  // Asked again meanwhile (the undelivered answer's refund, say): still one refund owed.
  expect(await payments.refund(debit, (r) => written.push(r))).toBeUndefined();
  await Bun.sleep(600);
  expect(ledger.account('w')!.creditLamports).toBe(BigInt(2 * PRICE));
  fault(null);
  for (let i = 0; i < 60 && kept.size > 0; i++) await Bun.sleep(50);
  expect(kept.size).toBe(0);
  expect(ledger.account('w')).toMatchObject({ creditLamports: BigInt(3 * PRICE), callsMade: 0 });
  expect(written.filter((r) => r.given !== null)).toHaveLength(1);
  expect(lines.filter((l) => l.msg === 'database write kept for later')).toHaveLength(1);
});

test('a refund still kept when a stop ends its wait is given up, counted and logged', async () => {
  const kept = new KeptWrites(log);
  const payments = createPayments(sqliteStore(db, ledger), { ...defaultConfig(), priceLamports: PRICE }, kept);
  ledger.credit('w', BigInt(PRICE), 0);
  const debit = await payments.charge({ wallet: 'w', keyHash: 'h' }, 'key', PRICE, newCallId());
  fault('credit_accounts');
  const before = await metric('gateway_kept_writes_given_up_total', '{kind="refund"}');
  await payments.refund(debit);
  await kept.settled(300);
  expect(await metric('gateway_kept_writes_given_up_total', '{kind="refund"}')).toBe(before + 1);
  expect(lines.some((l) => l.level === 'error' && l.msg === 'database write given up at stop')).toBe(true);
});

const row = (i: number) => [{ callId: newCallId(), wallet: 'w', kind: 'credit', price: PRICE, balance: { freeCalls: 0, creditLamports: 0n } } satisfies Debit, { capability: 'find-ata', face: 'rest' as const, at: 1_000 + i, status: 200, refunded: false }] as const;
const stored = () => db.$client.query('SELECT call_id AS callId, at, refunded FROM usage_events ORDER BY id').all() as { callId: string; at: number; refunded: number }[];

test('usage rows the database refuses are kept and written later, in order, once; a refund marks a kept row', async () => {
  const usage = new UsageLog(db, ledger, 30, log, 1000);
  fault('usage_events');
  const calls = Array.from({ length: 300 }, (_, i) => row(i));
  const marks = calls.map(([debit, call]) => usage.record(debit, call));
  ledger.settle();
  await Bun.sleep(300);
  expect(stored()).toHaveLength(0);
  marks[7]!.refunded();
  // Newer rows wait behind the kept ones.
  const late = row(300);
  usage.record(...late);
  fault(null);
  await usage.settled(5000);
  const rows = stored();
  expect(rows.map((r) => r.at)).toEqual(Array.from({ length: 301 }, (_, i) => 1_000 + i));
  expect(rows.map((r) => r.callId)).toEqual([...calls.map(([d]) => d.callId), late[0].callId]);
  expect(rows.filter((r) => r.refunded).map((r) => r.at)).toEqual([1_007]);
  expect(lines.filter((l) => l.msg === 'usage rows kept for later: the database did not take them')).toHaveLength(1);
  expect(lines.filter((l) => l.msg === 'usage rows written again')).toHaveLength(1);
});

test('rows given up at a stop stay given up: no timer writes them later, and the pending gauge stays at 0', async () => {
  const usage = new UsageLog(db, ledger, 30, log, 1000);
  fault('usage_events');
  for (let i = 0; i < 5; i++) usage.record(...row(i));
  await usage.settled(300);
  fault(null);
  // Longer than the longest pause between tries.
  await Bun.sleep(2_200);
  ledger.settle();
  expect(stored()).toHaveLength(0);
  expect(await metric('gateway_usage_rows_pending')).toBe(0);
});

test('beyond USAGE_QUEUE_ROWS rows are dropped, counted and logged once; a stop that stops waiting counts the rest', async () => {
  const usage = new UsageLog(db, ledger, 30, log, 5);
  const full = await metric('gateway_usage_rows_dropped_total', '{reason="queue_full"}');
  const stopped = await metric('gateway_usage_rows_dropped_total', '{reason="stopped"}');
  fault('usage_events');
  for (let i = 0; i < 8; i++) usage.record(...row(i));
  expect(await metric('gateway_usage_rows_pending')).toBe(5);
  expect(await metric('gateway_usage_rows_dropped_total', '{reason="queue_full"}')).toBe(full + 3);
  expect(lines.filter((l) => l.msg.startsWith('usage rows dropped'))).toHaveLength(1);
  await usage.settled(300);
  expect(await metric('gateway_usage_rows_dropped_total', '{reason="stopped"}')).toBe(stopped + 5);
  expect(stored()).toHaveLength(0);
});
