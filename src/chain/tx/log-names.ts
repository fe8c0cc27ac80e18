// Instruction names a program printed itself (pure): Anchor and many native programs log
// `Program log: Instruction: <Name>` when they start an instruction. The runtime writes the
// `Program <id> invoke [depth]`, `success` and `failed` lines around each invocation and prefixes whatever a
// program prints with "Program log: ", so a program cannot forge the frame lines; it can print any text after
// its own prefix. A line therefore names only the invocation running when it was printed, and only when it is
// an identifier: log text reaches summaries and llm_context.

import { snakeCase } from './idl';

const INVOKE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) invoke \[(\d{1,2})\]$/;
const DONE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) (success|failed: )/;
const INSTRUCTION_PREFIX = 'Program log: Instruction: ';
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Longer lines are no name, and are not fed to a pattern. */
const MAX_LINE = INSTRUCTION_PREFIX.length + 64;
/** The runtime's marker when it cut a transaction's logs short: nothing after it can be placed. */
const TRUNCATED = 'Log truncated';

/** The name a top-level invocation printed for itself, by its program id. */
export interface LoggedName {
  readonly programId: string;
  /** snake_case, as the tables spell names; null when the program printed none. */
  readonly name: string | null;
}

/** One invocation the logs hold, at any depth, with the name it printed itself. */
export interface LoggedInvocation extends LoggedName {
  /** 1 for a top-level instruction, 2 for a program it called, and so on. */
  readonly depth: number;
  /** The program that invoked it (null at depth 1). */
  readonly caller: string | null;
  /** Which top-level invocation it ran under (0-based, in order). */
  readonly topLevel: number;
}

/**
 * Every invocation, in the order the runtime started them, each with the first `Instruction: <Name>` line it
 * printed itself (not one printed by a program it called). Reading stops at a frame line that does not fit
 * the stack (a depth that skips or repeats, a `success` for another program) and at "Log truncated": the
 * invocations from there on are unknown and left out.
 */
export function invocationsFromLogs(logs: readonly string[]): LoggedInvocation[] {
  const out: { programId: string; name: string | null; depth: number; caller: string | null; topLevel: number }[] = [];
  // the invocations running, innermost last, by their index in `out`
  const stack: number[] = [];
  let topLevel = -1;
  for (const line of logs) {
    if (line.length > 200) continue; // no frame line and no name is this long
    if (line === TRUNCATED) break;
    const invoke = INVOKE.exec(line);
    if (invoke) {
      const depth = Number(invoke[2]);
      if (depth !== stack.length + 1) break;
      if (depth === 1) topLevel++;
      const caller = stack.length > 0 ? out[stack[stack.length - 1]!]!.programId : null;
      stack.push(out.length);
      out.push({ programId: invoke[1]!, name: null, depth, caller, topLevel });
      continue;
    }
    const done = DONE.exec(line);
    if (done) {
      if (stack.length === 0 || out[stack[stack.length - 1]!]!.programId !== done[1]) break;
      stack.pop();
      continue;
    }
    if (stack.length === 0 || !line.startsWith(INSTRUCTION_PREFIX) || line.length > MAX_LINE) continue;
    const current = out[stack[stack.length - 1]!]!;
    const name = line.slice(INSTRUCTION_PREFIX.length);
    if (current.name === null && NAME.test(name)) current.name = snakeCase(name);
  }
  return out;
}

/**
 * One entry per top-level invocation (`invoke [1]`), in order: its program and the first
 * `Instruction: <Name>` line it printed itself (see invocationsFromLogs).
 */
export function topLevelNamesFromLogs(logs: readonly string[]): LoggedName[] {
  return invocationsFromLogs(logs)
    .filter((entry) => entry.depth === 1)
    .map(({ programId, name }) => ({ programId, name }));
}

/** Precompiles: verified before the transaction runs, never invoked, so they log no `invoke [1]` line. */
const PRECOMPILES: ReadonlySet<string> = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

/** The top-level instruction index of each `invoke [1]`, in order: every instruction but the precompiles'. */
function invokedTopLevel(programIds: readonly string[]): number[] {
  return programIds.flatMap((id, i) => (PRECOMPILES.has(id) ? [] : [i]));
}

/**
 * The logged name of each top-level instruction whose invocation the logs hold, by instruction index: the
 * i-th `invoke [1]` is the i-th top-level instruction that is no precompile, and counts only when its program
 * id is that instruction's program.
 */
export function loggedInstructionNames(logs: readonly string[], programIds: readonly string[]): ReadonlyMap<number, string> {
  const names = new Map<number, string>();
  const indexes = invokedTopLevel(programIds);
  topLevelNamesFromLogs(logs).forEach((entry, i) => {
    const index = indexes[i];
    if (entry.name !== null && index !== undefined && programIds[index] === entry.programId) names.set(index, entry.name);
  });
  return names;
}

/** An inner instruction as the logs place it: the invocation it is, and where it ran. */
export interface PlacedInner {
  /** Position in the transaction's flattened inner instructions. */
  readonly innerIndex: number;
  readonly invocation: LoggedInvocation;
}

/**
 * The logs' invocation of each inner instruction: under the i-th top-level instruction (whose program must be
 * the i-th top-level invocation's), the k-th invocation deeper than 1 is its k-th inner instruction, and counts
 * only while program and depth agree (the node's stack height, when it sent one); the first disagreement ends
 * what can be placed under that instruction.
 */
export function placeInnerInstructions(
  logs: readonly string[],
  topLevelProgramIds: readonly string[],
  inner: readonly { readonly topLevelIndex: number; readonly programId: string; readonly stackHeight: number | null }[],
): PlacedInner[] {
  // by top-level instruction index (the logs count only the invoked ones: precompiles are skipped)
  const indexes = invokedTopLevel(topLevelProgramIds);
  const byTop = new Map<number, LoggedInvocation[]>();
  const tops = new Map<number, string>();
  for (const entry of invocationsFromLogs(logs)) {
    const index = indexes[entry.topLevel];
    if (index === undefined) break;
    if (entry.depth === 1) tops.set(index, entry.programId);
    else {
      const list = byTop.get(index);
      if (list) list.push(entry);
      else byTop.set(index, [entry]);
    }
  }
  const placed: PlacedInner[] = [];
  const seen = new Map<number, number>();
  const broken = new Set<number>();
  inner.forEach((ix, innerIndex) => {
    const top = ix.topLevelIndex;
    if (broken.has(top) || tops.get(top) !== topLevelProgramIds[top]) return;
    const k = seen.get(top) ?? 0;
    seen.set(top, k + 1);
    const invocation = byTop.get(top)?.[k];
    if (!invocation || invocation.programId !== ix.programId || (ix.stackHeight !== null && ix.stackHeight !== invocation.depth)) {
      broken.add(top);
      return;
    }
    placed.push({ innerIndex, invocation });
  });
  return placed;
}
