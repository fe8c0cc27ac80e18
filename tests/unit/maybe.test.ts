// The helpers that let a hot path answer at once: a value goes on at once, a promise when it
// settles, and errors reach the right handler whichever way they come.
import { expect, test } from 'bun:test';
import { andThen, attempt } from '../../src/maybe.ts';

test('andThen applies the next step at once to a value, and to a promise once it settles', async () => {
  const now = andThen(2, (n) => n * 10);
  expect(now).toBe(20);
  const later = andThen(Promise.resolve(2), (n) => n * 10);
  expect(later).toBeInstanceOf(Promise);
  expect(await later).toBe(20);
});

test('attempt hands a synchronous throw and a rejection of the step to the failure handler', async () => {
  const fail = (e: unknown) => `failed: ${(e as Error).message}`;
  expect(attempt(() => { throw new Error('at once'); }, () => 'ok', fail)).toBe('failed: at once');
  expect(await attempt(() => Promise.reject(new Error('later')), () => 'ok', fail)).toBe('failed: later');
  expect(attempt(() => 1, (n) => `ok ${n}`, fail)).toBe('ok 1');
  expect(await attempt(() => Promise.resolve(1), (n) => `ok ${n}`, fail)).toBe('ok 1');
});

test("what the success handler throws is not taken for the step's failure", async () => {
  let failures = 0;
  const fail = () => {
    failures++;
    return 'failed';
  };
  const boom = () => {
    throw new Error('in ok');
  };
  expect(() => attempt(() => 1, boom, fail)).toThrow('in ok');
  await expect(attempt(() => Promise.resolve(1), boom, fail) as Promise<string>).rejects.toThrow('in ok');
  expect(failures).toBe(0);
});
