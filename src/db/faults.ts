// Which database errors mean "the storage is away" rather than "this statement is wrong": a lost or
// refused connection, a server shutting down or starting up, a full disk, a read-only file, a lock
// held elsewhere beyond the busy timeout, an I/O error. Pure: plain error objects in, a short reason
// out, for the answer a client gets and the label a counter takes. Anything else (a constraint, a
// syntax error, a bug) is not a storage fault and stays what it is.

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
