// The memo field of getSignaturesForAddress as the node writes it: each memo instruction's data as
// "[<byte length>] <text>" ("(unparseable)" for data that is not UTF-8), several joined by "; ".
// An agent wants the text: the length prefixes go, read by the byte length each states, so a memo
// that itself holds "; [3] " is not cut there. One pass over the bytes (the text is the node's).
// Pure.

const SEPARATOR = '; ';
const UNPARSEABLE = Buffer.from('(unparseable)');
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const SPACE = 0x20;
const SEMICOLON = 0x3b;
/** A memo is at most a transaction's size: a stated length of more digits than this is not the node's prefix. */
const MAX_DIGITS = 5;

/** The "[<n>] " prefix at `at`: the length it states and where the text starts; null when there is none. */
function prefixAt(bytes: Uint8Array, at: number): { length: number; start: number } | null {
  if (bytes[at] !== OPEN) return null;
  let length = 0;
  let i = at + 1;
  while (i < bytes.length && i - at - 1 < MAX_DIGITS && bytes[i]! >= 0x30 && bytes[i]! <= 0x39) length = length * 10 + bytes[i++]! - 0x30;
  if (i === at + 1 || bytes[i] !== CLOSE || bytes[i + 1] !== SPACE) return null;
  return { length, start: i + 2 };
}

/** Whether a memo may end at `end`: the end of the field, or the separator and the next memo's prefix. */
function endsAt(bytes: Uint8Array, end: number): boolean {
  return end === bytes.length || (bytes[end] === SEMICOLON && bytes[end + 1] === SPACE && prefixAt(bytes, end + 2) !== null);
}

/** The memos' texts without the node's length prefixes, joined by "; "; null when the node sent none. */
export function memoText(memo: string | null): string | null {
  if (memo === null) return null;
  const bytes = Buffer.from(memo, 'utf8');
  const texts: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    const prefix = prefixAt(bytes, at);
    // not the node's format (another node, a proxy's rewrite): the rest as it came
    if (!prefix) {
      texts.push(bytes.subarray(at).toString('utf8'));
      break;
    }
    const { start } = prefix;
    const unparseable = bytes.subarray(start, start + UNPARSEABLE.length).equals(UNPARSEABLE);
    const end = endsAt(bytes, start + prefix.length) ? start + prefix.length : unparseable && endsAt(bytes, start + UNPARSEABLE.length) ? start + UNPARSEABLE.length : bytes.length;
    texts.push(bytes.subarray(start, Math.min(end, bytes.length)).toString('utf8'));
    at = end + SEPARATOR.length;
  }
  return texts.join(SEPARATOR);
}
