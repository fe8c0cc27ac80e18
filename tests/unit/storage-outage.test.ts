// An outage as an episode (billing/backend/outage.ts): storage faults become StorageUnavailable, anything
// else stays what it is; one warning when it begins and one line when a probe finds the database
// back, however many calls failed in between; a probe that hangs counts as a failure.
import { describe, expect, test } from 'bun:test';
import { guard, guardAll, guardLimiter, StorageOutage } from '../../src/billing/backend/outage.ts';
import { RateLimiter, type Limiter } from '../../src/billing/rate-limit.ts';
import { StorageUnavailable } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { registry } from '../../src/metrics.ts';

const SETTLE_MS = 30;
const settled = () => Bun.sleep(SETTLE_MS * 3);
const closed = () => Object.assign(new Error('Connection closed'), { code: 'ERR_POSTGRES_CONNECTION_CLOSED' });
const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

function outage(probe: (during: boolean) => void | Promise<void> = () => {}) {
  const lines: string[] = [];
  const changes: boolean[] = [];
  const o = new StorageOutage('postgres', createLogger('debug', [], (l) => lines.push(l), 'json'), probe, SETTLE_MS);
  o.onChange = (available) => changes.push(available);
  const events = () => lines.map((l) => JSON.parse(l)).filter((l) => l.event?.startsWith('storage_'));
  return { o, events, changes };
}

async function refusedTotal(): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'gateway_storage_unavailable_total')!;
  return (metric.values as { value: number }[]).reduce((n, v) => n + v.value, 0);
}

const gauge = async () => ((await registry.getMetricsAsJSON()).find((m) => m.name === 'gateway_storage_available')!.values as { value: number }[])[0]!.value;

describe('StorageOutage', () => {
  test('a fault that is not the storage (a constraint, a bug) passes through untouched, and starts nothing', () => {
    const { o, events } = outage();
    const bug = new TypeError('undefined is not a function');
    expect(o.fault(bug)).toBe(bug);
    expect(o.available).toBe(true);
    expect(events()).toEqual([]);
  });

  test('/readyz names the current cause: a disk-full outage that goes on as a held lock says locked; still one warning', () => {
    const { o, events } = outage();
    o.fault(full());
    expect(o.reason).toBe('postgres: disk full');
    o.fault(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
    expect(o.reason).toBe('postgres: locked');
    expect(events().filter((e) => e.event === 'storage_unavailable')).toHaveLength(1);
  });

  test('a hundred failed calls: a hundred StorageUnavailable, counted, one warning; the probe that finds it back, one line once it stays back', async () => {
    let answering = false;
    const { o, events, changes } = outage(() => {
      if (!answering) throw closed();
    });
    const before = await refusedTotal();
    const thrown = Array.from({ length: 100 }, () => o.fault(closed()));
    expect(thrown.every((e) => e instanceof StorageUnavailable && e.status === 500 && e.body.code === 'storage_unavailable' && e.headers['retry-after'] === '2')).toBe(true);
    expect(await refusedTotal()).toBe(before + 100);
    expect(o.available).toBe(false);
    expect(o.reason).toBe('postgres: unreachable');
    expect(await gauge()).toBe(0);
    await o.check(); // still away: no new line
    answering = true;
    await o.check();
    await o.check();
    expect(o.available).toBe(true);
    expect(await gauge()).toBe(1);
    await settled();
    expect(events().map((e) => [e.level, e.event, e.reason, e.refused])).toEqual([
      ['warn', 'storage_unavailable', 'unreachable', undefined],
      ['info', 'storage_available', 'unreachable', 100],
    ]);
    expect(changes).toEqual([false, true]);
  });

  test('a call failing just after the database came back is the same outage: readiness turns again, the log stays at one warning and one line', async () => {
    let answering = false;
    const { o, events, changes } = outage(() => {
      if (!answering) throw closed();
    });
    o.fault(closed());
    answering = true;
    await o.check();
    expect(o.available).toBe(true);
    o.fault(Object.assign(new Error('the database system is starting up'), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: '57P03' }));
    expect(o.available).toBe(false);
    await o.check();
    await settled();
    expect(events().map((e) => [e.event, e.refused])).toEqual([
      ['storage_unavailable', undefined],
      ['storage_available', 2],
    ]);
    expect(changes).toEqual([false, true, false, true]);
  });

  test('a probe that fails begins the episode on its own (readiness turns before any call fails); one that hangs fails after 1 s', async () => {
    const failing = outage(() => {
      throw full();
    });
    await failing.o.check();
    expect(failing.o.reason).toBe('postgres: disk full');
    const hanging = outage(() => new Promise<void>(() => {}));
    const started = Date.now();
    await hanging.o.check();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(hanging.o.reason).toBe('postgres: timeout');
  });

  test('the probe is told when an outage is known, so SQLite can check more then', async () => {
    const asked: boolean[] = [];
    const { o } = outage((during) => void asked.push(during));
    await o.check();
    o.fault(full());
    await o.check();
    await o.check();
    expect(asked).toEqual([false, true, false]);
  });
});

