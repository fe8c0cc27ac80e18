// Postgres's own time for the statement it spent most time on, for the Postgres benches: with
// pg_stat_statements (PostgreSQL's contrib), loaded by a restart of the bench's own server.
import { SQL } from 'bun';
import type { PostgresServer } from '../tests/support/postgres.ts';

/** The busiest statement's runs, how often it was planned, and its mean time per run in Postgres (ms). */
export interface StatementTime {
  calls: number;
  plans: number;
  ms: number;
}

/**
 * Loads pg_stat_statements (timing planning too) into `server` and creates it in `database`.
 * `since()`: what the busiest statement took since it was last asked (whose counts then start
 * again); null when this PostgreSQL has no pg_stat_statements. `close` ends its connection.
 */
export async function busiestStatement(server: PostgresServer, database: string): Promise<{ since(): Promise<StatementTime | null>; close(): Promise<void> }> {
  const sql = new SQL(server.url, { max: 1 });
  const [available] = await sql`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_stat_statements'`;
  if (available) await sql.unsafe("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await sql.close();
  if (!available) return { since: async () => null, close: async () => {} };
  await server.restart();
  const admin = new SQL(database, { max: 1 });
  await admin.unsafe('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
  await admin.unsafe('SELECT pg_reload_conf()');
  await admin.unsafe('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    async since() {
      const [top] = await admin`SELECT calls, plans, total_exec_time / greatest(calls, 1) AS exec FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 1`;
      await admin`SELECT pg_stat_statements_reset()`;
      return top ? { calls: Number(top.calls), plans: Number(top.plans), ms: Number(top.exec) } : null;
    },
    close: () => admin.close(),
  };
}
