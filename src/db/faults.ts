// Which database errors mean "the storage is away" rather than "this statement is wrong": a lost or
// refused connection, a server shutting down or starting up, a full disk, a read-only file, a lock
// held elsewhere beyond the busy timeout, an I/O error. Pure: plain error objects in, a short reason
// out, for the answer a client gets and the label a counter takes. Anything else (a constraint, a
// syntax error, a bug) is not a storage fault and stays what it is.
//
// And which of them leave a write's outcome unknown: a statement the server answered with an error
// rolled its transaction back, and a connection that could not be opened sent nothing; but a
// connection that closed or timed out while a transaction was open may have lost the answer to a
// COMMIT the server ran. The ledger and x402 resolve such writes by looking their call id up once
// the database answers again.

/** Why the storage did not answer; a closed set, so it can label a metric. */
export type StorageFault = 'unreachable' | 'timeout' | 'shutting down' | 'disk full' | 'read-only' | 'locked' | 'I/O error';

/** A storage fault, and whether a write that failed with it may nevertheless have committed. */
export interface StorageFailure {
  fault: StorageFault;
  outcomeUnknown: boolean;
}

const failure = (fault: StorageFault, outcomeUnknown = false): StorageFailure => ({ fault, outcomeUnknown });

// Bun's own Postgres client codes. A connection refused or never opened sent nothing; one that
// closed or timed out, or a query cancelled, may have carried a COMMIT the server ran.
const PG_CLIENT: Record<string, StorageFailure> = {
  ERR_POSTGRES_CONNECTION_REFUSED: failure('unreachable'),
  ERR_POSTGRES_CONNECTION_FAILED: failure('unreachable'),
  ERR_POSTGRES_CONNECTION_CLOSED: failure('unreachable', true),
  ERR_POSTGRES_CONNECTION_TIMEOUT: failure('timeout', true),
  ERR_POSTGRES_IDLE_TIMEOUT: failure('timeout', true),
  ERR_POSTGRES_LIFETIME_TIMEOUT: failure('timeout', true),
  ERR_POSTGRES_QUERY_CANCELLED: failure('timeout', true),
};

/**
 * PostgreSQL's SQLSTATE classes and codes (its errno) that say the server cannot serve now. Those
 * that end the session itself (08 connection exception, 57P0x shutdown) may have cut off a COMMIT's answer.
 */
function sqlState(code: string): StorageFailure | undefined {
  if (code.startsWith('08')) return failure('unreachable', true); // connection exception
  if (code === '57P01' || code === '57P02' || code === '57P03') return failure('shutting down', true); // admin/crash shutdown, cannot connect now
  if (code === '53100') return failure('disk full');
  if (code.startsWith('53')) return failure('unreachable'); // insufficient resources: too many connections, out of memory
  if (code === '25006') return failure('read-only'); // read-only SQL transaction: a standby
  if (code.startsWith('58')) return failure('I/O error'); // system error
  return undefined;
}

/** SQLite's primary result codes (the part before any extended suffix: SQLITE_IOERR_WRITE is SQLITE_IOERR); its writes roll back whole. */
const SQLITE: Record<string, StorageFailure> = {
  SQLITE_FULL: failure('disk full'),
  SQLITE_READONLY: failure('read-only'),
  SQLITE_BUSY: failure('locked'),
  SQLITE_LOCKED: failure('locked'),
  SQLITE_IOERR: failure('I/O error'),
  SQLITE_CANTOPEN: failure('I/O error'),
};

// Node's socket errors, for a connection that never got as far as the driver's own codes.
const SOCKET: Record<string, StorageFailure> = {
  ECONNREFUSED: failure('unreachable'),
  ECONNRESET: failure('unreachable'),
  EPIPE: failure('unreachable'),
  EHOSTUNREACH: failure('unreachable'),
  ENETUNREACH: failure('unreachable'),
  ENOTFOUND: failure('unreachable'),
  ETIMEDOUT: failure('timeout'),
};

/** The server's SQLSTATE on one error: Bun's Postgres client gives it as errno of ERR_POSTGRES_SERVER_ERROR. */
function ownState(e: { code?: unknown; errno?: unknown }): string | undefined {
  return e.code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string' ? e.errno : undefined;
}

/** One error's own code. */
function ownFailure(e: { code?: unknown; errno?: unknown }): StorageFailure | undefined {
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === 'ERR_POSTGRES_SERVER_ERROR') {
    const state = ownState(e);
    return state ? sqlState(state) : undefined;
  }
  const sqlite = /^SQLITE_[A-Z]+/.exec(code)?.[0];
  if (sqlite) return Object.hasOwn(SQLITE, sqlite) ? SQLITE[sqlite] : undefined;
  return Object.hasOwn(PG_CLIENT, code) ? PG_CLIENT[code] : Object.hasOwn(SOCKET, code) ? SOCKET[code] : undefined;
}

/**
 * The storage failure behind `e`, or undefined when `e` is not one. Looks through `cause` (drizzle
 * wraps a driver's error in its own "Failed query" error) a few levels deep.
 */
export function storageFailure(e: unknown): StorageFailure | undefined {
  return firstInCauses(e, ownFailure);
}

/** The SQLSTATE PostgreSQL answered `e` with (a constraint, a statement's own error), looked for through `cause` as storageFailure does. */
export function serverState(e: unknown): string | undefined {
  return firstInCauses(e, ownState);
}

/** What `read` finds first on `e` or the errors it wraps (`cause`, a few levels deep). */
function firstInCauses<T>(e: unknown, read: (e: { code?: unknown; errno?: unknown }) => T | undefined): T | undefined {
  let at: unknown = e;
  for (let depth = 0; depth < 4 && typeof at === 'object' && at !== null; depth++) {
    const found = read(at as { code?: unknown; errno?: unknown });
    if (found !== undefined) return found;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Why the storage is away, when `e` says it is. */
export const storageFault = (e: unknown): StorageFault | undefined => storageFailure(e)?.fault;

/** True when a write that failed with `e` (or drizzle's error wrapping it) may nevertheless have committed. */
export const outcomeUnknown = (e: unknown): boolean => storageFailure(e)?.outcomeUnknown === true;
