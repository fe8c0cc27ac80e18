// Opens the SQLite file (creating it and its folder), turns on WAL, and applies the migrations
// embedded in the executable.
import { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite';
import { journal, migrationSql } from './migrations.gen.ts';
import * as schema from './schema.ts';

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** How long a write waits for a lock another connection holds before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** How long the probe below waits for a lock held elsewhere: it runs on the event loop. */
const PROBE_BUSY_MS = 100;

/**
 * Throws when the file cannot take a write now. `write` false: only takes the write lock (a lock
 * held by another process, a read-only file); true: commits a one-page write (rewrites the
 * header's user_version as it is), which a full disk or an I/O error refuses too.
 */
export function probeWritable(client: Database, write: boolean): void {
  const { timeout } = client.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()!;
  client.run(`PRAGMA busy_timeout = ${PROBE_BUSY_MS}`);
  try {
    if (write) {
      const { user_version } = client.query<{ user_version: number }, []>('PRAGMA user_version').get()!;
      client.run(`PRAGMA user_version = ${user_version}`);
    } else {
      client.run('BEGIN IMMEDIATE');
      client.run('ROLLBACK');
    }
  } finally {
    client.run(`PRAGMA busy_timeout = ${timeout}`);
  }
}

export function openDatabase(path: string): Db {
  const file = path === ':memory:' ? path : resolve(path);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const client = new Database(file, { create: true, strict: true });
  client.run('PRAGMA journal_mode = WAL');
  // FULL: a commit survives power loss, not just a crash; the ledger's group commit pays for it.
  client.run('PRAGMA synchronous = FULL');
  client.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // A checkpoint (copying the WAL into the file, with two fsyncs) runs inside whichever commit
  // crosses this many WAL pages, holding the event loop. Paid calls commit a few pages hundreds of
  // times a second, mostly the same pages again: at SQLite's default of 1000 that was a third of a
  // group commit's time on average (bench/ledger-flush.ts); at 10000 (a WAL of at most ~40 MB) each
  // checkpoint copies about as many distinct pages, ten times less often.
  client.run('PRAGMA wal_autocheckpoint = 10000');
  client.run('PRAGMA foreign_keys = ON');
  const db = drizzle({ client, schema }) as Db;
  migrate(db);
  return db;
}

interface MigrationDialect {
  migrate(
    migrations: { sql: string[]; bps: boolean; folderMillis: number; hash: string }[],
    session: unknown,
    config: { migrationsFolder: string },
  ): void;
}

/** The same call drizzle's folder-based migrate() makes, fed from the embedded SQL instead of files. */
function migrate(db: Db) {
  const migrations = journal.entries.map((entry) => {
    const sql = migrationSql[entry.tag];
    if (sql === undefined) throw new Error(`migration ${entry.tag} is not embedded; run bun run db:generate`);
    return {
      sql: sql.split('--> statement-breakpoint'),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash('sha256').update(sql).digest('hex'),
    };
  });
  const internals = db as unknown as { dialect: MigrationDialect; session: unknown };
  internals.dialect.migrate(migrations, internals.session, { migrationsFolder: '(embedded)' });
}
