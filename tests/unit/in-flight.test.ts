// What a graceful stop waits for before the database closes: paid calls still running, and the
// refunds that calls ending on a closed stream start in turn.
import { expect, test } from 'bun:test';
import { InFlight } from '../../src/calls/in-flight.ts';
import { createLogger } from '../../src/log.ts';

const quiet = () => createLogger('debug', [], () => {});

test('settled waits for followed work, and for work that ending work starts a few microtasks later', async () => {
  const inFlight = new InFlight(quiet());
  const order: string[] = [];
  let finish!: () => void;
  const call = inFlight.follow(new Promise<void>((resolve) => (finish = resolve)));
  // Like a call whose answer meets a closed stream: its refund starts after the call has ended.
  void call
    .then(() => Promise.resolve())
    .then(() => inFlight.detach(Bun.sleep(30).then(() => order.push('refund')), 'refund not made', {}));
  const settled = inFlight.settled().then(() => order.push('settled'));
  await Bun.sleep(10);
  expect(order).toEqual([]);
  finish();
  await settled;
  expect(order).toEqual(['refund', 'settled']);
});

test('settled with nothing followed resolves at once', async () => {
  const inFlight = new InFlight(quiet());
  let done = false;
  await inFlight.settled().then(() => (done = true));
  expect(done).toBe(true);
});

test('a detached failure is logged with its fields, not thrown, and follow hands work back as it is', async () => {
  const lines: string[] = [];
  const inFlight = new InFlight(createLogger('debug', [], (l) => lines.push(l), 'json'));
  await inFlight.detach(Promise.reject(new Error('database closed')), 'refund not made', { wallet: 'W1', price: 1000 });
  await inFlight.settled();
  const line = JSON.parse(lines.find((l) => l.includes('refund not made'))!);
  expect(line).toMatchObject({ wallet: 'W1', price: 1000, error: 'database closed' });
  const failing = Promise.reject(new Error('upstream'));
  expect(inFlight.follow(failing)).toBe(failing);
  await expect(failing).rejects.toThrow('upstream');
  await inFlight.settled();
});
