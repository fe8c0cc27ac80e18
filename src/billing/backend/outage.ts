// What the gateway does while its database is away (issue 33): every storage call that fails for a
// storage reason (db/faults.ts) becomes the one answer for it, StorageUnavailable (500, a code,
// Retry-After), never a bare 500 with a stack. An outage is an episode: one warning when it begins,
// one line once the database has answered again for a moment, a counter of what it refused and a
// gauge for the state. A probe asks the database twice a second, so /readyz turns 503 within a second or so of
// the database going away (a graceful restart too) and 200 as soon as it answers again; nothing
// needs a restart.
import { storageFault, type StorageFault } from '../../db/faults.ts';
import { StorageUnavailable } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { attempt, type MaybePromise } from '../../maybe.ts';
import { LATE, within } from '../../within.ts';
import { storageAvailable, storageRefused } from '../../metrics.ts';
import { admission, type Admission, type Limiter, type RateDecision } from '../rate-limit.ts';

/** How often the probe asks the database. */
const STORAGE_PROBE_MS = 500;
/** A probe with no answer within this long counts as a failure: a database that hangs is away too. */
const PROBE_TIMEOUT_MS = 1000;
/**
 * An outage is over for the log once the database has answered this long: a call failing just
 * after the first probe succeeded (a pooled connection that met the server still starting) is the
 * same outage, not a second warning. Readiness turns at once either way.
 */
const SETTLE_MS = 2000;

export interface StorageProbe {
  /** Throws when the database cannot serve; `outage` is true while one is known, for a probe that checks more then. */
  (outage: boolean): void | Promise<void>;
}

interface Episode {
  reason: StorageFault;
  since: number;
  refused: number;
}

export class StorageOutage {
  private down: Episode | undefined;
  /** An outage the database answers again after, not yet logged as over (SETTLE_MS). */
  private settling: { episode: Episode; timer: ReturnType<typeof setTimeout> } | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private probing = false;
  /** Told when the database goes away (false) and when it answers again (true). */
  onChange?: (available: boolean) => void;

  constructor(
    readonly backend: 'sqlite' | 'postgres',
    private readonly log: Logger,
    private readonly probe: StorageProbe,
    private readonly settleMs = SETTLE_MS,
  ) {
    // The gauge's only start: 1 from when the gateway's storage is known.
    storageAvailable.set(1);
  }

  get available(): boolean {
    return this.down === undefined;
  }

  /** Why the database is away ("postgres: unreachable"), or undefined while it answers. */
  get reason(): string | undefined {
    return this.down && `${this.backend}: ${this.down.reason}`;
  }

  /**
   * What a failed storage call throws: StorageUnavailable when `e` is a storage fault (counted, and
   * the episode begun or continued), else `e` unchanged.
   */
  fault(e: unknown): unknown {
    // Thrown by the ledger itself (a write whose outcome it could not settle): counted as unreachable.
    const reason = e instanceof StorageUnavailable ? 'unreachable' : storageFault(e);
    if (!reason) return e;
    storageRefused.inc({ reason });
    this.wentAway(reason);
    if (this.down) this.down.refused++;
    return e instanceof StorageUnavailable ? e : new StorageUnavailable(reason);
  }

  /** Probes now and every STORAGE_PROBE_MS until stop(). */
  start(): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), STORAGE_PROBE_MS);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One probe: the episode ends when it succeeds, begins when it fails. */
  async check(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      if ((await within(this.probe(!this.available), PROBE_TIMEOUT_MS)) === LATE) throw new ProbeTimeout();
      this.answered();
    } catch (e) {
      this.wentAway(e instanceof ProbeTimeout ? 'timeout' : (storageFault(e) ?? 'unreachable'));
    } finally {
      this.probing = false;
    }
  }

  private wentAway(reason: StorageFault) {
    // /readyz names the current cause: a full disk freed while another process holds the lock is now "locked".
    if (this.down) {
      this.down.reason = reason;
      return;
    }
    storageAvailable.set(0);
    const settling = this.settling;
    if (settling) {
      // Back only a moment ago: the same outage goes on, already told.
      clearTimeout(settling.timer);
      this.settling = undefined;
      this.down = { ...settling.episode, reason };
      this.onChange?.(false);
      return;
    }
    this.down = { reason, since: Date.now(), refused: 0 };
    this.log.warn(`storage unavailable (${this.backend}: ${reason}): paid calls and claims answer storage_unavailable with Retry-After until it answers again`, {
      event: 'storage_unavailable',
      backend: this.backend,
      reason,
    });
    this.onChange?.(false);
  }

  private answered() {
    const episode = this.down;
    if (!episode) return;
    this.down = undefined;
    storageAvailable.set(1);
    this.onChange?.(true);
    const backAt = Date.now();
    const timer = setTimeout(() => {
      this.settling = undefined;
      this.log.info(`storage answers again (${this.backend})`, {
        event: 'storage_available',
        backend: this.backend,
        reason: episode.reason,
        downSeconds: Math.round((backAt - episode.since) / 100) / 10,
        refused: episode.refused,
      });
    }, this.settleMs);
    timer.unref?.();
    this.settling = { episode, timer };
  }
}

class ProbeTimeout extends Error {}

/**
 * `fn` passing a storage fault through outage.fault(), whether thrown at once (SQLite) or as a
 * rejection (Postgres). A result known at once stays at once (maybe.ts).
 */
export function guard<A extends unknown[], R>(outage: StorageOutage, fn: (...args: A) => R): (...args: A) => R {
  const rethrow = (e: unknown): never => {
    throw outage.fault(e);
  };
  return (...args: A): R => attempt(() => fn(...args), same, rethrow) as R;
}

const same = <T>(v: T): T => v;

/**
 * `part` as the seam hands it out: every method guarded, its own or its class's, and every other
 * field read through to the part as it is now; never the part itself.
 */
export function guardAll<P extends object>(part: P, outage: StorageOutage): P {
  const out = {} as P;
  const fields = part as Record<string, unknown>;
  for (let at: object | null = part; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at)) {
    for (const name of Object.getOwnPropertyNames(at)) {
      if (name === 'constructor' || Object.hasOwn(out, name)) continue;
      const value = fields[name];
      const guarded = typeof value === 'function' ? guard(outage, value.bind(part)) : undefined;
      Object.defineProperty(out, name, guarded ? { value: guarded, enumerable: true } : { get: () => fields[name], enumerable: true });
    }
  }
  return out;
}

/**
 * A limiter whose buckets live in the database (`shared`), falling back to this process's (`local`)
 * while the database cannot answer: a free call needs no storage, so it must not fail for the
 * limiter's sake. The outage is counted and logged as any other; a database known to be away is not
 * asked again until the probe finds it back (one that hangs would hold every call).
 */
export function guardLimiter(shared: Limiter, local: Limiter, outage: StorageOutage): Limiter {
  const take = guard(outage, (key: string) => shared.take(key));
  const fallBack = (key: string) => (e: unknown) => {
    if (e instanceof StorageUnavailable) return local.take(key);
    throw e;
  };
  const decide = (key: string): MaybePromise<RateDecision> => (outage.available ? attempt(() => take(key), same, fallBack(key)) : local.take(key));
  return {
    get enabled() {
      return shared.enabled;
    },
    take: decide,
    admit: (key): MaybePromise<Admission> => {
      const decided = decide(key);
      return decided instanceof Promise ? decided.then(admission) : admission(decided);
    },
  };
}
