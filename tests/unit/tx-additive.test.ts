// Issue 42's promise: no earlier fixture's answer changes except where it gains a name, a venue or an owner.
// Every recorded transaction is decoded now and compared with its answer before the change (the snapshot
// tests/support/decode-snapshot.ts wrote from the code as it was): what it had, it still has. The snapshot
// predates issue 41's answer shape too; snapshotOf states today's answer in the snapshot's field names and
// wording (its header lists the mapping), so only issue 42's changes are judged here.

import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type SnapshotEntry, snapshotOf } from '../support/decode-snapshot';

const BEFORE: Record<string, SnapshotEntry> = await Bun.file(join(import.meta.dir, '../fixtures/snapshots/decode-before-issue-42.json')).json();

interface ActionLike {
  instructionIndex: number;
  inner: boolean;
  programId: string;
  program: string | null;
  name: string | null;
  kind: string;
  source: string;
}

interface AccountChangeLike {
  address: string;
  token: { owner: string | null } | null;
}

/** Fields no change of issue 42 may touch. */
const UNCHANGED = ['signature', 'network', 'details', 'feePayer', 'signers', 'error'];
/**
 * Fields only an owner or a venue found may change: an order placed and settled reads as the swap it was once
 * both legs are known; an old AMM's trade, once its program is a venue, as a swap.
 */
const UNCHANGED_BUT_FOR_GAINS = ['category', 'categoryMatched', 'kind'];

type Program = { programId: string; name: string | null };

/** `after` holds `before` in order, each the same or, where it had no name, named now. */
function programsKept(before: readonly Program[], after: readonly Program[]): boolean {
  let at = 0;
  return before.every((old) => {
    while (at < after.length && after[at]!.programId !== old.programId) at++;
    const now = after[at++];
    return now !== undefined && JSON.stringify({ ...now, name: old.name === null ? null : now.name }) === JSON.stringify(old);
  });
}

/**
 * Each action of before is in after, in order, the same but for a name it gained (null before, and then only
 * from the program's IDL or log); after may hold more (inner actions and logged parents).
 */
function actionsKept(before: readonly ActionLike[], after: readonly ActionLike[]): string[] {
  const problems: string[] = [];
  let at = 0;
  for (const old of before) {
    // an instruction a log named whose program is now in a table takes the table's kind (the same name)
    const nowTabled = (a: ActionLike) => old.source === 'log' && a.source === 'table' && a.name === old.name;
    const same = (a: ActionLike) => a.instructionIndex === old.instructionIndex && a.programId === old.programId && a.inner === old.inner && (a.kind === old.kind || nowTabled(a));
    while (at < after.length && !same(after[at]!)) at++;
    const now = after[at];
    if (!now) {
      problems.push(`lost action ${JSON.stringify(old)}`);
      continue;
    }
    at++;
    if (old.name !== null && now.name !== old.name) problems.push(`renamed ${old.name} -> ${now.name}`);
    if (old.name === null && now.name !== null && now.source !== 'idl' && now.source !== 'log') problems.push(`named ${now.name} from ${now.source}`);
    // a name a log gave may now come from a table, the same name
    const tabled = old.source === 'log' && now.source === 'table';
    if (old.name !== null && now.source !== old.source && !tabled) problems.push(`source ${old.source} -> ${now.source} for ${old.name}`);
    if (old.program !== null && old.program !== now.program) problems.push(`program ${old.program} -> ${now.program}`);
  }
  return problems;
}

/** Words of `before` in order within `after`: text only added (a venue named), none taken away or changed. */
function wordsKept(before: string, after: string): boolean {
  const words = after.split(/\s+/);
  let at = 0;
  for (const word of before.split(/\s+/)) {
    while (at < words.length && words[at] !== word) at++;
    if (at === words.length) return false;
    at++;
  }
  return true;
}

const ownerless = (entry: SnapshotEntry) => (entry.accountChanges as AccountChangeLike[]).filter((c) => c.token !== null && c.token.owner === null).length;

describe('every earlier fixture keeps its answer, gaining only names, venues and owners', () => {
  for (const file of Object.keys(BEFORE)) {
    test(file, async () => {
      const before = BEFORE[file]!;
      const after = await snapshotOf(file);
      for (const field of UNCHANGED) expect({ field, value: after[field] }).toEqual({ field, value: before[field] });
      // venues and invoked programs: the same, in order, or more, or named where they had no name
      expect(programsKept(before.programs as Program[], after.programs as Program[])).toBe(true);
      expect(programsKept(before.invokedPrograms as Program[], after.invokedPrograms as Program[])).toBe(true);
      expect((after.invokedPrograms as Program[]).length).toBe((before.invokedPrograms as Program[]).length);
      const venuesGained = (after.programs as Program[]).length > (before.programs as Program[]).length;
      expect(actionsKept(before.actions as ActionLike[], after.actions as ActionLike[])).toEqual([]);

      // an account's owner is never changed, only found where it was unknown
      const beforeAccounts = before.accountChanges as AccountChangeLike[];
      const afterAccounts = after.accountChanges as AccountChangeLike[];
      expect(afterAccounts.map((c) => c.address)).toEqual(beforeAccounts.map((c) => c.address));
      beforeAccounts.forEach((old, i) => {
        const now = afterAccounts[i]!;
        const owner = old.token?.owner === null ? null : now.token?.owner;
        expect(now.token ? { ...now, token: { ...now.token, owner } } : now).toEqual(old);
      });
      const ownersGained = ownerless(after) < ownerless(before);

      if (!ownersGained && !venuesGained) {
        for (const field of UNCHANGED_BUT_FOR_GAINS) expect({ field, value: after[field] }).toEqual({ field, value: before[field] });
        // what moved, for whom, is the same; the summary only gains words (a venue, a name)
        expect(after.ownerChanges).toEqual(before.ownerChanges);
        expect(after.balanceChanges).toEqual(before.balanceChanges);
        expect(after.tokenAccountRentLamports).toEqual(before.tokenAccountRentLamports);
        expect({ wordsKept: wordsKept(before.summary as string, after.summary as string), before: before.summary, after: after.summary }).toMatchObject({ wordsKept: true });
      } else {
        // owners found: every owner that was told before is told the same, unless it gained accounts; a
        // counterparty that was an owner-less token account is now that account's owner
        const found = new Map(afterAccounts.flatMap((c, i) => (beforeAccounts[i]!.token?.owner === null && c.token?.owner ? [[c.address, c.token.owner] as const] : [])));
        const gained = new Set(found.values());
        type Owner = { owner: string; changes: { counterparty: string | null }[] };
        for (const old of before.ownerChanges as Owner[]) {
          if (gained.has(old.owner)) continue;
          const expected = { ...old, changes: old.changes.map((c) => ({ ...c, counterparty: found.get(c.counterparty ?? '') ?? c.counterparty })) };
          expect((after.ownerChanges as Owner[]).find((o) => o.owner === old.owner)).toEqual(expected);
        }
      }
    });
  }
});
