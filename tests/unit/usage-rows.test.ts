// Usage rows are held back until 256 wait or the first has waited 100 ms, then written together
// with the next ledger commit (one insert for up to 64 rows); a read of the history (settle)
// writes whatever is held first. On a real SQLite file: every row lands once, whole and in arrival
// order, however many arrive at once, and a refund marks the row of its own call, held or written.
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

let dir: string;
let db: Db;
let ledger: Ledger;
let usage: UsageLog;
const free = (): Debit => ({ callId: newCallId(), wallet: 'wallet-a', kind: 'free', price: 7, balance: { freeCalls: 0, creditLamports: 0n } });
const credit = (wallet: string): Debit => ({ callId: newCallId(), wallet, kind: 'credit', price: 1000, balance: { freeCalls: 0, creditLamports: 0n } });
const rows = () =>
  db.$client.query('SELECT wallet, at, capability, face, paid_with AS paidWith, lamports, refunded, status FROM usage_events ORDER BY id').all() as Record<string, unknown>[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cig-usage-rows-'));
  db = openDatabase(join(dir, 'u.sqlite'));
  ledger = new Ledger(db);
  usage = new UsageLog(db, ledger, 30, silentLogger);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a burst larger than one insert lands whole, once and in order, in one commit', () => {
  const now = Date.now();
  const sent = Array.from({ length: 150 }, (_, i) => ({
    debit: i % 3 === 0 ? free() : credit(`wallet-${i % 5}`),
    call: { capability: i % 2 ? 'find-ata' : 'optimal-fee', face: i % 4 ? ('rest' as const) : ('mcp' as const), at: now + i, status: 200, refunded: false },
  }));
  for (const s of sent) usage.record(s.debit, s.call);
  const commits = ledger.commits;
  ledger.settle();
  expect(ledger.commits).toBe(commits + 1);
  expect(rows()).toEqual(
    sent.map(({ debit, call }) => ({
      wallet: debit.wallet,
      at: call.at,
      capability: call.capability,
      face: call.face,
      paidWith: debit.kind === 'free' ? 'free_call' : 'credit',
      lamports: debit.kind === 'free' ? 0 : 1000,
      refunded: 0,
      status: 200,
    })),
  );
});

test('rows are held until 256 wait, then ride along with the next debit; the rest follow within the time limit', async () => {
  ledger.credit('wallet-c', 10n ** 12n, 0);
  const now = Date.now();
  for (let i = 0; i < 300; i++) usage.record(credit('wallet-c'), { capability: 'find-ata', face: 'rest', at: now + i, status: 200, refunded: false });
  await ledger.debit('wallet-c', 1000, newCallId());
  expect(rows().map((r) => r.at)).toEqual(Array.from({ length: 256 }, (_, i) => now + i));
  // The last 44 are handed over after 100 ms and commit alone within the ledger's 200 ms for writes nobody waits for.
  await Bun.sleep(400);
  expect(rows().map((r) => r.at)).toEqual(Array.from({ length: 300 }, (_, i) => now + i));
});

test('a refund marks its own row, whether the row was still held or already written', () => {
  const now = Date.now();
  const written = usage.record(credit('wallet-b'), { capability: 'find-ata', face: 'mcp', at: now, status: 200, refunded: false });
  ledger.settle();
  const held = usage.record(credit('wallet-b'), { capability: 'decode-tx', face: 'mcp', at: now + 1, status: 200, refunded: false });
  usage.record(credit('wallet-b'), { capability: 'find-ata', face: 'mcp', at: now + 2, status: 200, refunded: false });
  held.refunded();
  written.refunded();
  ledger.settle();
  expect(rows().map((r) => [r.capability, r.refunded])).toEqual([
    ['find-ata', 1],
    ['decode-tx', 1],
    ['find-ata', 0],
  ]);
  expect(usage.page('wallet-b', 10).items.map((i) => i.refunded)).toEqual([false, true, true]);
});
