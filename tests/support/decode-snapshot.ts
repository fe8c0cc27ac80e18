// The decode answers of every recorded transaction, as a snapshot to compare later answers with
// (tests/unit/tx-additive.test.ts). Written once from the code before a change:
//   bun tests/support/decode-snapshot.ts > tests/fixtures/snapshots/decode-before-issue-42.json
// Only what a reader of the answer sees is kept: raw_logs and llm_context (the summary again) are left out.
//
// The snapshot in tests/fixtures was written before issue 42 AND before issue 41's one answer shape, and is
// kept as written (never regenerated from later code: then it would only compare the code with itself).
// So snapshotOf states today's answer in the words the snapshot has, undoing only issue 41's renames and
// rewordings (docs/api.md's changelog), never what issue 42 changed:
//   programs {programId,name,venue}, every program -> programs: the venues only {name,programId,kind};
//                                                     invokedPrograms: all of them {programId,name}
//   the fee payer's ownerChanges entry              -> balanceChanges (its changes), tokenAccountRentLamports
//   categoryFit 'exact' | 'nearest'                 -> categoryMatched true | false
//   lamports as JSON integers                       -> strings in ownerChanges (feeLamports,
//                                                     tokenAccountRentLamports) and accountChanges (lamports*)
//   tokenAccountRentPaidBy (new), rent another      -> dropped; that rent back in the owner's SOL change
//     wallet paid taken out of a non-signer's SOL
//   summaries of a nearest category ("Invoked X,   -> "Not a swap or transfer: invoked X; ...", the kind after
//     whose instructions ...", "Kind (P): ...")      the programs; failed: "..., not a swap or transfer"

import { describeTransaction, changeView } from '../../src/chain/tx/describe';
import type { ActionKind } from '../../src/chain/tx/instructions';
import { KIND_TEXT } from '../../src/chain/tx/instructions';
import { ownerChangesOf } from '../../src/chain/tx/changes';
import { normalizeTransaction } from '../../src/chain/tx/normalize';
import { rentPaidFor } from '../../src/chain/tx/point-of-view';
import { resolveTokenOwners } from '../../src/chain/tx/token-owners';
import { loadRecorded, recordedTransactionFiles } from './recorded-transactions';

export type SnapshotEntry = Record<string, unknown>;

type Json = Record<string, any>;
const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A nearest category's summary in the words before issue 41 (see the table above). */
function summaryBefore41(summary: string, kind: ActionKind, failed: boolean): string {
  const kindText = KIND_TEXT[kind];
  if (failed) {
    const what = kind === 'unknown' ? 'instructions not recognized' : kindText;
    const before = kind === 'unknown' ? 'not a swap or transfer' : `${kindText}, not a swap or transfer`;
    return summary.replace(`; ${what}: invoked `, `; ${before}: invoked `);
  }
  if (kind === 'unknown') return summary.replace(/(^|; )Invoked ([^;]*), whose instructions the decoder does not recognize; /, '$1Not a swap or transfer: invoked $2; ');
  const lead = new RegExp(`(^|; )${escape(capitalize(kindText))}( \\([^)]*\\))?: (invoked [^;]*); `);
  return summary.replace(lead, (_all, start: string, action = '', invoked: string) => `${start}Not a swap or transfer: ${invoked}; ${kindText}${action}; `);
}

/** Today's answer in the snapshot's field names and forms (the mapping above). */
function before41(body: Json, raw: unknown): Json {
  const { programs, categoryFit, ownerChanges, accountChanges, summary, ...rest } = body;
  const tx = resolveTokenOwners(normalizeTransaction(raw));
  const owners = ownerChangesOf(tx);
  const oldOwnerChanges = (ownerChanges as Json[]).map(({ tokenAccountRentPaidBy: _paidBy, ...o }): Json => {
    const own = owners.find((x) => x.owner === o.owner)!;
    const paidByOthers = !o.signer && rentPaidFor(tx, owners, own) !== null;
    return { ...o, feeLamports: `${o.feeLamports}`, changes: paidByOthers ? own.changes.map(changeView) : o.changes, tokenAccountRentLamports: `${o.tokenAccountRentLamports}` };
  });
  const payer = oldOwnerChanges.find((o) => o.feePayer);
  const out: Json = {
    ...rest,
    summary: categoryFit === 'nearest' ? summaryBefore41(summary, body.kind, body.error !== null) : summary,
    categoryMatched: categoryFit === 'exact',
    programs: (programs as Json[]).filter((p) => p.venue !== null).map((p) => ({ name: p.name, programId: p.programId, kind: p.venue })),
    balanceChanges: payer?.changes ?? [],
    tokenAccountRentLamports: payer?.tokenAccountRentLamports ?? '0',
    invokedPrograms: (programs as Json[]).map((p) => ({ programId: p.programId, name: p.name })),
    ownerChanges: oldOwnerChanges,
    accountChanges: (accountChanges as Json[]).map((a) => ({ ...a, lamportsBefore: `${a.lamportsBefore}`, lamportsAfter: `${a.lamportsAfter}`, lamportsChange: `${a.lamportsChange}` })),
  };
  return out;
}

/** One fixture's answer, decoded as decode-tx does without a wallet and without any chain look-up. */
export async function snapshotOf(file: string): Promise<SnapshotEntry> {
  const raw = await loadRecorded(file);
  const body = describeTransaction(raw, { signature: 'snapshot', network: 'mainnet-beta' }) as unknown as Json;
  const { raw_logs: _logs, llm_context: _context, ...rest } = before41(body, raw);
  return JSON.parse(JSON.stringify(rest)) as SnapshotEntry;
}

/** The snapshot of the fixtures given, keyed by "<dir>/<file>.json". */
export async function snapshotAll(files: readonly string[] = recordedTransactionFiles): Promise<Record<string, SnapshotEntry>> {
  const out: Record<string, SnapshotEntry> = {};
  for (const file of [...files].sort()) out[file] = await snapshotOf(file);
  return out;
}

if (import.meta.main) console.log(JSON.stringify(await snapshotAll(), null, 1));
