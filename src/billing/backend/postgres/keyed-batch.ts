// Requests by key, answered by one database round at a time over every key asked for since the
// previous round began, as a group commit does: a request waits for at most one round in flight
// and its own. Used by the key look-ups (key-cache.ts) and the shared limiter (rate-limit.ts).

/** Answers a round: each key with how many requests asked for it; then each request by its key and its place (from 0) among them. */
export type Round<T> = (counts: Map<string, number>) => Promise<(key: string, i: number) => T>;

export class KeyedBatch<T> {
  /** Requests for the next round, by key, in the order they came. */
  private waiting = new Map<string, { resolve(v: T): void; reject(e: unknown): void }[]>();
  private running = false;

  constructor(private readonly round: Round<T>) {}

  ask(key: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const waiting = this.waiting.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (this.running) return;
      this.running = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.size > 0) {
      const batch = this.waiting;
      this.waiting = new Map();
      try {
        const answer = await this.round(new Map([...batch].map(([key, waiting]) => [key, waiting.length])));
        for (const [key, waiting] of batch) waiting.forEach((w, i) => w.resolve(answer(key, i)));
      } catch (e) {
        for (const waiting of batch.values()) for (const w of waiting) w.reject(e);
      }
    }
    this.running = false;
  }
}
