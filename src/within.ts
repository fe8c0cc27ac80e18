// Waiting for work no longer than a while: its answer, or LATE once the time is up, and the timer
// cleared either way (a timer left running keeps the event loop, and a stop, waiting for nothing).

export const LATE = Symbol('late');

/**
 * `work`'s answer, or LATE once `ms` have passed without it; rejects when `work` rejects first (a
 * rejection after LATE is ignored).
 */
export async function within<T>(work: T | PromiseLike<T>, ms: number): Promise<Awaited<T> | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([work, new Promise<typeof LATE>((done) => (timer = setTimeout(() => done(LATE), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
