// How long one group-commit flush holds the event loop, by batch size, under each LEDGER_SYNC
// setting, on a real SQLite file: the debits of one event-loop turn are queued at once, and the
// ledger's own flushStats time the synchronous flush (BEGIN IMMEDIATE, the UPDATEs, COMMIT).
// Run: bun bench/ledger-flush.ts [batches per size]
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/db/client.ts';
import { Ledger } from '../src/billing/ledger.ts';
import type { LedgerSync } from '../src/config.ts';

const batches = Number(process.argv[2] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'cig-flush-'));
console.log(`command: bun bench/ledger-flush.ts ${batches}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, bun ${Bun.version}, database in ${tmpdir()}`);
console.log('sync    debits/batch   flush p50 ms   flush p99 ms   flush max ms   per debit us');
try {
  for (const sync of ['normal', 'full'] as LedgerSync[]) {
    const db = openDatabase(join(dir, `${sync}.sqlite`));
    const ledger = new Ledger(db, sync);
    const wallets = Array.from({ length: 64 }, (_, i) => `wallet-${i}`);
    for (const w of wallets) ledger.credit(w, 10n ** 15n, 0);
    for (const size of [1, 16, 64, 256]) {
      const times: number[] = [];
      for (let b = 0; b < batches; b++) {
        const before = { ...ledger.flushStats };
        await Promise.all(Array.from({ length: size }, (_, i) => ledger.debit(wallets[i % wallets.length]!, 1000)));
        times.push(ledger.flushStats.totalMs - before.totalMs);
      }
      times.sort((a, b) => a - b);
      const q = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      console.log(
        `${sync.padEnd(7)} ${String(size).padStart(13)} ${q(50).toFixed(3).padStart(14)} ${q(99).toFixed(3).padStart(14)} ${times.at(-1)!.toFixed(3).padStart(14)} ${((mean * 1000) / size).toFixed(1).padStart(14)}`,
      );
    }
    db.$client.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
