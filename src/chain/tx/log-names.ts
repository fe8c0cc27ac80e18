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

/**
 * One entry per top-level invocation (`invoke [1]`), in order: its program and the first
 * `Instruction: <Name>` line it printed itself (not one printed by a program it called). Reading stops at a
 * frame line that does not fit the stack (a depth that skips or repeats, a `success` for another program) and
 * at "Log truncated": the invocations from there on are unknown and left out.
 */
export function topLevelNamesFromLogs(logs: readonly string[]): LoggedName[] {
  const out: { programId: string; name: string | null }[] = [];
  const stack: string[] = [];
  for (const line of logs) {
    if (line.length > 200) continue; // no frame line and no name is this long
    if (line === TRUNCATED) break;
    const invoke = INVOKE.exec(line);
    if (invoke) {
      if (Number(invoke[2]) !== stack.length + 1) break;
      stack.push(invoke[1]!);
      if (stack.length === 1) out.push({ programId: invoke[1]!, name: null });
      continue;
    }
    const done = DONE.exec(line);
    if (done) {
      if (stack[stack.length - 1] !== done[1]) break;
      stack.pop();
      continue;
    }
    if (stack.length !== 1 || !line.startsWith(INSTRUCTION_PREFIX) || line.length > MAX_LINE) continue;
    const current = out[out.length - 1]!;
    const name = line.slice(INSTRUCTION_PREFIX.length);
    if (current.name === null && NAME.test(name)) current.name = snakeCase(name);
  }
  return out;
}

/**
 * The logged name of each top-level instruction whose invocation the logs hold, by instruction index: the
 * i-th `invoke [1]` is the i-th top-level instruction, and counts only when its program id is that
 * instruction's program.
 */
export function loggedInstructionNames(logs: readonly string[], programIds: readonly string[]): ReadonlyMap<number, string> {
  const names = new Map<number, string>();
  topLevelNamesFromLogs(logs).forEach((entry, i) => {
    if (entry.name !== null && programIds[i] === entry.programId) names.set(i, entry.name);
  });
  return names;
}
