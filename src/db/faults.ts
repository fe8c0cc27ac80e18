// Which database errors mean "the storage is away" rather than "this statement is wrong": a lost or
// refused connection, a server shutting down or starting up, a full disk, a read-only file, a lock
// held elsewhere beyond the busy timeout, an I/O error. Pure: plain error objects in, a short reason
// out, for the answer a client gets and the label a counter takes. Anything else (a constraint, a
// syntax error, a bug) is not a storage fault and stays what it is.
//
// And which of them leave a write's outcome unknown (outcomeUnknown): a statement the server
// answered with an error rolled its transaction back, and a connection that could not be opened sent
// nothing; but a connection that closed or timed out while a transaction was open may have lost the
// answer to a COMMIT the server ran. The ledger and x402 resolve such writes by looking their call id
// up once the database answers again.

/** Why the storage did not answer; a closed set, so it can label a metric. */
export type StorageFault = 'unreachable' | 'timeout' | 'shutting down' | 'disk full' | 'read-only' | 'locked' | 'I/O error';

// Bun's own Postgres client codes for a connection that failed or went away.
const PG_CLIENT: Record<string, StorageFault> = {
  ERR_POSTGRES_CONNECTION_CLOSED: 'unreachable',
  ERR_POSTGRES_CONNECTION_REFUSED: 'unreachable',
  ERR_POSTGRES_CONNECTION_FAILED: 'unreachable',
  ERR_POSTGRES_CONNECTION_TIMEOUT: 'timeout',
};

/** PostgreSQL's SQLSTATE classes and codes (its errno) that say the server cannot serve now. */
function sqlState(code: string): StorageFault | undefined {
  if (code.startsWith('08')) return 'unreachable'; // connection exception
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'shutting down'; // admin/crash shutdown, cannot connect now
  if (code === '53100') return 'disk full';
  if (code.startsWith('53')) return 'unreachable'; // insufficient resources: too many connections, out of memory
  if (code === '25006') return 'read-only'; // read-only SQL transaction: a standby
  if (code.startsWith('58')) return 'I/O error'; // system error
  return undefined;
}

/** SQLite's primary result codes (the part before any extended suffix: SQLITE_IOERR_WRITE is SQLITE_IOERR). */
const SQLITE: Record<string, StorageFault> = {
  SQLITE_FULL: 'disk full',
  SQLITE_READONLY: 'read-only',
  SQLITE_BUSY: 'locked',
  SQLITE_LOCKED: 'locked',
  SQLITE_IOERR: 'I/O error',
  SQLITE_CANTOPEN: 'I/O error',
};

// Node's socket errors, for a connection that never got as far as the driver's own codes.
const SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']);

function ownFault(e: { code?: unknown; errno?: unknown }): StorageFault | undefined {
  const code = typeof e.code === 'string' ? e.code : '';
  if (code in PG_CLIENT) return PG_CLIENT[code];
  if (code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string') return sqlState(e.errno);
  if (code.startsWith('SQLITE_')) {
    const primary = code.match(/^SQLITE_[A-Z]+/)![0];
    return SQLITE[primary];
  }
  if (SOCKET.has(code)) return code === 'ETIMEDOUT' ? 'timeout' : 'unreachable';
  return undefined;
}

/**
 * The storage fault behind `e`, or undefined when `e` is not one. Looks through `cause` (drizzle
 * wraps a driver's error in its own "Failed query" error) a few levels deep.
 */
export function storageFault(e: unknown): StorageFault | undefined {
  let at: unknown = e;
  for (let depth = 0; depth < 4 && typeof at === 'object' && at !== null; depth++) {
    const found = ownFault(at as { code?: unknown; errno?: unknown });
    if (found) return found;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Bun's PostgreSQL client: ERR_POSTGRES_SERVER_ERROR carries the server's SQLSTATE as errno. */
interface PostgresErrorLike {
  code?: unknown;
  errno?: unknown;
}

/** Client errors that can strike after a statement was sent. */
const LOST_ON_THE_WAY = new Set(['ERR_POSTGRES_CONNECTION_CLOSED', 'ERR_POSTGRES_CONNECTION_TIMEOUT', 'ERR_POSTGRES_IDLE_TIMEOUT', 'ERR_POSTGRES_LIFETIME_TIMEOUT', 'ERR_POSTGRES_QUERY_CANCELLED']);

/** SQLSTATE classes that end the session itself: 08 connection exception, 57P0x shutdown. */
const SESSION_ENDED = /^(08|57P0)/;

/** True when a PostgreSQL write that failed with `e` (or drizzle's error wrapping it) may nevertheless have committed. */
export function outcomeUnknown(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  if (e instanceof Error && e.cause !== undefined && !('code' in e)) return outcomeUnknown(e.cause);
  const { code, errno } = e as PostgresErrorLike;
  if (typeof code !== 'string') return false;
  if (LOST_ON_THE_WAY.has(code)) return true;
  return code === 'ERR_POSTGRES_SERVER_ERROR' && typeof errno === 'string' && SESSION_ENDED.test(errno);
}
