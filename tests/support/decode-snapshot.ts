// The decode answers of every recorded transaction, as a snapshot to compare later answers with
// (tests/unit/tx-additive.test.ts). Written once from the code before a change:
//   bun tests/support/decode-snapshot.ts > tests/fixtures/snapshots/decode-before-issue-42.json
// Only what a reader of the answer sees is kept: raw_logs and llm_context (the summary again) are left out.

import { describeTransaction } from '../../src/chain/tx/describe';
import { loadRecorded, recordedTransactionFiles } from './recorded-transactions';

export type SnapshotEntry = Record<string, unknown>;

/** One fixture's answer, decoded as decode-tx does without a wallet and without any chain look-up. */
export async function snapshotOf(file: string): Promise<SnapshotEntry> {
  const body = describeTransaction(await loadRecorded(file), { signature: 'snapshot', network: 'mainnet-beta' }) as unknown as Record<string, unknown>;
  const { raw_logs: _logs, llm_context: _context, ...rest } = body;
  return JSON.parse(JSON.stringify(rest)) as SnapshotEntry;
}

/** The snapshot of the fixtures given, keyed by "<dir>/<file>.json". */
export async function snapshotAll(files: readonly string[] = recordedTransactionFiles): Promise<Record<string, SnapshotEntry>> {
  const out: Record<string, SnapshotEntry> = {};
  for (const file of [...files].sort()) out[file] = await snapshotOf(file);
  return out;
}

if (import.meta.main) console.log(JSON.stringify(await snapshotAll(), null, 1));
