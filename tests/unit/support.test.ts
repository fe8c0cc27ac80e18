// Small shared pieces: exact JSON for big integers, log redaction, rate-limit buckets, migrations.
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import journal from '../../drizzle/meta/_journal.json';
import { renderMigrationsModule } from '../../src/db/gen-migrations.ts';
import { big, parseJson, toJson } from '../../src/json.ts';
import { createLogger, makeRedactor } from '../../src/log.ts';
import { admission, RateLimiter } from '../../src/billing/rate-limit.ts';

describe('json', () => {
  test('integers beyond 2^53 survive a round trip exactly', () => {
    const text = '{"supply":18446744073709551615,"small":5,"float":1.5}';
    const v = parseJson(text) as Record<string, unknown>;
    expect(v.supply).toBe(18446744073709551615n);
    expect(v.small).toBe(5);
    expect(toJson(v)).toBe(text);
  });
  test('a bigint anywhere, however deep, is written exactly; values without one are plain JSON', () => {
    expect(toJson({ a: [1, { b: [2n ** 64n] }], c: 'x' })).toBe('{"a":[1,{"b":[18446744073709551616]}],"c":"x"}');
    expect(toJson({ a: [1, { b: [2] }], c: 'x' })).toBe(JSON.stringify({ a: [1, { b: [2] }], c: 'x' }));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toJson(cyclic)).toThrow(TypeError);
  });
  test('big() accepts numbers, bigints and digit strings only', () => {
    expect(big(5)).toBe(5n);
    expect(big('8799471343582888521')).toBe(8799471343582888521n);
    expect(() => big(1.5)).toThrow();
    expect(() => big('1e3')).toThrow();
  });
});

describe('log redaction', () => {
  test('configured secrets, API keys and URL paths/queries never reach a line', () => {
    const lines: string[] = [];
    const log = createLogger('debug', ['whsec-abcdef', 'https://rpc.example/?api-key=K1234567'], (l) => lines.push(l));
    log.warn('failed https://rpc.example/?api-key=K1234567 and https://x.quiknode.pro/tok3n/ with whsec-abcdef', { key: 'cig_3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy' });
    const line = lines.join('\n');
    expect(line).not.toContain('K1234567');
    expect(line).not.toContain('tok3n');
    expect(line).not.toContain('whsec-abcdef');
    expect(line).not.toContain('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy');
    expect(line).toContain('x.quiknode.pro');
  });
  test('json lines stay valid JSON after redaction, with secrets hidden in their escaped spelling too', () => {
    const lines: string[] = [];
    const secret = 'we"ird\\secret';
    const log = createLogger('info', [secret, 'https://rpc.example/?api-key=K1234567'], (l) => lines.push(l), 'json');
    log.warn('failed https://rpc.example/?api-key=K1234567', { url: 'https://x.quiknode.pro/tok3n/', secret, nested: { key: 'cig_3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy' } });
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(record).toMatchObject({ level: 'warn', message: 'failed [redacted]', url: 'https://x.quiknode.pro/[redacted]', secret: '[redacted]', nested: { key: 'cig_[redacted]' } });
    expect(Number.isNaN(Date.parse(record.time))).toBe(false);
    for (const hidden of ['K1234567', 'tok3n', 'ird', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy']) expect(lines[0]).not.toContain(hidden);
  });
  test('levels below the configured one are dropped', () => {
    const lines: string[] = [];
    const log = createLogger('warn', [], (l) => lines.push(l));
    log.info('quiet');
    log.error('loud');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('loud');
  });
  test('a bare host is kept, a path is hidden', () => {
    const r = makeRedactor([]);
    expect(r('see https://api.devnet.solana.com')).toBe('see https://api.devnet.solana.com');
    expect(r('see https://user:pw@host.example/path?x=1')).toBe('see https://host.example/[redacted]');
  });
});

describe('rate limiter', () => {
  test('allows the burst, refuses the next, refills at the rate', () => {
    let now = 0;
    const rl = new RateLimiter(2, 3, () => now);
    expect([1, 2, 3].map(() => rl.take('k').allowed)).toEqual([true, true, true]);
    const refused = rl.take('k');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    now += 500; // half a second at 2/s gives one token back
    expect(rl.take('k').allowed).toBe(true);
    expect(rl.take('k').allowed).toBe(false);
    expect(rl.take('other').allowed).toBe(true);
  });
  test('the admissions kept for reuse say exactly what each decision says, refusals included', () => {
    let now = 0;
    const reused = new RateLimiter(0.5, 4, () => now);
    const fresh = new RateLimiter(0.5, 4, () => now);
    const steps = [0, 0, 0, 0, 0, 0, 700, 0, 2100, 0, 0, 5000, 0, 0, 0, 0, 0, 9000, 0];
    const seen: string[] = [];
    for (const dt of steps) {
      now += dt;
      const a = reused.admit('k');
      const expected = admission(fresh.take('k'));
      expect(a).toEqual(expected);
      seen.push(`${a.headers.ratelimit} ${a.headers['retry-after'] ?? ''}`);
    }
    // The run went through full, partly refilled and empty buckets, and reused some of them.
    expect(new Set(seen).size).toBeGreaterThan(4);
    expect(new Set(seen).size).toBeLessThan(steps.length);
    expect(seen.some((s) => s.endsWith(' 2'))).toBe(true);
  });
  test('rate 0 disables limiting', () => {
    const rl = new RateLimiter(0, 1);
    expect(Array.from({ length: 100 }, () => rl.take('k').allowed).every(Boolean)).toBe(true);
  });
});

describe('migrations', () => {
  test('the embedded migrations module matches drizzle/ (run bun run db:generate after a schema change)', () => {
    const expected = renderMigrationsModule(journal.entries.map((e) => e.tag));
    expect(readFileSync(new URL('../../src/db/migrations.gen.ts', import.meta.url), 'utf8')).toBe(expected);
  });
});
