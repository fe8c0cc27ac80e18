// Transaction errors (meta.err) -> readable text.
//
// Shapes seen from nodes: {"InstructionError":[2,{"Custom":30}]}, {"InstructionError":[0,"IncorrectProgramId"]},
// {"InstructionError":[0,{"BorshIoError":"..."}]}, "InsufficientFundsForFee",
// {"InsufficientFundsForRent":{"account_index":3}}, {"DuplicateInstruction":2}.
// Only structured error data and the runtime-written `Program <id> failed: ...` log line are used, never
// free text a program logged ("Program log: ..."), so nothing a program chose to print reaches a prompt.

import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../program-ids';
import { programLabel } from './classify';

/** Well-known custom error codes, keyed by the program that raised them. Each checked against a fixture. */
const KNOWN_CUSTOM_ERRORS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  // Jupiter v6: sendTransaction-preflight-error/jupiter-*-6001 logs "Error Code: SlippageToleranceExceeded. Error Number: 6001".
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: { 6001: 'SlippageToleranceExceeded' },
  // Raydium AMM v4 (AmmError in raydium-io/raydium-amm program/src/error.rs): 30 logs "exceeds desired slippage
  // limit" (getTransaction/failed-raydium-...-custom30), 40 logs "insufficient funds" (preflight raydium-v4-...-0x28).
  '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8': { 30: 'ExceededSlippage', 40: 'InsufficientFunds' },
  // System program (SystemError in solana-system-interface): 1 is what a transfer beyond the balance
  // raises (sandbox tests run the real program); 0 when creating an account that exists.
  [SYSTEM_PROGRAM]: { 0: 'AccountAlreadyInUse', 1: 'ResultWithNegativeLamports' },
  // SPL Token and Token-2022 (TokenError): 1 is a transfer beyond the token balance (sandbox tests).
  [TOKEN_PROGRAM]: { 1: 'InsufficientFunds' },
  [TOKEN_2022_PROGRAM]: { 1: 'InsufficientFunds' },
};

export interface TransactionErrorInfo {
  /** Readable text, e.g. "custom program error 0x1e (30, ExceededSlippage)". */
  readonly message: string;
  /** Top-level instruction that failed, for instruction errors. */
  readonly instructionIndex: number | null;
  /** Program of that top-level instruction. */
  readonly programId: string | null;
  /** Program that raised the error (first runtime `Program <id> failed:` log line), when logs tell. */
  readonly failedProgramId: string | null;
  /** Custom program error code, when it is one. */
  readonly customCode: number | null;
  /** Error variant or well-known custom error name (e.g. 'IncorrectProgramId', 'SlippageToleranceExceeded'). */
  readonly name: string | null;
}

export interface ErrorContext {
  /** Program id of top-level instruction i. */
  readonly programIdOf?: (instructionIndex: number) => string | undefined;
  readonly logs?: readonly string[];
}

const FAILED_LINE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) failed: /;

const isUpper = (c: string | undefined) => c !== undefined && c >= 'A' && c <= 'Z';
const isLower = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * "IncorrectProgramId" -> "incorrect program id", "HTTPServer" -> "http server". One pass over the text:
 * the regex pair this replaces backtracked quadratically on a long upper-case run (a node-sent variant
 * name of 60k characters blocked the event loop for seconds).
 */
function humanize(variant: string): string {
  let out = '';
  for (let i = 0; i < variant.length; i++) {
    const c = variant[i]!;
    const prev = variant[i - 1];
    if (isUpper(c) && (isLower(prev) || isDigit(prev) || (isUpper(prev) && isLower(variant[i + 1])))) out += ' ';
    out += c;
  }
  return out.toLowerCase();
}

/** Keep unknown error payloads printable and short (they come from the node, but keep prompts clean). */
function sanitize(text: string): string {
  const clean = text.replace(/[^A-Za-z0-9_ :{}[\],."'-]/g, '');
  return clean.length > 160 ? `${clean.slice(0, 157)}...` : clean;
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  return null;
}

/** A single-key object {Variant: payload} as [Variant, payload]. */
function variantOf(value: unknown): [string, unknown] | null {
  if (typeof value === 'string') return [value, undefined];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1) return [keys[0]!, (value as Record<string, unknown>)[keys[0]!]];
  }
  return null;
}

function describeVariant(variant: string, payload: unknown): string {
  const name = sanitize(variant);
  const words = `${humanize(name)} (${name}`;
  if (payload === undefined || payload === null) return `${words})`;
  const accountIndex =
    typeof payload === 'object' && !Array.isArray(payload) ? asNumber((payload as Record<string, unknown>).account_index) : null;
  if (accountIndex !== null) return `${words}, account index ${accountIndex})`;
  return `${words}: ${sanitize(typeof payload === 'string' ? payload : stringify(payload))})`;
}

/** Readable description of a transaction error; null when `err` is null/undefined (success). */
export function describeTransactionError(err: unknown, context: ErrorContext = {}): TransactionErrorInfo | null {
  if (err === null || err === undefined) return null;
  const failedLine = context.logs?.map((l) => FAILED_LINE.exec(l)).find((m) => m);
  const failedProgramId = failedLine?.[1] ?? null;

  const top = variantOf(err);
  if (top && top[0] === 'InstructionError' && Array.isArray(top[1]) && top[1].length === 2) {
    const [rawIndex, inner] = top[1];
    const instructionIndex = asNumber(rawIndex);
    const programId = instructionIndex !== null ? (context.programIdOf?.(instructionIndex) ?? null) : null;
    const variant = variantOf(inner);
    if (variant && variant[0] === 'Custom') {
      const code = asNumber(variant[1]);
      if (code !== null) {
        const raisedBy = failedProgramId ?? programId;
        const name = (raisedBy && KNOWN_CUSTOM_ERRORS[raisedBy]?.[code]) ?? null;
        return {
          message: `custom program error 0x${code.toString(16)} (${code}${name ? `, ${name}` : ''})`,
          instructionIndex,
          programId,
          failedProgramId,
          customCode: code,
          name,
        };
      }
    }
    return {
      message: variant ? describeVariant(variant[0], variant[1]) : sanitize(stringify(inner)),
      instructionIndex,
      programId,
      failedProgramId,
      customCode: null,
      name: variant ? sanitize(variant[0]) : null,
    };
  }
  return {
    message: top ? describeVariant(top[0], top[1]) : sanitize(stringify(err)),
    instructionIndex: null,
    programId: null,
    failedProgramId,
    customCode: null,
    name: top ? sanitize(top[0]) : null,
  };
}

/** "instruction 2 (Raydium AMM v4) failed: custom program error 0x1e (30, ExceededSlippage)". */
export function formatTransactionError(info: TransactionErrorInfo): string {
  if (info.instructionIndex === null) return `transaction rejected: ${info.message}`;
  const where = info.programId ? ` (${programLabel(info.programId)})` : '';
  const raisedBy =
    info.failedProgramId && info.failedProgramId !== info.programId ? `, raised by ${programLabel(info.failedProgramId)}` : '';
  return `instruction ${info.instructionIndex}${where} failed: ${info.message}${raisedBy}`;
}
