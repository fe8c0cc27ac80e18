// How long a page of the usage history takes on a real SQLite file when one wallet has many calls
// paid by key and many paid with x402 (others' rows beside them): the first page, and pages deep in
// the history reached by cursor, with and without x402 rows to merge.
// Run: bun bench/usage-pages.ts [rows of each kind for the wallet] [pages timed per case]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/client.ts';
import { usageEvents, x402Payments } from '../src/db/schema.ts';
import { Ledger } from '../src/billing/backend/sqlite/ledger.ts';
import { UsageLog } from '../src/billing/backend/sqlite/usage.ts';
import { parseCursor } from '../src/billing/usage-pages.ts';
import { silentLogger } from '../src/log.ts';

const rows = Number(process.argv[2] ?? 50_000);
const pages = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'cig-usage-pages-'));
const db = openDatabase(join(dir, 'u.sqlite'));
const usage = new UsageLog(db, new Ledger(db), 30, silentLogger);
const t0 = Date.now() - 86_400_000;

db.$client.transaction(() => {
  for (const wallet of ['key-only', 'both', 'other']) {
    for (let i = 0; i < rows; i += 500) {
      const n = Math.min(500, rows - i);
      db.insert(usageEvents).values(Array.from({ length: n }, (_, j) => ({ wallet, at: t0 + (i + j) * 2, capability: 'find-ata', face: 'rest' as const, paidWith: 'credit' as const, lamports: 2_200_000n, refunded: false, status: 200 }))).run();
      if (wallet === 'key-only') continue;
      db.insert(x402Payments)
        .values(Array.from({ length: n }, (_, j) => ({ txKey: `${wallet}-${i + j}`, network: 'mainnet-beta', payer: wallet, asset: 'USDC', amount: 10_000, payTo: 'gw', capability: 'token-profile', face: 'mcp' as const, status: 'settled' as const, signature: `sig-${wallet}-${i + j}`, createdAt: t0 + (i + j) * 2 + 1, settledAt: t0 + (i + j) * 2 + 2 })))
        .run();
    }
  }
})();

function time(wallet: string, depth: number, limit: number): { p50: number; p99: number } {
  // The cursor `depth` rows down, found by walking there once.
  let cursor = {};
  for (let walked = 0; walked < depth; walked += 100) cursor = parseCursor(usage.page(wallet, 100, cursor).nextCursor!)!;
  const times: number[] = [];
  for (let i = 0; i < pages; i++) {
    const start = performance.now();
    usage.page(wallet, limit, cursor);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(pages / 2)]!, p99: times[Math.floor(pages * 0.99)]! };
}

console.log(`${rows} rows of each kind per wallet; ${pages} pages timed per case (ms)`);
for (const wallet of ['key-only', 'both']) {
  for (const depth of [0, Math.floor(rows / 2)]) {
    for (const limit of [20, 100]) {
      const { p50, p99 } = time(wallet, depth, limit);
      console.log(`${wallet.padEnd(8)} depth ${String(depth).padStart(6)} limit ${String(limit).padStart(3)}: p50 ${p50.toFixed(3)} p99 ${p99.toFixed(3)}`);
    }
  }
}
db.$client.close();
rmSync(dir, { recursive: true, force: true });
