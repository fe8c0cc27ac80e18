// Smoke test of the built executable on PostgreSQL, run by .ci/run after `bun run build`: the lone
// binary with DATABASE_URL migrates an empty database from its embedded SQL, keeps nothing on
// local disk, and serves the routes that write billing state.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { SQL } from 'bun';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as pgSchema from '../../src/db/pg-schema.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { freePort, waitForHealthy } from '../support/process.ts';

setDefaultTimeout(30_000);
const BINARY = join(import.meta.dir, '../../dist/gateway');
const skip = shouldSkipPostgres('binary on postgres');
let dir: string;
let proc: ReturnType<typeof Bun.spawn>;
let url: string;
let databaseUrl: string;

beforeAll(async () => {
  if (skip) return;
  if (!existsSync(BINARY)) throw new Error('dist/gateway is missing: run `bun run build` first');
  databaseUrl = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'cig-smoke-pg-'));
  copyFileSync(BINARY, join(dir, 'gateway'));
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  proc = Bun.spawn([join(dir, 'gateway')], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: tmpdir(), PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, MAINNET_RPC_URLS: 'http://127.0.0.1:9', DEVNET_RPC_URLS: 'http://127.0.0.1:9' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  await waitForHealthy(url, { ms: 30_000, proc, why: () => new Response(proc.stderr as ReadableStream).text() });
}, POSTGRES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  proc?.kill('SIGTERM');
  await proc?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.skipIf(skip)('it migrated the empty database and wrote nothing beside itself', async () => {
  const sql = new SQL(databaseUrl);
  const tables = (await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`).map((r: { tablename: string }) => r.tablename);
  await sql.close();
  const declared = Object.values(pgSchema).filter((t) => t instanceof PgTable).map((t) => getTableConfig(t as PgTable).name);
  expect(declared.length).toBeGreaterThan(0);
  expect(tables).toEqual(declared.sort());
  expect(readdirSync(dir)).toEqual(['gateway']);
});

test.skipIf(skip)('a challenge is issued (a write to Postgres) and health checks the database', async () => {
  const res = await fetch(url + '/api/keys/challenge');
  expect(res.status).toBe(200);
  const { challenge } = (await res.json()) as { challenge: string };
  expect(challenge).toMatch(/^[0-9a-f]{64}$/);
  const health = await fetch(url + '/healthz');
  expect(health.status).toBe(200);
});

test.skipIf(skip)('gateway stats and keys list, from the binary, read DATABASE_URL and say it is empty', () => {
  const env = { PATH: '/usr/bin:/bin', HOME: dir, DATABASE_URL: databaseUrl };
  const stats = Bun.spawnSync([join(dir, 'gateway'), 'stats', '--json'], { cwd: dir, env, stderr: 'pipe' });
  expect(stats.exitCode).toBe(0);
  expect(JSON.parse(stats.stdout.toString())).toMatchObject({ database: databaseUrl, empty: true, keys: { active: 0, revoked: 0, wallets: 0 } });
  const keys = Bun.spawnSync([join(dir, 'gateway'), 'keys', 'list'], { cwd: dir, env, stderr: 'pipe' });
  expect(keys.exitCode).toBe(0);
  expect(keys.stdout.toString()).toBe(`no keys in ${databaseUrl}\n`);
  expect(readdirSync(dir)).toEqual(['gateway']);
});
