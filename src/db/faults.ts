// Which database errors leave a write's outcome unknown. A statement the server answered with an
// error (a constraint, a serialization failure) rolled its transaction back, and a connection that
// could not be opened sent nothing; but a connection that closed or timed out while a transaction
// was open may have lost the answer to a COMMIT the server ran. The ledger and x402 resolve such
// writes by looking their call id up once the database answers again.

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
