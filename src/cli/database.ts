// The database the operator commands read: the server's SQLite file, or its PostgreSQL when
// DATABASE_URL is set, as the server would choose. The commands never migrate: a database the
// server has not created is an error, not something to make. One SQL text serves both dialects;
// where they differ (a UTC day, whether a table exists) the dialect says how.
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';

/** The database cannot be read: exit 2 where a setting names no database, 1 where it cannot be reached. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

export interface OperatorDb {
  /** What the commands name as read: the file's absolute path, or the URL with its password masked. */
  readonly name: string;
  /** Rows of one statement; `$1`, `$2`... are its parameters. Integers may come back as bigint or string. */
  rows(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  hasTable(table: string): Promise<boolean>;
  /** Whether the table has the column: a database last migrated by an older gateway may lack a newer one. */
  hasColumn(table: string, column: string): Promise<boolean>;
  /** SQL for the UTC day (YYYY-MM-DD) of a column of Unix milliseconds. */
  utcDay(column: string): string;
  close(): Promise<void>;
}

/** A PostgreSQL URL fit to print: the password, in the userinfo or the query, replaced by ***. */
export function maskedUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  for (const [name] of [...u.searchParams]) if (/pass/i.test(name)) u.searchParams.set(name, '***');
  return u.toString();
}

function sqlite(path: string, write: boolean): OperatorDb {
  const file = resolve(path);
  if (!existsSync(file)) throw new OperatorError(`no database at ${file} (DATABASE_PATH / --database-path; start the gateway once to create it)`, 2);
  const client = new Database(file, write ? { readwrite: true, strict: true } : { readonly: true, strict: true });
  client.run('PRAGMA busy_timeout = 5000');
  return {
    name: file,
    async rows(sql, params = []) {
      return client.query(sql.replace(/\$(\d+)/g, '?$1')).safeIntegers(true).all(...(params as never[])) as Record<string, unknown>[];
    },
    async hasTable(table) {
      return client.query(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1`).get(table) !== null;
    },
    async hasColumn(table, column) {
      return client.query(`SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2`).get(table, column) !== null;
    },
    utcDay: (column) => `date(${column} / 1000, 'unixepoch')`,
    async close() {
      client.close();
    },
  };
}

function postgres(url: string): OperatorDb {
  const name = maskedUrl(url);
  const client = new SQL(url, { max: 1 });
  // A driver's message may quote the URL it was given; nothing printed may hold the password.
  const password = [new URL(url).password, ...[...new URL(url).searchParams].filter(([k]) => /pass/i.test(k)).map(([, v]) => v)].filter((p) => p.length > 0);
  const failed = (e: unknown): never => {
    let message = e instanceof Error ? e.message : String(e);
    for (const p of password) message = message.replaceAll(p, '***').replaceAll(encodeURIComponent(p), '***');
    if (/relation .* does not exist/.test(message)) throw new OperatorError(`no gateway tables in ${name} (start the gateway once on DATABASE_URL to create them)`, 2);
    throw new OperatorError(`cannot read ${name}: ${message}`, 1);
  };
  return {
    name,
    async rows(sql, params = []) {
      return (await client.unsafe(sql, params).catch(failed)) as Record<string, unknown>[];
    },
    async hasTable(table) {
      const [row] = await client.unsafe(`SELECT to_regclass($1) IS NOT NULL AS present`, [table]).catch(failed);
      return row.present === true;
    },
    async hasColumn(table, column) {
      const rows = await client.unsafe(`SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`, [table, column]).catch(failed);
      return rows.length > 0;
    },
    utcDay: (column) => `to_char(to_timestamp(${column} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
    async close() {
      await client.close();
    },
  };
}

/** The database the server with this configuration uses. */
export function openOperatorDb(config: Config, write: boolean): OperatorDb {
  return config.databaseUrl ? postgres(config.databaseUrl) : sqlite(config.databasePath, write);
}
