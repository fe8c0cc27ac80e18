// The access line is built by hand for speed: it must read exactly as the logger would write the
// same fields, in both formats, so log shippers and operators see no difference.
import { describe, expect, test } from 'bun:test';
import { accessLog } from '../../src/access-log.ts';
import { hashApiKey } from '../../src/billing/keys.ts';
import { createLogger } from '../../src/log.ts';

const KEY = 'cig_3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy3J98t1WpEZ73';

/** The line written by the access log and by the logger for the same fields, without the time. */
function bothWays(format: 'json' | 'text', key: string | undefined) {
  const lines: string[] = [];
  const log = createLogger('info', [], (l) => lines.push(l), format);
  accessLog(log, hashApiKey)('POST', '/mcp', 429, 0.0012345, 'mcp', key, '::ffff:10.0.0.7', 2);
  log.info('request', {
    kind: 'access',
    method: 'POST',
    route: '/mcp',
    status: 429,
    durationMs: 1.235,
    face: 'mcp',
    keyId: key ? hashApiKey(key).slice(0, 12) : null,
    client: '::ffff:10.0.0.7',
    upstreamCalls: 2,
  });
  return lines;
}

describe('access line', () => {
  test('JSON: the same record the logger writes, with a parseable time', () => {
    for (const key of [KEY, undefined]) {
      const [fast, slow] = bothWays('json', key).map((l) => JSON.parse(l));
      expect(Number.isNaN(Date.parse(fast.time))).toBe(false);
      expect({ ...fast, time: 0 }).toEqual({ ...slow, time: 0 });
    }
  });

  test('text: the same line the logger writes', () => {
    for (const key of [KEY, undefined]) {
      const [fast, slow] = bothWays('text', key).map((l) => l.slice(l.indexOf(' ')));
      expect(fast).toBe(slow!);
    }
  });

  test('the key appears only as its id, the first digits of its stored hash', () => {
    const [line] = bothWays('json', KEY);
    expect(line).not.toContain(KEY.slice(4));
    expect(JSON.parse(line!).keyId).toBe(hashApiKey(KEY).slice(0, 12));
  });

  test('a client sending a new key on every request gets each its own id', () => {
    const lines: string[] = [];
    const write = accessLog(createLogger('info', [], (l) => lines.push(l), 'json'), hashApiKey);
    const keys = Array.from({ length: 12_000 }, (_, i) => `cig_${i}`);
    for (const key of [...keys, ...keys.slice(0, 5)]) write('GET', '/api/keys/me', 401, 0, 'rest', key, '127.0.0.1', 0);
    const ids = lines.map((l) => JSON.parse(l).keyId as string);
    expect(ids.slice(0, 12_000)).toEqual(keys.map((k) => hashApiKey(k).slice(0, 12)));
    expect(ids.slice(12_000)).toEqual(ids.slice(0, 5));
  });
});
