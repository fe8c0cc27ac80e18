// What the SQLite ledger costs a paid call, in CPU, and the floor under it. Two parts, each on a
// real SQLite file in this process:
// - bun:sqlite alone, no gateway code: rows of a debit's record (ledger_debits) and of a usage row
//   (usage_events, with and without its wallet index) in the gateway's migrated tables, inserted as
//   the ledger inserts them, and rows of a table with no index at all: what one row costs at the least;
// - the Ledger as the gateway runs it: `clients` debits of one wallet per event-loop turn, each
//   answered after its group commit, alone and with its usage row recorded (UsageLog).
// CPU per call is this process's user + system time over the calls made; the best of `rounds`.
// Run: bun bench/paid-ledger.ts [calls per round] [clients] [rounds]
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/db/client.ts';
import { Ledger } from '../src/billing/backend/sqlite/ledger.ts';
import { UsageLog } from '../src/billing/backend/sqlite/usage.ts';
import { newCallId } from '../src/billing/resilience/call-id.ts';
import { silentLogger } from '../src/log.ts';

const calls = Number(process.argv[2] ?? 128_000);
const clients = Number(process.argv[3] ?? 64);
const rounds = Number(process.argv[4] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'cig-paid-ledger-'));
const WALLET = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

/** This process's CPU per unit (µs) while what `prepare` returns runs, the best of `rounds` fresh runs. */
async function best(units: number, prepare: (round: number) => () => unknown): Promise<number> {
  let least = Infinity;
  for (let r = 0; r < rounds; r++) {
    const work = prepare(r);
    const before = process.cpuUsage();
    await work();
    const used = process.cpuUsage(before);
    least = Math.min(least, (used.user + used.system) / units);
  }
  return least;
}

// The gateway's own tables (migrated), written with the statements the ledger and the usage log use;
// `setup` changes the file first where a shape asks for less.
const USAGE_INSERT = `INSERT INTO usage_events (call_id, wallet, at, capability, face, paid_with, lamports, refunded, status) VALUES ${Array(64).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING`;
const usageValues = (id: string) => [id, WALLET, Date.now(), 'optimal-fee', 'rest', 'credit', 1000, 0, 200];
const ROW_SHAPES: Record<string, { setup?: string; insert: string; values: (id: string) => unknown[]; perStatement: number }> = {
  'a table with no index': {
    setup: 'CREATE TABLE t (call_id TEXT, wallet TEXT, kind TEXT, price INTEGER)',
    insert: 'INSERT INTO t VALUES (?, ?, ?, ?)',
    values: (id) => [id, WALLET, 'credit', 1000],
    perStatement: 1,
  },
  "a debit's record (ledger_debits), one per statement": {
    insert: 'INSERT INTO ledger_debits (call_id, wallet, kind, price) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    values: (id) => [id, WALLET, 'credit', 1000],
    perStatement: 1,
  },
  'a usage row (usage_events), 64 per statement': { insert: USAGE_INSERT, values: usageValues, perStatement: 64 },
  'the same without its wallet index': { setup: 'DROP INDEX usage_events_wallet_idx', insert: USAGE_INSERT, values: usageValues, perStatement: 64 },
};

/** Rows of one shape, `clients` to a transaction (WAL, synchronous NORMAL, as a ledger batch commits). */
function rowFloor(name: string, round: number) {
  const shape = ROW_SHAPES[name]!;
  const db = openDatabase(join(dir, `rows-${Object.keys(ROW_SHAPES).indexOf(name)}-${round}.sqlite`)).$client;
  db.run('PRAGMA synchronous = NORMAL');
  if (shape.setup) db.run(shape.setup);
  const insert = db.prepare(shape.insert);
  const ids = Array.from({ length: calls }, () => newCallId());
  let next = 0;
  const perTransaction = Math.max(clients, shape.perStatement);
  return () => {
    for (let i = 0; i < calls; i += perTransaction) {
      db.transaction(() => {
        for (let j = 0; j < perTransaction; j += shape.perStatement) {
          const args: unknown[] = [];
          for (let k = 0; k < shape.perStatement; k++) args.push(...shape.values(ids[next++]!));
          insert.run(...(args as never[]));
        }
      }).immediate();
    }
    db.close();
  };
}

/** Paid calls' ledger work as the gateway does it: `clients` debits per turn, each awaited, with or without its usage row. */
function ledgerCalls(round: number, withUsage: boolean) {
  const db = openDatabase(join(dir, `ledger-${withUsage}-${round}.sqlite`));
  const ledger = new Ledger(db, 'normal');
  ledger.credit(WALLET, 10n ** 15n, 0);
  const usage = new UsageLog(db, ledger, 30, silentLogger);
  const call = async () => {
    const debit = await ledger.debit(WALLET, 1000, newCallId());
    if (withUsage) usage.record(debit!, { capability: 'optimal-fee', face: 'rest', at: Date.now(), status: 200, refunded: false });
  };
  return async () => {
    for (let i = 0; i < calls; i += clients) await Promise.all(Array.from({ length: clients }, call));
    await usage.settled();
    db.$client.close();
  };
}

console.log(`command: bun bench/paid-ledger.ts ${calls} ${clients} ${rounds}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, bun ${Bun.version}, database in ${tmpdir()}\n`);
try {
  console.log('bun:sqlite alone, µs of CPU per row (the best of the rounds):');
  for (const name of Object.keys(ROW_SHAPES)) console.log(`  ${name.padEnd(54)} ${(await best(calls, (r) => rowFloor(name, r))).toFixed(2)}`);
  console.log(`\nthe Ledger, ${clients} debits of one wallet per group commit, µs of CPU per paid call:`);
  const debitOnly = await best(calls, (r) => ledgerCalls(r, false));
  const withRow = await best(calls, (r) => ledgerCalls(r, true));
  console.log(`  the debit alone (its record and its account, group committed)  ${debitOnly.toFixed(2)}`);
  console.log(`  the debit and its usage row                                     ${withRow.toFixed(2)}  (the row: ${(withRow - debitOnly).toFixed(2)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
