// `bun run test:outage [runs]`: runs tests/integration/storage-outage-pg.test.ts `runs` times in a
// row (default 10) and counts, per outage mode, the runs in which each fact held. An outage is a
// race between the database and the calls in flight: one run passing says little, ten say more.
// OUTAGE_MODES passes through (immediate,kill9,fast by default).
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 10);
if (!Number.isInteger(runs) || runs < 1) throw new Error('usage: bun run test:outage [runs]');
const file = join(import.meta.dir, '../integration/storage-outage-pg.test.ts');

/** held[mode][fact]: runs in which the fact held. */
const held: Record<string, Record<string, number>> = {};
const seen: Record<string, number> = {};
let passedRuns = 0;
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  const proc = Bun.spawn(['bun', 'test', '--timeout', '60000', file], { stdout: 'pipe', stderr: 'pipe', env: process.env });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const facts = [...`${out}\n${err}`.matchAll(/^OUTAGE-FACTS (\S+) (\{.*?\}) (\{.*\})$/gm)];
  for (const [, mode, json] of facts) {
    seen[mode!] = (seen[mode!] ?? 0) + 1;
    const byFact = (held[mode!] ??= {});
    for (const [fact, ok] of Object.entries(JSON.parse(json!) as Record<string, boolean>)) byFact[fact] = (byFact[fact] ?? 0) + (ok ? 1 : 0);
  }
  if (code === 0) passedRuns++;
  const failed = facts.flatMap(([, mode, json]) => Object.entries(JSON.parse(json!) as Record<string, boolean>).filter(([, ok]) => !ok).map(([f]) => `${mode}:${f}`));
  console.log(`run ${run}/${runs}: ${code === 0 ? 'pass' : 'FAIL'} in ${Math.round((Date.now() - started) / 1000)} s${failed.length ? ` (${failed.join(', ')})` : ''}${facts.length === 0 ? ' (no facts printed: see the test output)' : ''}`);
  if (facts.length === 0) console.log(err.split('\n').slice(-30).join('\n'));
}

console.log(`\n${passedRuns}/${runs} runs passed. Runs in which each fact held, by mode:`);
const modes = Object.keys(held);
const facts = [...new Set(modes.flatMap((m) => Object.keys(held[m]!)))];
const width = Math.max(...facts.map((f) => f.length));
console.log(`${''.padEnd(width)}  ${modes.map((m) => m.padStart(10)).join('')}`);
// A fact a mode does not check (a restart is too quick to call during it) shows as "-".
for (const f of facts) console.log(`${f.padEnd(width)}  ${modes.map((m) => (f in held[m]! ? `${held[m]![f]}/${seen[m]}` : '-').padStart(10)).join('')}`);
process.exit(passedRuns === runs ? 0 : 1);
