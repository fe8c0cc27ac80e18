// `gateway stats` and `gateway keys` name the database they read (a PostgreSQL password masked),
// say plainly when it is empty, and read the one the server uses: DATABASE_URL when set, else
// DATABASE_PATH, relative to where they run. Against a real gateway, SQLite file and PostgreSQL.
import { describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { openDatabase } from '../../src/db/client.ts';
import { claim, deposit, fundedKey, heliusPayload } from '../support/agent.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, postgresAdminUrl, shouldSkipPostgres } from '../support/postgres.ts';
import { freePort, MAIN } from '../support/process.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { EXAMPLE_WALLET } from '../../src/capabilities/examples.ts';

const PRICE = 2_200_000;
const PASSWORD = 'op-S3cret-pw';

async function gatewayCli(args: string[], env: Record<string, string>, cwd?: string) {
  const p = Bun.spawn(['bun', MAIN, ...args], { cwd, env: { PATH: process.env.PATH!, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

/**
 * A key the operator revoked between `before` and `after` says so, with when: the next paid call's
 * 402 has its own code and reason (not a newer claim's), and /api/keys/me a 401 that names it.
 */
async function expectRevokedByOperator(gw: TestGateway, key: string, before: number, after: number) {
  const refused = await gw.get(`/api/chain/token-accounts?wallet=${EXAMPLE_WALLET}`, { 'x-api-key': key });
  expect(refused.status).toBe(402);
  expect(refused.body).toMatchObject({ error: 'Payment required', code: 'revoked_by_operator' });
  expect(refused.body.reason).toContain("revoked by this gateway's operator");
  expect(refused.body.reason).not.toContain('newer claim');
  const me = await gw.get('/api/keys/me', { 'x-api-key': key });
  expect(me.status).toBe(401);
  expect(me.body).toMatchObject({ error: 'API key revoked', code: 'revoked_by_operator', reason: refused.body.reason, revokedAt: refused.body.revokedAt });
  const at = Date.parse(me.body.revokedAt);
  expect(at).toBeGreaterThanOrEqual(before);
  expect(at).toBeLessThanOrEqual(after);
}

const setup = sandboxGateways(async () => ({ gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec-operator-cmds', priceLamports: PRICE, freeCalls: 0 }));

describe('the command line', () => {
  test('`gateway <command> --help` shows that command\'s help, not the server\'s; an unknown command lists the commands', async () => {
    const server = await gatewayCli(['--help'], {});
    expect(server.code).toBe(0);
    for (const command of ['keys', 'stats']) {
      for (const args of command === 'keys' ? [['keys', '--help'], ['keys', 'revoke', '-h']] : [['stats', '--help']]) {
        const help = await gatewayCli(args, {});
        expect(help.code).toBe(0);
        expect(help.out).toContain(`gateway ${command}`);
        expect(help.out).not.toContain('PORT');
        expect(help.out.split('\n').length).toBeLessThan(20);
        expect(help.out.split('\n').length).toBeLessThan(server.out.split('\n').length / 4);
      }
    }
    expect((await gatewayCli(['keys', '--help'], {})).out).toContain('gateway keys revoke <wallet>');
    const unknown = await gatewayCli(['frobnicate'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.out).toBe('');
    expect(unknown.err).toStartWith('gateway: unknown command "frobnicate". The commands:\n');
    for (const listed of ['gateway stats', 'gateway keys list', 'gateway keys revoke <wallet>', 'gateway --help']) expect(unknown.err).toContain(listed);
    expect(unknown.err).not.toContain('invalid setting');
    // A setting the server does not know is still named as one.
    expect((await gatewayCli(['--frobnicate', '1'], {})).err).toContain('invalid setting: unknown option --frobnicate');
  }, 90_000);
});

describe('on SQLite', () => {
  test('run elsewhere, they name the file they read and say it is empty; the JSON key list stays a bare list', async () => {
    // The default DATABASE_PATH is relative: a command run in another folder reads that folder's file.
    const gw = await setup.gateway();
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'cig-ops-other-')));
    try {
      const otherFile = join(other, 'data/gateway.sqlite');
      openDatabase(otherFile).$client.close(); // what a gateway started there once leaves: migrated, empty

      const stats = await gatewayCli(['stats'], {}, other);
      expect(stats.code).toBe(0);
      expect(stats.out.split('\n')[0]).toBe(`database        ${otherFile} (empty: no keys, deposits, accounts or x402 payments yet)`);
      const keys = await gatewayCli(['keys', 'list'], {}, other);
      expect(keys).toMatchObject({ code: 0, out: `no keys in ${otherFile}\n` });
      const json = await gatewayCli(['keys', 'list', '--json'], {}, other);
      expect(JSON.parse(json.out)).toEqual([]);
      expect(json.err).toBe(`gateway keys list: 0 keys in ${otherFile}\n`);

      // The server's own file, named by DATABASE_PATH, holds the key bought on it.
      const { wallet } = await fundedKey(gw, setup.chain, PRICE);
      const own = await gatewayCli(['keys', 'list'], { DATABASE_PATH: gw.config.databasePath }, other);
      expect(own.out.split('\n')[0]).toBe(`database ${gw.config.databasePath}: 1 key`);
      // Each key with its wallet's credit and free calls.
      expect(own.out.split('\n')[1]).toMatch(/^key id +wallet +created +credit +free calls +state$/);
      expect(own.out.split('\n')[2]).toMatch(new RegExp(`^[0-9a-f]{12}  ${wallet} +\\S+ +${PRICE} lamports +0  active$`));
      const ownJson = await gatewayCli(['keys', 'list', '--json'], { DATABASE_PATH: gw.config.databasePath }, other);
      expect(JSON.parse(ownJson.out)).toMatchObject([{ wallet, creditLamports: String(PRICE), freeCalls: 0, revokedAt: null }]);
      const ownStats = JSON.parse((await gatewayCli(['stats', '--json'], { DATABASE_PATH: gw.config.databasePath }, other)).out);
      expect(ownStats).toMatchObject({ database: gw.config.databasePath, empty: false, keys: { active: 1 } });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 60_000);

  test('a key the operator revokes is refused as revoked by the operator, and /api/keys/me says when', async () => {
    const gw = await setup.gateway();
    const { key, wallet } = await fundedKey(gw, setup.chain, PRICE * 2);
    expect((await gw.get('/api/keys/me', { 'x-api-key': key })).status).toBe(200);
    const before = Date.now();
    const revoke = await gatewayCli(['keys', 'revoke', wallet], { DATABASE_PATH: gw.config.databasePath });
    expect(revoke).toMatchObject({ code: 0, out: `revoked 1 key of ${wallet} in ${gw.config.databasePath}\n` });
    await expectRevokedByOperator(gw, key, before, Date.now());
    const list = await gatewayCli(['keys', 'list'], { DATABASE_PATH: gw.config.databasePath });
    expect(list.out).toMatch(new RegExp(`${wallet} +\\S+ +${PRICE * 2} lamports +0  revoked \\S+ by the operator\n`));
    const unknown = await gw.get('/api/keys/me', { 'x-api-key': 'cig_1111111111111111111111111111111111111111' });
    expect(unknown).toMatchObject({ status: 401, body: { error: 'Invalid API key' } });
  }, 30_000);

  test('credit is never stranded: after a revoke, a claim says what the wallet holds and the deposit that issues a new key, which carries it', async () => {
    const gw = await setup.gateway();
    const { key, wallet, signer } = await fundedKey(gw, setup.chain, PRICE * 3);
    expect((await gw.get(`/api/chain/token-accounts?wallet=${EXAMPLE_WALLET}`, { 'x-api-key': key })).status).toBe(200);
    expect((await gatewayCli(['keys', 'revoke', wallet], { DATABASE_PATH: gw.config.databasePath })).code).toBe(0);
    const again = await claim(gw, signer);
    expect(again.status).toBe(404);
    const min = gw.config.minDepositLamports;
    expect(again.body).toEqual({
      error: 'No pending key found for this wallet. Please send SOL to top up.',
      code: 'credit_without_key',
      wallet,
      creditLamports: PRICE * 2,
      freeCallsRemaining: 0,
      payTo: gw.config.gatewayAddress,
      network: 'mainnet-beta',
      minDepositLamports: min,
      hint: `This wallet still holds ${PRICE * 2} lamports (0.0044 SOL) of credit and 0 free calls, kept for it. A key is issued after a deposit: send at least ${min} lamports (0.0022 SOL) to ${gw.config.gatewayAddress} on mainnet-beta from this wallet, then claim again; the new key carries the credit.`,
    });
    // The way it names works: a deposit of the minimum issues a key holding both.
    const sig = await deposit(setup.chain, signer, gw.config.gatewayAddress as Address, BigInt(min));
    expect((await gw.post('/api/payments/webhook', heliusPayload(sig, wallet, gw.config.gatewayAddress!, min), { authorization: gw.config.webhookSecret! })).status).toBe(200);
    const fresh = await claim(gw, signer);
    expect(fresh.status).toBe(200);
    expect((await gw.get('/api/keys/me', { 'x-api-key': fresh.body.apiKey })).body).toMatchObject({ wallet, creditLamports: PRICE * 2 + min });
    // A wallet that never held anything: the plain code, nothing held, the same way in.
    const stranger = await claim(gw, await generateKeyPairSigner());
    expect(stranger.body).toMatchObject({ code: 'no_pending_key', creditLamports: 0, freeCallsRemaining: 0, minDepositLamports: min });
    expect(stranger.body.hint).toStartWith('A key is issued after a deposit');
  }, 30_000);

  test('keys revoke of a wallet with no live key exits 1 and says so; nothing changes', async () => {
    const gw = await setup.gateway();
    const stranger = (await generateKeyPairSigner()).address;
    const revoke = await gatewayCli(['keys', 'revoke', stranger], { DATABASE_PATH: gw.config.databasePath });
    expect(revoke.code).toBe(1);
    expect(revoke.out).toBe('');
    expect(revoke.err).toBe(`gateway keys revoke: no live key of ${stranger} in ${gw.config.databasePath}: nothing revoked\n`);
    const json = await gatewayCli(['keys', 'revoke', stranger, '--json'], { DATABASE_PATH: gw.config.databasePath });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({ database: gw.config.databasePath, wallet: stranger, revoked: 0 });
  }, 30_000);

  test('keys revoke works on a database an older gateway last migrated (no revoked_by yet)', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cig-ops-older-')));
    try {
      const file = join(dir, 'gateway.sqlite');
      const db = openDatabase(file).$client;
      db.run('ALTER TABLE api_keys DROP COLUMN revoked_by');
      const wallet = (await generateKeyPairSigner()).address;
      db.run('INSERT INTO api_keys (key_hash, wallet, created_at) VALUES (?1, ?2, ?3)', ['ab'.repeat(32), wallet, Date.now()]);
      db.close();
      const revoke = await gatewayCli(['keys', 'revoke', wallet], { DATABASE_PATH: file });
      expect(revoke).toMatchObject({ code: 0, out: `revoked 1 key of ${wallet} in ${file}\n` });
      const list = await gatewayCli(['keys', 'list', '--json'], { DATABASE_PATH: file });
      expect(JSON.parse(list.out)).toMatchObject([{ wallet, revokedAt: expect.any(String), revokedBy: null }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no file at DATABASE_PATH: one line naming the absolute path, exit 2, nothing created', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cig-ops-none-')));
    try {
      const res = await gatewayCli(['keys', 'list'], {}, dir);
      expect(res.code).toBe(2);
      expect(res.err.trim().split('\n')).toEqual([expect.stringContaining(`no database at ${join(dir, 'data/gateway.sqlite')}`)]);
      expect(await Bun.file(join(dir, 'data/gateway.sqlite')).exists()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(shouldSkipPostgres('operator commands'))('on PostgreSQL (DATABASE_URL)', () => {
  /** The test server's URL for `database`, as a role with a password (trust auth ignores it; the URL still carries it). */
  async function withPassword(database: string): Promise<string> {
    const admin = new SQL(await postgresAdminUrl());
    await admin.unsafe(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'operator') THEN CREATE ROLE operator LOGIN SUPERUSER PASSWORD '${PASSWORD}'; END IF; END $$`);
    await admin.close();
    const url = new URL(database);
    url.username = 'operator';
    url.password = PASSWORD;
    return url.toString();
  }
  const masked = (url: string) => url.replace(PASSWORD, '***');

  test('they read the server PostgreSQL, name it with the password masked, and revoke a key there', async () => {
    const url = await withPassword(await freshDatabase());
    const gw = await setup.gateway({ databaseUrl: url });
    const env = { DATABASE_URL: url };

    const empty = await gatewayCli(['stats'], env);
    expect(empty.code).toBe(0);
    expect(empty.out.split('\n')[0]).toBe(`database        ${masked(url)} (empty: no keys, deposits, accounts or x402 payments yet)`);
    expect(await gatewayCli(['keys', 'list'], env)).toMatchObject({ code: 0, out: `no keys in ${masked(url)}\n` });

    const { key, wallet } = await fundedKey(gw, setup.chain, PRICE * 3);
    const paid = () => gw.get(`/api/chain/token-accounts?wallet=${wallet}`, { 'x-api-key': key });
    expect((await paid()).status).toBe(200);
    expect((await paid()).status).toBe(200);

    const stats = await gatewayCli(['stats', '--json'], env);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.out)).toMatchObject({
      database: masked(url),
      empty: false,
      keys: { active: 1, revoked: 0, wallets: 1 },
      deposits: { credited: { count: 1, lamports: String(PRICE * 3) } },
      creditOutstanding: { lamports: String(PRICE), freeCalls: 0 },
      revenueLamports: String(PRICE * 2),
      paidCallsMade: 2,
      topWallets: [{ wallet, callsMade: 2, creditLamports: String(PRICE), freeCalls: 0, depositedLamports: String(PRICE * 3) }],
    });
    const text = await gatewayCli(['stats'], env);
    expect(text.out.split('\n')[0]).toBe(`database        ${masked(url)}`);
    expect(text.out).toContain(wallet);

    const list = await gatewayCli(['keys', 'list', '--json'], env);
    expect(JSON.parse(list.out)).toMatchObject([{ keyId: new Bun.CryptoHasher('sha256').update(key).digest('hex').slice(0, 12), wallet, revokedAt: null, revokedBy: null, creditLamports: String(PRICE), freeCalls: 0 }]);
    expect(list.err).toBe(`gateway keys list: 1 key in ${masked(url)}\n`);

    const before = Date.now();
    const revoke = await gatewayCli(['keys', 'revoke', wallet], env);
    expect(revoke).toMatchObject({ code: 0, out: `revoked 1 key of ${wallet} in ${masked(url)}\n` });
    // Every call on PostgreSQL looks its key up: the revocation holds at once.
    await expectRevokedByOperator(gw, key, before, Date.now());

    for (const r of [empty, stats, text, list, revoke]) expect(r.out + r.err).not.toContain(PASSWORD);
  }, POSTGRES_HOOK_TIMEOUT_MS);

  test('a database the gateway never migrated: exit 2 saying so; an unreachable server: exit 1; the password never shown', async () => {
    const url = await withPassword(await freshDatabase());
    const bare = await gatewayCli(['stats'], { DATABASE_URL: url });
    expect(bare.code).toBe(2);
    expect(bare.err).toBe(`gateway stats: no gateway tables in ${masked(url)} (start the gateway once on DATABASE_URL to create them)\n`);

    const down = `postgres://operator:${PASSWORD}@127.0.0.1:${freePort()}/gateway`;
    const unreachable = await gatewayCli(['keys', 'list'], { DATABASE_URL: down });
    expect(unreachable.code).toBe(1);
    expect(unreachable.err.trim().split('\n')).toEqual([expect.stringContaining(`gateway keys: cannot read ${masked(down)}`)]);
    for (const r of [bare, unreachable]) expect(r.out + r.err).not.toContain(PASSWORD);
  }, POSTGRES_HOOK_TIMEOUT_MS);
});
