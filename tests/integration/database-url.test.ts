// DATABASE_URL: only postgres:// URLs are accepted, a bad one is refused without repeating it (it
// holds a password), and a database that cannot be reached stops the start with a clear message.
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { ConfigError, loadConfig, secretsOf } from '../../src/config.ts';
import { freePort } from '../support/process.ts';

const MAIN = join(import.meta.dir, '../../src/main.ts');
const PASSWORD = 'hunter2-s3cret';

test('postgres:// and postgresql:// select Postgres; unset keeps SQLite; the URL is a secret', () => {
  expect(loadConfig([], {}).databaseUrl).toBeUndefined();
  const url = `postgres://gw:${PASSWORD}@db:5432/gateway`;
  const c = loadConfig([], { DATABASE_URL: url });
  expect(c.databaseUrl).toBe(url);
  expect(secretsOf(c)).toContain(url);
  expect(loadConfig(['--database-url', 'postgresql://db/x'], {}).databaseUrl).toBe('postgresql://db/x');
});

test('another scheme or a non-URL is refused, and the message never repeats the value', () => {
  for (const bad of [`mysql://gw:${PASSWORD}@db/x`, `gw:${PASSWORD}@db`, `http://gw:${PASSWORD}@db/x`]) {
    let error: unknown;
    try {
      loadConfig([], { DATABASE_URL: bad });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('DATABASE_URL');
    expect((error as Error).message).not.toContain(PASSWORD);
  }
});

test('an unreachable database: the process exits 1 saying so, without the password', async () => {
  const url = `postgres://gw:${PASSWORD}@127.0.0.1:${freePort()}/gateway`;
  const p = Bun.spawn(['bun', MAIN], { env: { ...process.env, PORT: String(freePort()), HOST: '127.0.0.1', DATABASE_URL: url }, stderr: 'pipe', stdout: 'pipe' });
  const [err, out] = await Promise.all([new Response(p.stderr).text(), new Response(p.stdout).text()]);
  expect(await p.exited).toBe(1);
  expect(err).toContain('cannot open the database');
  expect(err + out).not.toContain(PASSWORD);
}, 30_000);
