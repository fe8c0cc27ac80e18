// A real PostgreSQL server for the tests: Debian's binaries, `initdb` into a temp folder, a free
// loopback port, run as an unprivileged user (postgres refuses to run as root), stopped when the
// test run ends (tests/support/teardown.ts, preloaded by bunfig.toml). One server per test process;
// each test gets its own fresh database.
// TEST_POSTGRES_URL (an admin URL) uses an existing server instead. Without either, Postgres tests
// skip with a printed reason, except under CI=true where a missing Postgres is a failure.
import { SQL } from 'bun';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './process.ts';

const PG_ROOT = '/usr/lib/postgresql';
const RUN_AS = 'nobody';

function binDir(): string | null {
  if (!existsSync(PG_ROOT)) return null;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(PG_ROOT, versions[0]!, 'bin') : null;
}

const isRoot = process.getuid?.() === 0;
const asUser = (bin: string, args: string[]) => (isRoot ? ['runuser', '-u', RUN_AS, '--', bin, ...args] : [bin, ...args]);

/** Runs a postgres binary (as the unprivileged user when we are root) without blocking the event loop. */
async function run(bin: string, args: string[]) {
  const p = Bun.spawn(asUser(bin, args), { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${bin} failed (${code}): ${err || out}`);
}

let server: Promise<string> | undefined;
let stop: (() => Promise<void>) | undefined;

/** Stops the server this process started, if any (bun test runs no 'exit' handlers). */
export async function stopPostgres(): Promise<void> {
  await server?.catch(() => {});
  await stop?.();
  server = stop = undefined;
}

/**
 * Starts a server of its own. Tests run without fsync (a crash of the test machine loses nothing
 * of value); `durable` keeps Postgres's defaults, for benchmarks that compare with SQLite's FULL sync.
 */
export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
  /** Takes the server away as an outage would: `pg_ctl stop` in `immediate` or `fast` (graceful) mode, or a kill -9 of all its processes. */
  down(how: 'immediate' | 'fast' | 'kill9'): Promise<void>;
  /** Starts it again on the same port and data (after down()). */
  up(): Promise<void>;
  /** `pg_ctl restart -m fast`: a graceful restart, back as soon as it can be. */
  restart(): Promise<void>;
}

export async function startPostgres(opts: { durable?: boolean } = {}): Promise<PostgresServer> {
  const bin = binDir();
  if (!bin) throw new Error(postgresUnavailable() ?? 'no PostgreSQL binaries');
  const dir = mkdtempSync(join(tmpdir(), 'cig-pg-'));
  // The unprivileged user must own the data folder; tmp folders are created 0700 by root.
  if (isRoot) spawnSync('chown', ['-R', RUN_AS, dir]);
  else chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = freePort();
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const fast = opts.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300${fast}`;
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    async down(how) {
      if (how !== 'kill9') return run(join(bin, 'pg_ctl'), ['-D', data, '-m', how, '-w', 'stop']);
      // The postmaster and every backend at once, as the OOM killer or a crash would leave them.
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
      for (const pid of [postmaster, ...children]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      while (spawnSync('kill', ['-0', String(postmaster)]).status === 0) await Bun.sleep(20);
    },
    up: start,
    restart: () => run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-o', settings, '-l', join(dir, 'server.log'), '-w', 'restart']),
  };
}

/** Why Postgres tests cannot run here, or null when they can. */
export function postgresUnavailable(): string | null {
  if (process.env.TEST_POSTGRES_URL) return null;
  if (!binDir()) return `no PostgreSQL server binaries under ${PG_ROOT} (apt-get install postgresql) and TEST_POSTGRES_URL unset`;
  return null;
}

/** Postgres is required under CI; locally its absence only skips, loudly. */
export function shouldSkipPostgres(suite: string): boolean {
  const why = postgresUnavailable();
  if (!why) return false;
  if (process.env.CI === 'true') throw new Error(`${suite}: PostgreSQL is required in CI: ${why}`);
  console.warn(`SKIPPED ${suite} on PostgreSQL: ${why}`);
  return true;
}

/** Admin URL of the shared test server, starting it on first use. */
export function postgresAdminUrl(): Promise<string> {
  server ??= (async () => {
    if (process.env.TEST_POSTGRES_URL) return process.env.TEST_POSTGRES_URL;
    const started = await startPostgres();
    stop = started.stop;
    return started.url;
  })();
  return server;
}

/** Starting a server (initdb) takes seconds on a busy machine: hooks that call freshDatabase() need this. */
export const POSTGRES_HOOK_TIMEOUT_MS = 120_000;

/** A new empty database on the shared server (or on the server at `admin`); its URL. */
export async function freshDatabase(admin?: string): Promise<string> {
  admin ??= await postgresAdminUrl();
  const name = `cig_${crypto.randomUUID().replaceAll('-', '')}`;
  const sql = new SQL(admin);
  await sql.unsafe(`CREATE DATABASE ${name}`);
  await sql.close();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
