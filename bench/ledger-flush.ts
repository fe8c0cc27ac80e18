// How long one group-commit flush holds the event loop, by batch size, under each LEDGER_SYNC
// setting, on a real SQLite file: the debits of one event-loop turn are queued at once, and the
// ledger's own flushStats time the synchronous flush (BEGIN IMMEDIATE, the UPDATEs, COMMIT).
// Then, per setting, paid calls as the gateway makes them (a debit and a usage row each, 45 per
// group commit) for long enough that SQLite checkpoints the WAL inside some commits: how long the
// slowest flushes held the event loop, and what share of all flush time they were.
// Run: bun bench/ledger-flush.ts [batches per size] [group commits of paid calls]
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/db/client.ts';
import { Ledger } from '../src/billing/backend/sqlite/ledger.ts';
import { UsageLog } from '../src/billing/backend/sqlite/usage.ts';
import { silentLogger } from '../src/log.ts';
import type { LedgerSync } from '../src/config.ts';
import { newCallId } from '../src/billing/resilience/call-id.ts';

const batches = Number(process.argv[2] ?? 200);
const paidCommits = Number(process.argv[3] ?? 10_000);
const CALLS_PER_COMMIT = 45;
const dir = mkdtempSync(join(tmpdir(), 'cig-flush-'));
/** Each round's flush time (ms), sorted: `round` queues one batch and waits for its answers. */
async function flushTimes(ledger: Ledger, rounds: number, round: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let b = 0; b < rounds; b++) {
    const before = ledger.flushStats.totalMs;
    await round();
    times.push(ledger.flushStats.totalMs - before);
  }
  return times.sort((a, b) => a - b);
}
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
console.log(`command: bun bench/ledger-flush.ts ${batches} ${paidCommits}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, bun ${Bun.version}, database in ${tmpdir()}`);
console.log('sync    debits/batch   flush p50 ms   flush p99 ms   flush max ms   per debit us');
try {
  for (const sync of ['normal', 'full'] as LedgerSync[]) {
    const db = openDatabase(join(dir, `${sync}.sqlite`));
    const ledger = new Ledger(db, sync);
    const wallets = Array.from({ length: 64 }, (_, i) => `wallet-${i}`);
    for (const w of wallets) ledger.credit(w, 10n ** 15n, 0);
    for (const size of [1, 16, 64, 256]) {
      const times = await flushTimes(ledger, batches, () => Promise.all(Array.from({ length: size }, (_, i) => ledger.debit(wallets[i % wallets.length]!, 1000, newCallId()))));
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      console.log(
        `${sync.padEnd(7)} ${String(size).padStart(13)} ${quantile(times, 0.5).toFixed(3).padStart(14)} ${quantile(times, 0.99).toFixed(3).padStart(14)} ${times.at(-1)!.toFixed(3).padStart(14)} ${((mean * 1000) / size).toFixed(1).padStart(14)}`,
      );
    }
    // Paid calls: their usage rows are held and ride along with a later commit, as in the gateway.
    const usage = new UsageLog(db, ledger, 30, silentLogger);
    const flushes = await flushTimes(ledger, paidCommits, () =>
      Promise.all(
        Array.from({ length: CALLS_PER_COMMIT }, (_, i) =>
          ledger.debit(wallets[i % wallets.length]!, 1000, newCallId()).then((d) => void usage.record(d!, { capability: 'find-ata', face: 'rest', at: Date.now(), status: 200, refunded: false })),
        ),
      ),
    );
    ledger.settle();
    const total = flushes.reduce((a, b) => a + b, 0);
    const slow = flushes.filter((t) => t > 5);
    console.log(
      `${sync.padEnd(7)} paid calls, ${paidCommits} group commits of ${CALLS_PER_COMMIT} (one call per wallet): flush p50 ${quantile(flushes, 0.5).toFixed(3)} ms, p99 ${quantile(flushes, 0.99).toFixed(3)} ms, max ${flushes.at(-1)!.toFixed(1)} ms; ` +
        `${slow.length} over 5 ms (checkpoints inside a commit) = ${((100 * slow.reduce((a, b) => a + b, 0)) / total).toFixed(0)} % of all flush time; ${((total * 1000) / (paidCommits * CALLS_PER_COMMIT)).toFixed(2)} us per call`,
    );
    db.$client.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
