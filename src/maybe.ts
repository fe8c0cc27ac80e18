// Values the hot paths often know at once and sometimes must wait for (a cached answer, a key held
// in memory, a rate-limit bucket). Awaiting a value that is already there still suspends the call
// for a turn of the microtask queue, and every async function adds a promise of its own: answered
// without them, a cached blockhash costs 89-92 % of the CPU per request it did (bench/ab.ts).
// These apply the next step at once when nothing is pending. A paid call waits for its debit's
// commit whatever it does, so its path stays one async function (calls/pipeline.ts).

export type MaybePromise<T> = T | Promise<T>;

/** `f` of a value that may still be pending: applied at once when it is not. */
export const andThen = <T, R>(value: MaybePromise<T>, f: (v: T) => MaybePromise<R>): MaybePromise<R> =>
  value instanceof Promise ? value.then(f) : f(value);

/**
 * `ok` of what `run` gives, or `fail` of what it throws or rejects with: at once when `run` needs
 * no waiting. What `ok` itself throws is not given to `fail`.
 */
export function attempt<T, R>(run: () => MaybePromise<T>, ok: (v: T) => MaybePromise<R>, fail: (e: unknown) => MaybePromise<R>): MaybePromise<R> {
  let value: MaybePromise<T>;
  try {
    value = run();
  } catch (e) {
    return fail(e);
  }
  return value instanceof Promise ? value.then(ok, fail) : ok(value);
}
