// Usage rows past USAGE_RETENTION_DAYS are deleted from the bottom up, on a real SQLite file: rows
// arrive in time order, so pruning needs no index on their time.
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/client.ts';
import { Ledger } from '../../src/billing/backend/sqlite/ledger.ts';
import type { Debit } from '../../src/billing/credit.ts';
import { UsageLog } from '../../src/billing/backend/sqlite/usage.ts';
import { silentLogger } from '../../src/log.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

const DAY = 86_400_000;
const RETENTION_DAYS = 30;
let dir: string;
let db: Db;
let ledger: Ledger;
let usage: UsageLog;
const debit = (): Debit => ({ callId: newCallId(), wallet: 'w', kind: 'credit', price: 5, balance: { freeCalls: 0, creditLamports: 0n } });
const call = (at: number) => ({ capability: 'find-ata', face: 'rest' as const, at, status: 200, refunded: false });
const times = () => (db.$client.query('SELECT at FROM usage_events ORDER BY id').all() as { at: number }[]).map((r) => r.at);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cig-usage-'));
  db = openDatabase(join(dir, 'u.sqlite'));
  ledger = new Ledger(db);
  usage = new UsageLog(db, ledger, RETENTION_DAYS, silentLogger);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

test('rows older than the retention go, younger ones stay, and ids keep growing after a prune', () => {
  const now = Date.now();
  const ages = [40, 35, 31, 29, 2, 0];
  for (const days of ages) usage.record(debit(), call(now - days * DAY));
  ledger.settle();
  usage.prune(now);
  expect(times()).toEqual([29, 2, 0].map((d) => now - d * DAY));
  const lastId = (db.$client.query('SELECT max(id) AS id FROM usage_events').get() as { id: number }).id;
  usage.record(debit(), call(now));
  ledger.settle();
  expect((db.$client.query('SELECT max(id) AS id FROM usage_events').get() as { id: number }).id).toBe(lastId + 1);
  expect(usage.page('w', 10).items.map((i) => ('id' in i ? i.id : 0))).toEqual([lastId + 1, lastId, lastId - 1, lastId - 2]);
});

test('when every row is old, all go; an empty table stays empty', () => {
  const now = Date.now();
  for (const days of [50, 45]) usage.record(debit(), call(now - days * DAY));
  ledger.settle();
  usage.prune(now);
  expect(times()).toEqual([]);
  usage.prune(now);
  expect(times()).toEqual([]);
});
