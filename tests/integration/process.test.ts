// The gateway as an operator runs it: a process started from the CLI entry.
import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, sandboxPorts, waitForHealthy } from '../support/process.ts';

const MAIN = join(import.meta.dir, '../../src/main.ts');

describe('the gateway process', () => {
  test('--help lists the settings and exits 0', async () => {
    const p = Bun.spawn(['bun', MAIN, '--help'], { stdout: 'pipe' });
    const out = await new Response(p.stdout).text();
    expect(await p.exited).toBe(0);
    expect(out).toContain('GATEWAY_ADDRESS');
    expect(out).toContain('--database-path');
    // Not a terminal: laid out for 80 columns.
    expect(out.split('\n').filter((l) => l.length > 80)).toEqual([]);
  });

  test('a bad setting stops it at once with a clear message and exit code 2', async () => {
    const p = Bun.spawn(['bun', MAIN], { env: { ...process.env, PORT: 'eighty' }, stderr: 'pipe' });
    const err = await new Response(p.stderr).text();
    expect(await p.exited).toBe(2);
    expect(err).toContain('PORT');
    expect(err).toContain('eighty');
  });

  test.each([
    ['PORT', ['--port', '70000']],
    ['HOST', ['--host', '999.1.1.1']],
    ['HOST', ['--host', 'bad host!']],
    ['DATABASE_PATH', ['--database-path', '/nonexistent-cig/deeper/gw.sqlite']],
    ['DATABASE_PATH', ['--database-path', '/tmp']],
    ['DATABASE_PATH', ['--database-path', '/proc/gw.sqlite']], // not writable, even for root
    ['MAINNET_RPC_URLS', ['--mainnet-rpc-urls', 'ftp://rpc.example/?api-key=SECRET123']],
    ['LOG_FORMAT', ['--log-format', 'xml']],
    ['unknown option --no-such-flag', ['--no-such-flag', '1']],
    ['PRICE_LAMPORTS', ['--price-lamports', 'x'.repeat(5000)]],
    ['PRICES', ['--prices', 'balance=5']],
    ['PRICES', ['--prices', 'no-such-capability=5']],
  ])('a bad setting (%s) prints one short line naming it and exits 2 before opening anything', async (name, args) => {
    const dir = mkdtempSync(join(tmpdir(), 'cig-bad-'));
    const p = Bun.spawn(['bun', MAIN, ...args], { cwd: dir, env: { ...process.env, PORT: '0' }, stdout: 'pipe', stderr: 'pipe' });
    const err = await new Response(p.stderr).text();
    expect(await p.exited).toBe(2);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
    expect(Buffer.byteLength(err)).toBeLessThan(600);
    expect(err).toContain(name);
    expect(err).not.toContain('SECRET123');
    expect(err).not.toContain('    at ');
    expect(existsSync(join(dir, 'data'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  test('a second sandbox on a taken port fails instead of sharing it', async () => {
    const port = String(sandboxPorts().sandbox);
    const dir = mkdtempSync(join(tmpdir(), 'cig-sandbox-'));
    const env = { ...process.env, SANDBOX_PORT: port, SANDBOX_WALLET: join(dir, 'wallet.json') };
    const first = Bun.spawn(['bun', join(import.meta.dir, '../support/sandbox/main.ts')], { env, stdout: 'pipe', stderr: 'pipe' });
    try {
      const reader = first.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain(`127.0.0.1:${port}`);
      const second = Bun.spawn(['bun', join(import.meta.dir, '../support/sandbox/main.ts')], { env, stdout: 'pipe', stderr: 'pipe' });
      expect(await second.exited).toBe(1);
      expect(await new Response(second.stderr).text()).toContain(`cannot listen on 127.0.0.1:${port}`);
    } finally {
      first.kill('SIGTERM');
      await first.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test('the documented spelling --mcp-keepalive-seconds (docs/operations.md) is accepted beside --mcp-keep-alive-seconds', async () => {
    for (const flag of ['--mcp-keepalive-seconds', '--mcp-keep-alive-seconds']) {
      const p = Bun.spawn(['bun', MAIN, flag, 'nope'], { stderr: 'pipe' });
      const err = await new Response(p.stderr).text();
      expect(await p.exited).toBe(2);
      expect(err).toContain('MCP_KEEPALIVE_SECONDS');
    }
  }, 20_000);

  test('creates its database (WAL) in an empty folder, says deposits are off, refuses a second instance on the same port, and shuts down on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cig-proc-'));
    const port = freePort();
    const dbPath = join(dir, 'gw.sqlite');
    const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: dbPath, MAINNET_RPC_URLS: 'http://127.0.0.1:9' };
    const first = Bun.spawn(['bun', MAIN], { env, stderr: 'pipe' });
    try {
      await waitForHealthy(`http://127.0.0.1:${port}`);
      expect(existsSync(dbPath)).toBe(true);
      const db = new Database(dbPath, { readonly: true });
      expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(db.query("SELECT name FROM sqlite_master WHERE name = 'credit_accounts'").get()).toBeTruthy();
      db.close();

      const second = Bun.spawn(['bun', MAIN], { env: { ...env, DATABASE_PATH: join(dir, 'other.sqlite') }, stderr: 'pipe' });
      const secondErr = await new Response(second.stderr).text();
      expect(await second.exited).not.toBe(0);
      expect(secondErr).toContain(`cannot listen on 127.0.0.1:${port}`);
    } finally {
      first.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      const log = await new Response(first.stderr).text();
      expect(log).toContain('deposits are not configured');
      expect(log).toContain('shutting down');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
