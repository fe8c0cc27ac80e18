// One polling loop for the tests: a condition asked again every `stepMs` until it holds or time runs out.

/** Polls `cond` every `stepMs` until it holds; the time it took (ms), or null after `timeoutMs`. */
export async function within(timeoutMs: number, cond: () => Promise<boolean> | boolean, stepMs = 50): Promise<number | null> {
  const start = Date.now();
  while (Date.now() - start <= timeoutMs) {
    if (await cond()) return Date.now() - start;
    await Bun.sleep(stepMs);
  }
  return null;
}