describe('guard', () => {
  const { o } = outage();

  test('a value known at once stays at once; a thrown storage fault and a rejected one both become StorageUnavailable', async () => {
    const sync = guard(o, (n: number) => n + 1);
    expect(sync(1)).toBe(2);
    expect(() => guard(o, () => {
      throw full();
    })()).toThrow(StorageUnavailable);
    await expect(guard(o, async () => {
      throw closed();
    })()).rejects.toBeInstanceOf(StorageUnavailable);
    const bug = new RangeError('bad');
    await expect(guard(o, async () => {
      throw bug;
    })()).rejects.toBe(bug);
  });
});

describe('what the seam hands out', () => {
  test('guardAll: every method of a part guarded, its other fields as they were, the part itself untouched', async () => {
    const { o } = outage();
    const raw = {
      backend: 'sqlite' as const,
      add: (n: number) => n + 1,
      full: (): number => {
        throw full();
      },
      closed: async (): Promise<number> => {
        throw closed();
      },
    };
    const part = guardAll(raw, o);
    expect(part.backend).toBe('sqlite');
    expect(part.add(1)).toBe(2);
    expect(() => part.full()).toThrow(StorageUnavailable);
    await expect(part.closed()).rejects.toBeInstanceOf(StorageUnavailable);
    // The raw part still throws the driver's own error: only what the seam hands out is guarded.
    expect(() => raw.full()).toThrow('database or disk is full');
  });

  test("guardAll on a class's instance: its methods guarded and bound, its fields read as they are now", async () => {
    const { o } = outage();
    class Store {
      writes = 0;
      async write(): Promise<number> {
        return ++this.writes;
      }
      async lost(): Promise<void> {
        throw closed();
      }
    }
    const raw = new Store();
    const part = guardAll(raw, o);
    expect(await part.write()).toBe(1);
    expect(part.writes).toBe(1);
    await expect(part.lost()).rejects.toBeInstanceOf(StorageUnavailable);
  });

  test("guardLimiter: the shared buckets decide while the database answers; the process's own while it does not, without asking it", async () => {
    const { o } = outage();
    let asked = 0;
    let away = false;
    // Buckets the database would keep (a hand-made fault: the real one is in storage-outage-pg.test.ts).
    const shared: Limiter = {
      enabled: true,
      take: async () => {
        asked++;
        if (away) throw closed();
        return { allowed: false, limit: 1, remaining: 0, resetSeconds: 9, windowSeconds: 9, retryAfterSeconds: 9 };
      },
      admit: () => {
        throw new Error('not used');
      },
    };
    const limiter = guardLimiter(shared, new RateLimiter(1, 5), o);
    expect((await limiter.admit('wallet:w')).refusal).toBeDefined();
    away = true;
    // The fault is counted as an outage, and the call is decided here: allowed from a full local bucket.
    expect((await limiter.admit('wallet:w')).refusal).toBeUndefined();
    expect(o.available).toBe(false);
    const before = asked;
    expect((await limiter.admit('wallet:w')).refusal).toBeUndefined();
    expect(asked).toBe(before);
  });

  test('guardLimiter: an error that is not the storage is not hidden behind the local buckets', async () => {
    const { o } = outage();
    const bug = new RangeError('bad');
    const shared: Limiter = {
      enabled: true,
      take: async () => {
        throw bug;
      },
      admit: () => {
        throw bug;
      },
    };
    await expect(guardLimiter(shared, new RateLimiter(1, 5), o).admit('addr:1.2.3.4')).rejects.toBe(bug);
    expect(o.available).toBe(true);
  });
});
