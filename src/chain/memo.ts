// The memo field of getSignaturesForAddress as the node writes it: each memo instruction's data as
// "[<byte length>] <text>" ("(unparseable)" for data that is not UTF-8), several joined by "; ".
// An agent wants the text: the length prefixes go, read by the byte length each states, so a memo
// that itself holds "; [3] " is not cut. Pure.

const PREFIX = /^\[(\d{1,5})\] /;
const UNPARSEABLE = '(unparseable)';
const SEPARATOR = '; ';

/** The memos' texts without the node's length prefixes, joined by "; "; null when the node sent none. */
export function memoText(memo: string | null): string | null {
  if (memo === null) return null;
  const texts: string[] = [];
  let rest = memo;
  while (rest.length > 0) {
    const prefix = PREFIX.exec(rest);
    // not the node's format (another node, or a proxy's rewrite): the text as it came
    if (!prefix) return texts.length === 0 ? memo : [...texts, rest].join(SEPARATOR);
    const body = rest.slice(prefix[0].length);
    const bytes = Buffer.from(body, 'utf8');
    const stated = Number(prefix[1]);
    const exact = bytes.subarray(0, stated).toString('utf8');
    const after = body.slice(exact.length);
    const fits = Buffer.byteLength(exact, 'utf8') === stated && (after === '' || (after.startsWith(SEPARATOR) && PREFIX.test(after.slice(SEPARATOR.length))));
    const text = fits ? exact : body.startsWith(UNPARSEABLE) ? UNPARSEABLE : body;
    texts.push(text);
    rest = body.slice(text.length);
    if (rest.startsWith(SEPARATOR)) rest = rest.slice(SEPARATOR.length);
    else if (rest.length > 0) return [...texts, rest].join(SEPARATOR);
  }
  return texts.join(SEPARATOR);
}
