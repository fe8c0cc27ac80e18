// Which database errors mean "the storage is away" (db/faults.ts): the real errors of bun:sqlite
// where a real file can produce them at once, and the shapes Bun's Postgres client gives (as
// observed against a stopped, restarted and killed server: tests/integration/storage-outage-pg.test.ts).
import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverState, storageFailure, storageFault } from '../../src/db/faults.ts';

const pgError = (code: string, errno?: string) => Object.assign(new Error('x'), { name: 'PostgresError', code, errno });

/** What `fn` threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

describe('Postgres', () => {
  test.each([
    ['ERR_POSTGRES_CONNECTION_CLOSED', undefined, 'unreachable'],
    ['ERR_POSTGRES_CONNECTION_REFUSED', undefined, 'unreachable'],
    ['ERR_POSTGRES_CONNECTION_TIMEOUT', undefined, 'timeout'],
    ['ERR_POSTGRES_SERVER_ERROR', '57P01', 'shutting down'],
    ['ERR_POSTGRES_SERVER_ERROR', '57P03', 'shutting down'],
    ['ERR_POSTGRES_SERVER_ERROR', '08006', 'unreachable'],
    ['ERR_POSTGRES_SERVER_ERROR', '53300', 'unreachable'],
    ['ERR_POSTGRES_SERVER_ERROR', '53100', 'disk full'],
    ['ERR_POSTGRES_SERVER_ERROR', '25006', 'read-only'],
  ] as const)('%s %s is a storage fault: %s', (code, errno, reason) => {
    expect(storageFault(pgError(code, errno))).toBe(reason);
  });

  test.each([
    ['ERR_POSTGRES_SERVER_ERROR', '23505'], // a unique violation: the statement, not the storage
    ['ERR_POSTGRES_SERVER_ERROR', '42601'], // a syntax error: a bug
    ['ERR_POSTGRES_SERVER_ERROR', '23514'], // a CHECK refused a negative balance
    ['ERR_POSTGRES_SYNTAX_ERROR', undefined],
  ] as const)('%s %s is not', (code, errno) => {
    expect(storageFault(pgError(code, errno))).toBeUndefined();
  });

  test("found inside drizzle's wrapper (its `cause`), but not past a few levels", () => {
    const wrapped = Object.assign(new Error('Failed query: select 1'), { cause: pgError('ERR_POSTGRES_CONNECTION_CLOSED') });
    expect(storageFault(wrapped)).toBe('unreachable');
    let deep: unknown = pgError('ERR_POSTGRES_CONNECTION_CLOSED');
    for (let i = 0; i < 6; i++) deep = Object.assign(new Error('wrap'), { cause: deep });
    expect(storageFault(deep)).toBeUndefined();
  });

  test("the server's SQLSTATE, for a statement's own errors (the ledger's at-once guard), found the same way; none for the client's own codes", () => {
    expect(serverState(pgError('ERR_POSTGRES_SERVER_ERROR', '22012'))).toBe('22012');
    expect(serverState(Object.assign(new Error('Failed query'), { cause: pgError('ERR_POSTGRES_SERVER_ERROR', '23505') }))).toBe('23505');
    expect(serverState(pgError('ERR_POSTGRES_CONNECTION_CLOSED'))).toBeUndefined();
    expect(serverState(Object.assign(new Error('x'), { errno: '22012' }))).toBeUndefined();
    expect(serverState('22012')).toBeUndefined();
  });
});

describe('whether a failed write may have committed', () => {
  test.each([
    ['ERR_POSTGRES_CONNECTION_CLOSED', undefined, true], // the connection went while the COMMIT was on its way
    ['ERR_POSTGRES_CONNECTION_TIMEOUT', undefined, true],
    ['ERR_POSTGRES_QUERY_CANCELLED', undefined, true],
    ['ERR_POSTGRES_SERVER_ERROR', '57P01', true], // the server shut the session down
    ['ERR_POSTGRES_SERVER_ERROR', '08006', true],
    ['ERR_POSTGRES_CONNECTION_REFUSED', undefined, false], // nothing was sent
    ['ERR_POSTGRES_SERVER_ERROR', '53100', false], // answered with an error: rolled back
    ['ERR_POSTGRES_SERVER_ERROR', '25006', false],
  ] as const)('%s %s: outcome unknown %p', (code, errno, unknown) => {
    expect(storageFailure(pgError(code, errno))?.outcomeUnknown).toBe(unknown);
    // The same through drizzle's wrapper.
    expect(storageFailure(Object.assign(new Error('Failed query'), { cause: pgError(code, errno) }))?.outcomeUnknown).toBe(unknown);
  });

  test('SQLite rolls a failed write back whole; a statement error is no storage failure at all', () => {
    expect(storageFailure(Object.assign(new Error('x'), { code: 'SQLITE_IOERR_WRITE' }))).toEqual({ fault: 'I/O error', outcomeUnknown: false });
    expect(storageFailure(pgError('ERR_POSTGRES_SERVER_ERROR', '23505'))).toBeUndefined();
    expect(storageFailure(Object.assign(new Error('x'), { code: 'SQLITE_' }))).toBeUndefined();
    expect(storageFailure(Object.assign(new Error('x'), { code: 'constructor' }))).toBeUndefined();
  });
});

describe('SQLite, real errors from a real file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cig-faults-'));
  const file = join(dir, 'db.sqlite');
  const writer = new Database(file, { create: true, strict: true });
  writer.run('PRAGMA journal_mode = WAL');
  writer.run('CREATE TABLE t (id INTEGER PRIMARY KEY CHECK (id > 0))');

  test('a write lock held by another connection beyond the busy timeout: locked', () => {
    const other = new Database(file, { strict: true });
    other.run('PRAGMA busy_timeout = 0');
    writer.run('BEGIN IMMEDIATE');
    try {
      expect(storageFault(thrown(() => other.run('BEGIN IMMEDIATE')))).toBe('locked');
    } finally {
      writer.run('ROLLBACK');
      other.close();
    }
  });

  test('a read-only database: read-only', () => {
    const readOnly = new Database(file, { readonly: true });
    expect(storageFault(thrown(() => readOnly.run('INSERT INTO t (id) VALUES (1)')))).toBe('read-only');
    readOnly.close();
  });

  test('a constraint, a missing table, a syntax error: not storage faults', () => {
    expect(storageFault(thrown(() => writer.run('INSERT INTO t (id) VALUES (-1)')))).toBeUndefined();
    expect(storageFault(thrown(() => writer.run('SELECT * FROM missing')))).toBeUndefined();
    expect(storageFault(thrown(() => writer.run('SELEC 1')))).toBeUndefined();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test.each([
    ['SQLITE_FULL', 'disk full'],
    ['SQLITE_IOERR_WRITE', 'I/O error'],
    ['SQLITE_BUSY_SNAPSHOT', 'locked'],
    ['SQLITE_READONLY_DBMOVED', 'read-only'],
  ] as const)('%s (extended codes by their primary code): %s', (code, reason) => {
    expect(storageFault(Object.assign(new Error('x'), { code }))).toBe(reason);
  });

  test('anything else: a plain Error, a string, null', () => {
    expect(storageFault(new Error('boom'))).toBeUndefined();
    expect(storageFault('SQLITE_FULL')).toBeUndefined();
    expect(storageFault(null)).toBeUndefined();
    expect(storageFault(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_CHECK' }))).toBeUndefined();
  });
});
