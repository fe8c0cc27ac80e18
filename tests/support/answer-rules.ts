// The rules every decode-tx, decoded-history and simulate answer keeps (issue 41, "one answer shape"), as
// a walk over any JSON answer: it lists each place that breaks one, so a test can assert there is none.
// The wallet-side rent rule needs the transaction's own balances: see tests/unit/tx-answer-shape.test.ts.

/** SPEC.md's snake_case fields; every field the gateway adds is camelCase. */
const SPEC_SNAKE = new Set(['raw_logs', 'llm_context', 'live_status']);
const CAMEL = /^[a-z][a-zA-Z0-9]*$/;
/** A count of lamports: a JSON integer. */
const LAMPORTS = /^lamports|Lamports$|^fee$/;
/** Beside `decimals`, a raw amount (and its exact decimal): a string. */
const RAW_AMOUNTS = new Set(['raw', 'amount', 'before', 'after', 'change']);
const DECIMAL_STRING = /^-?[0-9]+(\.[0-9]+)?$/;
/** Fields that were an empty or partial copy of a fuller one (docs/api.md's changelog says what replaced them). */
const GONE = new Set(['balanceChanges', 'invokedPrograms', 'categoryMatched']);
const NODE_MEMO_PREFIX = /^\[\d+\] /;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInteger = (v: unknown) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';

/** Every break of the answer-shape rules in `answer`, each as "<path>: <what>"; [] when it keeps them all. */
export function answerShapeProblems(answer: unknown, path = '$'): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, at: string) => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${at}[${i}]`));
    if (!isObject(value)) return;
    const hasDecimals = 'decimals' in value;
    for (const [key, v] of Object.entries(value)) {
      const here = `${at}.${key}`;
      if (!CAMEL.test(key) && !SPEC_SNAKE.has(key)) problems.push(`${here}: not camelCase`);
      if (GONE.has(key)) problems.push(`${here}: a field replaced by a fuller one`);
      if (LAMPORTS.test(key) && v !== null && !isInteger(v)) problems.push(`${here}: lamports not a JSON integer (${JSON.stringify(v)})`);
      if (hasDecimals && RAW_AMOUNTS.has(key) && !(typeof v === 'string' && DECIMAL_STRING.test(v))) problems.push(`${here}: raw amount not a decimal string (${JSON.stringify(v)})`);
      if (key === 'memo' && typeof v === 'string' && NODE_MEMO_PREFIX.test(v)) problems.push(`${here}: memo keeps the node's length prefix`);
      if (key === 'error' && v !== null && v !== undefined && !(isObject(v) && typeof v.message === 'string')) problems.push(`${here}: error is not the one error object`);
      // the node's own error object (`err`, `error.raw`) is passed on as the node sent it
      if (key !== 'err' && key !== 'raw') walk(v, here);
    }
    if ('ownerChanges' in value && Array.isArray(value.ownerChanges) && value.ownerChanges.length > 0) {
      const payers = value.ownerChanges.filter((o) => isObject(o) && o.feePayer === true).length;
      if (payers !== 1) problems.push(`${at}.ownerChanges: ${payers} fee payers`);
    }
    if ('categoryFit' in value) problems.push(...categoryProblems(value, at));
  };
  walk(answer, path);
  return problems;
}

/** The category and the words never contradict: a transaction none of the three fits says what it is, and that its category is only the nearest. */
function categoryProblems(body: Json, at: string): string[] {
  const problems: string[] = [];
  const summary = String(body.summary ?? '');
  const context = typeof body.llm_context === 'string' ? body.llm_context : undefined;
  if (/not a swap|not a transfer/i.test(summary)) problems.push(`${at}.summary: denies its own category: ${summary}`);
  if (body.categoryFit === 'nearest') {
    if (context !== undefined && !context.includes('as the nearest of Swap, MemeCoin and Transfer')) problems.push(`${at}.llm_context: does not say the category is only the nearest`);
  } else if (body.categoryFit === 'exact') {
    if (context?.includes('nearest')) problems.push(`${at}.llm_context: calls an exact category the nearest`);
  } else {
    problems.push(`${at}.categoryFit: ${JSON.stringify(body.categoryFit)}`);
  }
  return problems;
}
