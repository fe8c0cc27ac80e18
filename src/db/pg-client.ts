// Connects to PostgreSQL through Bun's built-in client (drizzle's bun-sql driver) and applies the
// migrations embedded in the executable. Replicas starting together migrate one at a time: the
// first takes an advisory lock, the others wait for it and then find nothing left to do.
import { SQL } from 'bun';
import { createHash } from 'node:crypto';
import { drizzle, type BunSQLDatabase } from 'drizzle-orm/bun-sql';
import { journal, migrationSql } from './pg-migrations.gen.ts';
import * as schema from './pg-schema.ts';

export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL };

/** Arbitrary constant naming the migration lock among the database's advisory locks. */
const MIGRATION_LOCK = 0x43494701;

/**
 * A transaction left idle this long is ended by the server. Ours never wait between statements;
 * one whose client vanished without closing its socket (a network partition) would otherwise
 * hold its row locks until TCP gives up, and a write whose answer was lost could not be settled.
 */
export const IDLE_IN_TRANSACTION_MS = 5000;

export function openPostgres(url: string, maxConnections: number): PgDb {
  const client = new SQL(url, { max: maxConnections, connection: { idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS } });
  return drizzle({ client, schema }) as PgDb;
}

interface MigrationDialect {
  migrate(migrations: { sql: string[]; bps: boolean; folderMillis: number; hash: string }[], session: unknown, config: { migrationsFolder: string }): Promise<void>;
}

/** The call drizzle's folder-based migrate() makes, fed from the embedded SQL, on one locked connection. */
export async function migratePostgres(url: string): Promise<void> {
  const migrations = journal.entries.map((entry) => {
    const sql = migrationSql[entry.tag];
    if (sql === undefined) throw new Error(`migration ${entry.tag} is not embedded; run bun run db:generate`);
    return { sql: sql.split('--> statement-breakpoint'), bps: entry.breakpoints, folderMillis: entry.when, hash: createHash('sha256').update(sql).digest('hex') };
  });
  // One connection, so the session-level lock and the migration share it.
  const client = new SQL(url, { max: 1 });
  try {
    await client`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    const db = drizzle({ client, schema });
    const internals = db as unknown as { dialect: MigrationDialect; session: unknown };
    await internals.dialect.migrate(migrations, internals.session, { migrationsFolder: '(embedded)' });
    await client`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await client.close();
  }
}
