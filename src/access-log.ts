// The access line: one per answered request, in the log's format (JSON or text), with the fields
// an operator reads (method, route template, status, duration, face, key id, client address,
// upstream calls). It is built as one string straight from its values: no fields object, no
// logger record, no redaction pass (together about 40 µs of CPU a cached call, more than the
// call itself: bench/ab.ts configs blockhash). Every value comes from a closed set or was
// checked: a method from a fixed list, a route template, a status, numbers, a hex digest, an
// address that is an IP (or Bun's peer), so none can carry a secret or break the line.
import type { Logger } from './log.ts';

/** Keys remembered with their id; a client sending a new key per request costs a hash each, not memory. */
const MAX_KEY_IDS = 10_000;

/**
 * The key id of the line, computed once per key: the first 12 hex digits of `hash` (the key's
 * digest as stored), enough to find the key row, useless as a key.
 */
function keyIds(hash: (key: string) => string): (key: string) => string {
  const ids = new Map<string, string>();
  return (key) => {
    let id = ids.get(key);
    if (id !== undefined) return id;
    id = hash(key).slice(0, 12);
    if (ids.size >= MAX_KEY_IDS) ids.clear();
    ids.set(key, id);
    return id;
  };
}

// Lines of the same millisecond share their timestamp.
let stampedAt = 0;
let stamp = '';
const now = () => {
  const ms = Date.now();
  if (ms !== stampedAt) {
    stampedAt = ms;
    stamp = new Date(ms).toISOString();
  }
  return stamp;
};

export type AccessLine = (method: string, route: string, status: number, seconds: number, face: string, key: string | undefined, client: string, upstreamCalls: number) => void;

/** Writes access lines to `log` in its format (use it only when `log` writes info lines). */
export function accessLog(log: Logger, hashKey: (key: string) => string): AccessLine {
  const json = log.format === 'json';
  const keyIdOf = keyIds(hashKey);
  return (method, route, status, seconds, face, key, client, upstreamCalls) => {
    const durationMs = Math.round(seconds * 1e6) / 1e3;
    const keyId = key ? keyIdOf(key) : null;
    log.line(
      json
        ? `{"level":"info","time":"${now()}","message":"request","kind":"access","method":"${method}","route":"${route}","status":${status},"durationMs":${durationMs},"face":"${face}","keyId":${keyId ? `"${keyId}"` : 'null'},"client":"${client}","upstreamCalls":${upstreamCalls}}`
        : `${now()} INFO  request kind=access method=${method} route=${route} status=${status} durationMs=${durationMs} face=${face} keyId=${keyId} client=${client} upstreamCalls=${upstreamCalls}`,
    );
  };
}
