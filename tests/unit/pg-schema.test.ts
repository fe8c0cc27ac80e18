// schema.ts (SQLite) and pg-schema.ts (PostgreSQL) describe the same tables: a column added to one
// and not the other fails here, before a replica on Postgres and a single binary on SQLite disagree.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import pgJournal from '../../drizzle/pg/meta/_journal.json';
import { renderMigrationsModule } from '../../src/db/gen-migrations.ts';
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as pg from '../../src/db/pg-schema.ts';
import * as sqlite from '../../src/db/schema.ts';

/** Tables only Postgres needs: state one process keeps in memory, and what replicas hold apart. */
const PG_ONLY = new Set(['rate_buckets', 'watch_ingest_leases', 'credit_holds']);
/** SQLite's typeof(...) = 'integer' checks: Postgres refuses a bigint overflow by itself. */
const sqliteOnlyCheck = (name: string) => name.endsWith('_integer');

const shape = (t: { name: string; columns: { name: string; notNull: boolean; primary: boolean }[]; primaryKeys: { columns: { name: string }[] }[]; checks: { name: string }[]; indexes: { config: { name: string } }[] }) => ({
  name: t.name,
  columns: t.columns.map((c) => ({ name: c.name, notNull: c.notNull, primary: c.primary })).sort((a, b) => a.name.localeCompare(b.name)),
  primaryKeys: t.primaryKeys.map((k) => k.columns.map((c) => c.name)),
  checks: t.checks.map((c) => c.name).filter((n) => !sqliteOnlyCheck(n)).sort(),
  indexes: t.indexes.map((i) => i.config.name).sort(),
});

test('every SQLite table has a PostgreSQL twin with the same columns, keys, checks and indexes', () => {
  const lite = Object.values(sqlite).filter((t) => t instanceof SQLiteTable).map((t) => shape(sqliteConfig(t as SQLiteTable) as never));
  const post = Object.values(pg).filter((t) => t instanceof PgTable).map((t) => shape(pgConfig(t as PgTable) as never)).filter((t) => !PG_ONLY.has(t.name));
  expect(lite.length).toBeGreaterThan(0);
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  expect(post.sort(byName)).toEqual(lite.sort(byName));
});

test('the embedded PostgreSQL migrations module matches drizzle/pg (run bun run db:generate after a schema change)', () => {
  const expected = renderMigrationsModule(pgJournal.entries.map((e) => e.tag), 'drizzle/pg');
  expect(readFileSync(new URL('../../src/db/pg-migrations.gen.ts', import.meta.url), 'utf8')).toBe(expected);
});
