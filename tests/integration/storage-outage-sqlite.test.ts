// The single binary's storage going away under paid load (issue 33): DATABASE_PATH on a small tmpfs
// that fills up, and the file's write lock held by another process beyond the busy timeout. Paid
// calls answer storage_unavailable with Retry-After (REST and both MCP transports), nothing refused
// stays debited, free calls go on, /readyz says why, the log says it once, and the gateway is back
// on its own within 2 s of the cause going, with one usage row per 2xx answer.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { fundedKey, signChallenge } from '../support/agent.ts';
import { CLIENTS, connectMcp } from '../support/mcp.ts';
import { ask, expectStorageUnavailable, fillDisk, holdWriteLock, load, mountTmpfs, type Answer } from '../support/outage.ts';
import { within } from '../support/poll.ts';
import type { TestGateway } from '../support/gateway.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { activity, keyWithCredit, newWallet, receiver } from '../support/watch.ts';
import { WATCH_EVENT_DEFAULT_LAMPORTS as EVENT_PRICE } from '../../src/watch/watches.ts';

setDefaultTimeout(60_000);

const PRICE = 2_200_000;
const CREDIT_CALLS = 20_000;
const SECRET = 'whsec_outage';
const suite = 'storage outage on SQLite';

const sandbox = sandboxGateways({ mint: true });
const tmpfs = mountTmpfs(24, suite);
// Registered after sandboxGateways' own: the gateways on it are stopped first.
afterAll(() => tmpfs?.unmount());

interface Funded {
  gw: TestGateway;
  key: string;
  paidUrl: string;
  freeUrl: string;
}

