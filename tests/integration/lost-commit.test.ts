// A write whose answer is lost on its way back from PostgreSQL: the server commits, the gateway's
// connection drops before it hears so (tests/support/commit-cutter.ts stands between them). On the
// debit, the refund, the usage row and the x402 record, the gateway must learn what really
// happened before it answers, so that afterwards credit = deposits - (2xx answers x price)
// exactly, with one usage row per 2xx, a refunded row per charged failure, and no duplicates.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SQL } from 'bun';
import { generateKeyPairSigner } from '@solana/kit';
import { newCallId } from '../../src/billing/resilience/call-id.ts';
import { PgLedger } from '../../src/billing/backend/postgres/ledger.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { commitCutter, type CommitCutter } from '../support/commit-cutter.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { heldPayment } from '../support/x402.ts';
import { within } from '../support/poll.ts';

setDefaultTimeout(60_000);

const PRICE = 2_200_000;
const CREDIT = 20 * PRICE;
/** The debit's statement (today's: the batch's records, and before), its refund's, and a usage row's insert (today's: in the ledger's batch, and before). */
const DEBIT = /INSERT INTO ledger_debits \(call_id, wallet, kind, price\)\s+SELECT|calls_made = a\.calls_made \+ 1/;
const REFUND = /SET refunded_at = v\.at|calls_made = (a\.)?calls_made - 1/;
const COMMIT = /^\s*COMMIT/i;
/** A batch of debits made at once: one statement, its own transaction (the ledger's atOnce). */
const AT_ONCE = /locked AS \(/;
const USAGE_INSERT = /^\s*insert into "?usage_events"?/i;

const sandbox = sandboxGateways({ mint: true });

describe.skipIf(shouldSkipPostgres('lost-commit'))('a COMMIT whose answer is lost', () => {
  let gw: TestGateway;
  let cutter: CommitCutter;
  let db: SQL;

  beforeAll(async () => {
    const url = await freshDatabase();
    cutter = commitCutter(url);
    db = new SQL(url, { max: 2 });
    gw = await sandbox.gateway({ databaseUrl: cutter.url, gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_lost', freeCalls: 0 });
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await db?.close();
    cutter?.stop();
  });

  const succeeds = (key: string, wallet: string) => gw.get(`/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, { 'x-api-key': key });
  // Charged, then refunded: no such transaction.
  const fails = (key: string) => gw.get(`/api/chain/decode-tx?signature=${'4'.repeat(88)}`, { 'x-api-key': key });
  const credit = async (key: string) => (await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports as number;
  /** The wallet's usage rows once `count` are written (they are written just after the answers). */
  const rows = async (wallet: string, count: number) => {
    const select = async (): Promise<{ call_id: string; refunded: boolean; status: number }[]> => db`SELECT call_id, refunded, status FROM usage_events WHERE wallet = ${wallet} ORDER BY id`;
    await within(5_000, async () => (await select()).length >= count, 25);
    await Bun.sleep(300);
    return select();
  };

  test('on the debit: the call is served and charged once, its row written once', async () => {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT);
    const cut = cutter.arm({ on: COMMIT, within: DEBIT });
    const res = await succeeds(key, wallet);
    await cut;
    expect(res.status).toBe(200);
    expect(await credit(key)).toBe(CREDIT - PRICE);
    const written = await rows(wallet, 1);
    expect(written.map((r) => [r.refunded, r.status])).toEqual([[false, 200]]);
  });

  /** Rate limits on (so a paid call draws its token in its debit), BURST tokens a wallet. */
  const BURST = 50;
  let limited: TestGateway | undefined;
  /** A funded key on the limited gateway (started once): its paid call and its credit. */
  async function limitedKey() {
    limited ??= await sandbox.gateway({ databaseUrl: cutter.url, gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_lost', freeCalls: 0, rateLimitRps: 0.001, rateLimitBurst: BURST });
    const through = limited;
    const { key, wallet } = await fundedKey(through, sandbox.chain, CREDIT);
    return {
      wallet,
      call: () => through.get(`/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, { 'x-api-key': key }),
      credit: async () => (await through.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports as number,
    };
  }

  test('on a debit that drew its rate-limit token in the same transaction: served, charged once, drawn once', async () => {
    const { wallet, call, credit } = await limitedKey();
    const cut = cutter.arm({ on: COMMIT, within: DEBIT });
    const res = await call();
    await cut;
    expect(res.status).toBe(200);
    // Learned from the records after the lost answer: one token gone from the wallet's bucket, not two.
    expect(res.headers.get('ratelimit-remaining')).toBe(String(BURST - 1));
    expect(await credit()).toBe(CREDIT - PRICE);
    const written = await rows(wallet, 1);
    expect(written.map((r) => [r.refunded, r.status])).toEqual([[false, 200]]);
  });

  test('on a debit made at once, in one statement that is its own transaction: served, charged once, drawn once', async () => {
    const { wallet, call, credit } = await limitedKey();
    // The first call's transaction shows the gateway the account; the second is planned on it.
    expect((await call()).status).toBe(200);
    const cut = cutter.arm({ on: AT_ONCE });
    const res = await call();
    await cut;
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(BURST - 2));
    expect(await credit()).toBe(CREDIT - 2 * PRICE);
    const written = await rows(wallet, 2);
    expect(written.map((r) => [r.refunded, r.status])).toEqual([[false, 200], [false, 200]]);
    // Never sent (and never answered): its id voided, made again under the next attempt's, charged once.
    const stalled = cutter.arm({ on: AT_ONCE, stall: true });
    const late = await call();
    await stalled;
    expect(late.status).toBe(200);
    expect(await credit()).toBe(CREDIT - 3 * PRICE);
    expect(Number((await db`SELECT count(*) AS n FROM ledger_debits WHERE wallet = ${wallet} AND price > 0`)[0].n)).toBe(3);
  });

  test('on the refund: the failed call is refunded exactly once, its row says so', async () => {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT);
    const cut = cutter.arm({ on: COMMIT, within: REFUND });
    const res = await fails(key);
    await cut;
    expect(res.status).toBe(404);
    expect(await credit(key)).toBe(CREDIT);
    const written = await rows(wallet, 1);
    expect(written.map((r) => [r.refunded, r.status])).toEqual([[true, 404]]);
  });

  test('on the usage row: written once whether its insert committed unheard or never arrived', async () => {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT);
    let cut = cutter.arm({ on: USAGE_INSERT });
    expect((await succeeds(key, wallet)).status).toBe(200);
    await cut;
    cut = cutter.arm({ on: USAGE_INSERT, before: true });
    expect((await succeeds(key, wallet)).status).toBe(200);
    await cut;
    const written = await rows(wallet, 2);
    expect(written).toHaveLength(2);
    expect(new Set(written.map((r) => r.call_id)).size).toBe(2);
    expect(written.every((r) => !r.refunded && r.status === 200)).toBe(true);
    expect(await credit(key)).toBe(CREDIT - 2 * PRICE);
  });

  test('on the x402 record: read back as this call\'s, so it is held (and a replay is not)', async () => {
    const store = gw.services.store;
    const payment = (callId: string) => heldPayment(`lost-${callId}`, callId);
    const mine = payment(newCallId());
    const cut = cutter.arm({ on: /^insert into "x402_payments"/i });
    expect(await store.holdPayment(mine, Date.now())).toBe(true);
    await cut;
    expect(await store.holdPayment({ ...mine, callId: newCallId() }, Date.now())).toBe(false);
    const records = await db`SELECT call_id, status FROM x402_payments WHERE tx_key = ${mine.txKey}`;
    expect(records).toEqual([{ call_id: mine.callId, status: 'held' }]);
  });

  test('when the database stays away past the wait: storage_unavailable, and the debit that did commit is refunded once it is back', async () => {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT);
    const cut = cutter.arm({ on: COMMIT, within: DEBIT });
    void cut.then(() => cutter.away(true));
    const started = Date.now();
    const res = await succeeds(key, wallet);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: 'storage_unavailable', live_status: 'FAILED' });
    expect(res.headers.get('retry-after')).toBeTruthy();
    cutter.away(false);
    // The refund kept for it is written once the database answers: the credit comes back whole.
    await within(10_000, async () => (await credit(key)) === CREDIT, 100);
    expect(await credit(key)).toBe(CREDIT);
    const written = await rows(wallet, 1);
    expect(written.map((r) => [r.refunded, r.status])).toEqual([[true, 500]]);
  });

  test('a COMMIT never answered: the server ends the idle transaction, so the debit is made again and the call served in time, charged once', async () => {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT);
    const cut = cutter.arm({ on: COMMIT, within: DEBIT, stall: true });
    const started = Date.now();
    const res = await succeeds(key, wallet);
    await cut;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.status).toBe(200);
    expect(await credit(key)).toBe(CREDIT - PRICE);
    const written = await rows(wallet, 1);
    expect(written.map((r) => [r.refunded, r.status])).toEqual([[false, 200]]);
    // The first attempt's id was voided (so that transaction could never commit late) and the
    // debit made again under the next attempt's id, which its usage row carries.
    const records = await db`SELECT call_id, price, refunded_at FROM ledger_debits WHERE wallet = ${wallet} ORDER BY call_id`;
    expect(records).toEqual([
      { call_id: expect.any(String), price: '0', refunded_at: '0' },
      { call_id: `${records[0].call_id}+`, price: String(PRICE), refunded_at: null },
    ]);
    expect(written[0]!.call_id).toBe(`${records[0].call_id}+`);
  });

  test('two replicas refunding one debit at once, and debiting one call id at once, move it once', async () => {
    const { key, wallet } = await fundedKey(gw, sandbox.chain, CREDIT);
    const other = new PgLedger(db);
    const debit = (await gw.services.store.debit(wallet, PRICE, newCallId()))!;
    const refunds = await Promise.all([gw.services.store.refund(debit), other.refund(debit), gw.services.store.refund(debit), other.refund(debit)]);
    expect(refunds.filter((r) => r.given !== null)).toHaveLength(1);
    expect(await credit(key)).toBe(CREDIT);
    const id = newCallId();
    await Promise.allSettled([gw.services.store.debit(wallet, PRICE, id), other.debit(wallet, PRICE, id)]);
    expect(await credit(key)).toBe(CREDIT - PRICE);
  });
});