async function fundedGateway(databasePath?: string): Promise<Funded> {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const gw = await sandbox.gateway({ ...(databasePath ? { databasePath } : {}), gatewayAddress, webhookSecret: SECRET, freeCalls: 0 });
  gw.services.readiness.start();
  const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT_CALLS * PRICE);
  return { gw, key, paidUrl: `${gw.url}/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, freeUrl: `${gw.url}/api/chain/blockhash` };
}

/** Paid calls from 6 clients, each pausing 20 ms between calls (a few hundred a second at most). */
const paidLoad = (f: Funded) => load(6, async () => (await Bun.sleep(20), ask(f.paidUrl, { 'x-api-key': f.key })));

const readyz = async (gw: TestGateway) => (await ask(gw.url + '/readyz')).body;

/** While the storage is away: MCP paid tool calls through the official clients (both transports, and the 2026-07-28 stateless revision) are error results with the same body. */
async function expectMcpRefusals(f: Funded, wallet: string) {
  for (const kind of CLIENTS) {
    const mcp = await connectMcp(f.gw.url, kind, { headers: { 'x-api-key': f.key } });
    try {
      const r = await mcp.call('find_ata', { wallet, mint: sandbox.mint });
      expect({ kind, isError: r.isError, code: r.body?.code }).toEqual({ kind, isError: true, code: 'storage_unavailable' });
      const http = r.result._meta['io.github.chain-intelligence-gateway/http'];
      expect(http.status).toBe(500);
      expect(Number(http.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
  }
}

/** What every outage must leave behind, whatever its cause. */
async function expectExact(f: Funded, answers: Answer[], databasePath: string) {
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  expect(refused.length).toBeGreaterThan(0);
  for (const a of refused) expectStorageUnavailable(a);
  // No refused call kept its debit: the credit is the deposit less the 2xx answers, exactly.
  const me = (await f.gw.get('/api/keys/me', { 'x-api-key': f.key })).body;
  expect({ creditLamports: me.creditLamports, callsMade: me.callsMade }).toEqual({ creditLamports: (CREDIT_CALLS - ok.length) * PRICE, callsMade: ok.length });
  // Told once, and once that it is over (after it has stayed back for 2 s): no line per refused call, no stack.
  const logs = f.gw.logs;
  await within(5_000, () => logs.some((l) => l.includes('storage answers again (sqlite')));
  expect(logs.filter((l) => l.includes('storage unavailable (sqlite'))).toHaveLength(1);
  expect(logs.filter((l) => l.includes('storage answers again (sqlite'))).toHaveLength(1);
  expect(logs.filter((l) => /unhandled error|capability failed/.test(l))).toEqual([]);
  const metrics = (await ask(f.gw.url + '/metrics')).body as string;
  expect(metrics).toContain('gateway_storage_available 1');
  const counted = [...metrics.matchAll(/^gateway_storage_unavailable_total\{reason="[^"]+"\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  expect(counted).toBeGreaterThanOrEqual(refused.length);
  // One usage row per 2xx answer, none for a refused call (written once the database took writes again).
  await f.gw.services.usage.settled();
  const db = new Database(databasePath, { readonly: true });
  try {
    const rows = db.query<{ status: number; refunded: number; n: number }, []>('SELECT status, refunded, count(*) AS n FROM usage_events GROUP BY status, refunded').all();
    expect(rows).toEqual([{ status: 200, refunded: 0, n: ok.length }]);
  } finally {
    db.close();
  }
}

describe.skipIf(!tmpfs)(suite, () => {
  test('DATABASE_PATH on a full disk: storage_unavailable with Retry-After, free calls 200, /readyz 503, back within 2 s of space freed', async () => {
    const databasePath = join(tmpfs!.dir, 'gateway.sqlite');
    const f = await fundedGateway(databasePath);
    const wallet = new URL(f.paidUrl).searchParams.get('wallet')!;
    const paid = paidLoad(f);
    await within(5_000, () => paid.answers.filter((a) => a.status === 200).length >= 20);
    const claimer = await sandbox.chain.newWallet();
    const challenge = (await f.gw.get(`/api/keys/challenge?wallet=${claimer.address}`)).body.challenge;
    const filler = join(tmpfs!.dir, 'filler');
    fillDisk(filler);
    expect(await within(5_000, () => paid.answers.some((a) => a.status === 500))).not.toBeNull();
    // While it is full: free calls need no storage; readiness names the storage and why.
    expect((await ask(f.freeUrl)).status).toBe(200);
    // Claims write: the same answer, for the challenge and for the claim itself.
    expectStorageUnavailable(await ask(`${f.gw.url}/api/keys/challenge?wallet=${claimer.address}`));
    const claim = await f.gw.post('/api/keys/claim', { wallet: claimer.address, signature: await signChallenge(claimer, challenge), challenge });
    expectStorageUnavailable({ status: claim.status, body: claim.body, retryAfter: claim.headers.get('retry-after'), at: 0, ms: 0 });
    expect(await within(2_000, async () => (await readyz(f.gw)).databaseError === 'sqlite: disk full')).not.toBeNull();
    expect((await ask(f.gw.url + '/readyz')).status).toBe(503);
    await expectMcpRefusals(f, wallet);
    // An operator's revoke on the full disk: told so, and nothing revoked (the key pays again below).
    const said: string[] = [];
    const code = await runCommand(['keys', 'revoke', wallet], { DATABASE_PATH: databasePath }, (s) => said.push(s), (s) => said.push(s));
    expect({ code, said: said.join('') }).toEqual({ code: 1, said: expect.stringMatching(/^gateway keys: the database is not answering \((disk full|I\/O error)\): nothing was changed/) });
    rmSync(filler);
    const freedAt = Date.now();
    const back = await within(5_000, () => paid.answers.some((a) => a.status === 200 && a.at >= freedAt));
    const ready = (await within(5_000, async () => (await ask(f.gw.url + '/readyz')).status === 200)) === null ? null : Date.now() - freedAt;
    await Bun.sleep(300);
    const answers = await paid.stop();
    console.log(`OUTAGE-SQLITE disk full: paid calls back ${back} ms and /readyz 200 ${ready} ms after space was freed`);
    expect({ back: back !== null && back <= 2_000, ready: ready !== null && ready <= 2_000 }).toEqual({ back: true, ready: true });
    await expectExact(f, answers, databasePath);
  });

  test('a watched wallet\'s activity while the disk is full: refused and not charged, then recorded, charged and delivered once when the ingester hands it over again', async () => {
    const databasePath = join(tmpfs!.dir, 'watches.sqlite');
    const gw = await sandbox.gateway({ databasePath, webhookAllowPrivate: true, freeCalls: 0 });
    gw.services.readiness.start();
    const rx = receiver();
    const filler = join(tmpfs!.dir, 'filler-watches');
    try {
      const { key, wallet: payer } = await keyWithCredit(gw, BigInt(EVENT_PRICE) * 10n);
      const h = { 'x-api-key': key };
      const target = await newWallet();
      const watch = (await gw.post('/api/watches', { wallets: [target], webhookUrl: rx.url }, h)).body;
      const credit = async () => (await gw.services.store.account(payer))!.creditLamports;
      const before = await credit();
      fillDisk(filler);
      const a = activity();
      // As the ingester hands it over: refused, so it keeps its cursor and hands it over again.
      await expect(gw.services.watches.recordActivity('mainnet-beta', target, a)).rejects.toThrow();
      const made = await gw.post('/api/watches', { wallets: [await newWallet()], webhookUrl: rx.url }, h);
      expectStorageUnavailable({ status: made.status, body: made.body, retryAfter: made.headers.get('retry-after'), at: 0, ms: 0 });
      expect(await credit()).toBe(before);
      rmSync(filler);
      expect(await within(5_000, async () => (await ask(gw.url + '/readyz')).status === 200)).not.toBeNull();
      await gw.services.watches.recordActivity('mainnet-beta', target, a);
      await gw.services.watches.recordActivity('mainnet-beta', target, a);
      expect(await within(5_000, () => rx.got.length >= 1)).not.toBeNull();
      await Bun.sleep(300);
      expect(rx.got.map((r) => JSON.parse(r.body).signature)).toEqual([a.signature]);
      expect((await gw.get(`/api/watches/${watch.id}/events`, h)).body.events.map((e: any) => e.signature)).toEqual([a.signature]);
      expect(before - (await credit())).toBe(BigInt(EVENT_PRICE));
    } finally {
      rmSync(filler, { force: true });
      rx.stop();
    }
  });

  test('the write lock held by another process beyond the busy timeout: the same answer, and back within 2 s of its release', async () => {
    const f = await fundedGateway();
    const databasePath = f.gw.config.databasePath;
    const paid = paidLoad(f);
    await within(5_000, () => paid.answers.filter((a) => a.status === 200).length >= 20);
    // Another process (an operator's sqlite3 shell, a backup tool) takes the write lock and keeps it.
    const holder = await holdWriteLock(databasePath);
    expect(await within(10_000, () => paid.answers.some((a) => a.status === 500))).not.toBeNull();
    const free = await ask(f.freeUrl);
    expect(free.status).toBe(200);
    expect(await within(2_000, async () => (await readyz(f.gw)).databaseError === 'sqlite: locked')).not.toBeNull();
    // Beyond the first refusal, a paid call waits for the lock only briefly (not the whole busy timeout).
    await Bun.sleep(1_000);
    const whileLocked = paid.answers.filter((a) => a.status === 500).slice(-5);
    expect(Math.max(...whileLocked.map((a) => a.ms))).toBeLessThan(2_000);
    await holder.release();
    const releasedAt = Date.now();
    const back = await within(5_000, () => paid.answers.some((a) => a.status === 200 && a.at >= releasedAt));
    const ready = (await within(5_000, async () => (await ask(f.gw.url + '/readyz')).status === 200)) === null ? null : Date.now() - releasedAt;
    await Bun.sleep(300);
    const answers = await paid.stop();
    console.log(`OUTAGE-SQLITE lock: paid calls back ${back} ms and /readyz 200 ${ready} ms after the lock was released`);
    expect({ back: back !== null && back <= 2_000, ready: ready !== null && ready <= 2_000 }).toEqual({ back: true, ready: true });
    await expectExact(f, answers, databasePath);
  });
});
