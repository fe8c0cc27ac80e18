// Credit a replica holds out of a busy account (backend/postgres/holds.ts), attacked the ways that
// could lose or double money: several replicas spending one account down to nothing, a replica that
// dies holding credit, one that stops, a COMMIT lost on a debit of a hold; and tokens drawn ahead of
// a busy rate-limit bucket, which must never let more through than the bucket gives.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SQL } from 'bun';
import { newCallId } from '../../src/billing/resilience/call-id.ts';
import { PgLedger, type Drawing } from '../../src/billing/backend/postgres/ledger.ts';
import { foldHolds } from '../../src/billing/backend/postgres/holds.ts';
import type { BillingStore } from '../../src/billing/store.ts';
import type { Debit } from '../../src/billing/credit.ts';
import { commitCutter, type CommitCutter } from '../support/commit-cutter.ts';
import { openLedgerDatabase, type LedgerDatabase } from '../support/ledger-database.ts';
import { POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';

setDefaultTimeout(60_000);

const PRICE = 1000;

describe.skipIf(shouldSkipPostgres('pg-holds'))('credit held by replicas', () => {
  let pg: LedgerDatabase;
  let url: string;
  let store: BillingStore;
  let sql: SQL;
  let cutter: CommitCutter;
  const opened: SQL[] = [];

  beforeAll(async () => {
    pg = await openLedgerDatabase();
    ({ url, store, other: sql } = pg);
    cutter = commitCutter(url);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    // The proxy first: a pool with a stalled connection through it closes once that connection ends.
    cutter?.stop();
    for (const c of opened) await c.close({ timeout: 0 });
    await pg?.close();
  });

  /**
   * A replica's ledger on a pool of its own (through `via`, a proxy URL, when given). Tokens drawn
   * ahead last `aheadMs`: 10 s unless a test times them, so a slow machine cannot expire them mid-test.
   */
  function replica(policy?: { rate: number; burst: number }, via = url, aheadMs = 10_000): PgLedger {
    const pool = new SQL(via, { max: 4 });
    opened.push(pool);
    return new PgLedger(pool, policy, aheadMs);
  }

  /** A wallet with credit for `calls` calls, and its key. */
  const claimed = (calls: number) => pg.funded(calls * PRICE);
  const funded = async (calls: number) => (await claimed(calls)).wallet;

  const row = async (wallet: string) => BigInt((await sql`SELECT credit_lamports::text AS c FROM credit_accounts WHERE wallet = ${wallet}`)[0].c);
  const holds = async (wallet: string) =>
    (await sql<{ holder: string; c: string }[]>`SELECT holder, credit_lamports::text AS c FROM credit_holds WHERE wallet = ${wallet} ORDER BY holder`).map((h) => ({ holder: h.holder, credit: BigInt(h.c) }));
  const held = async (wallet: string) => (await holds(wallet)).reduce((sum, h) => sum + h.credit, 0n);
  const records = async (wallet: string) => Number((await sql`SELECT count(*) AS n FROM ledger_debits WHERE wallet = ${wallet} AND price > 0 AND refunded_at IS NULL`)[0].n);
  const paid = (d: Awaited<ReturnType<PgLedger['debit']>>): d is Debit => d !== null && typeof d === 'object';

  /** `n` debits of `wallet` on `ledger` asked at once: one batch. */
  const burst = (ledger: PgLedger, wallet: string, n: number) => Promise.all(Array.from({ length: n }, () => ledger.debit(wallet, PRICE, newCallId())));
  /** Makes `wallet` busy on `ledger` (123 debits within a second, more than holds.ts Busy asks), so that its next batch takes a hold. */
  async function busy(ledger: PgLedger, wallet: string): Promise<void> {
    expect(paid(await ledger.debit(wallet, PRICE, newCallId()))).toBe(true);
    for (let i = 0; i < 2; i++) expect((await burst(ledger, wallet, 60)).every(paid)).toBe(true);
    expect((await burst(ledger, wallet, 2)).every(paid)).toBe(true);
  }
  const holderOf = async (ledger: PgLedger, wallet: string) => (await holds(wallet)).find((h) => h.holder === ledger.holder)?.credit ?? 0n;

  test('three replicas spending one busy account: each debits a hold of its own at once, and together they pay exactly its credit, never more, down to zero', async () => {
    const wallet = await funded(3_000);
    const replicas = [replica(), replica(), replica()];
    await Promise.all(replicas.map((r) => busy(r, wallet)));
    expect((await holds(wallet)).map((h) => h.holder).sort()).toEqual(replicas.map((r) => r.holder).sort());
    // Batches that fit the holds go at once on them: the account's own row is not touched.
    const rowBefore = await row(wallet);
    const atOnce = replicas.map((r) => r.atOnceCommits);
    for (let i = 0; i < 5; i++) expect((await Promise.all(replicas.map((r) => burst(r, wallet, 10)))).flat().every(paid)).toBe(true);
    expect(await row(wallet)).toBe(rowBefore);
    expect(replicas.map((r, i) => r.atOnceCommits - atOnce[i]!)).toEqual([5, 5, 5]);
    // What the wallet has is its row and every hold: the replicas' answers and the account say the same.
    const spent = 3n * (123n + 50n) * BigInt(PRICE);
    expect((await row(wallet)) + (await held(wallet))).toBe(3_000n * BigInt(PRICE) - spent);
    expect((await replicas[0]!.account(wallet))!.creditLamports).toBe(3_000n * BigInt(PRICE) - spent);
    const [answer] = await burst(replicas[1]!, wallet, 1);
    expect((answer as Debit).balance.creditLamports).toBe(3_000n * BigInt(PRICE) - spent - BigInt(PRICE));
    // Spent down past zero from all three at once: credit held elsewhere is folded in when needed, so
    // exactly the credit's calls are paid, and nothing is left held or below zero.
    const rest: Awaited<ReturnType<typeof burst>> = [];
    for (let round = 0; round < 40; round++) rest.push(...(await Promise.all(replicas.map((r) => burst(r, wallet, 25)))).flat());
    expect(rest.filter(paid).length).toBe(3_000 - 3 * 173 - 1);
    expect(await row(wallet)).toBe(0n);
    expect(await held(wallet)).toBe(0n);
    expect(await records(wallet)).toBe(3_000);
    for (const r of replicas) await r.close();
  });

  test('a replica that dies holding credit: the others still see it and can spend all of it at once, and it is folded back once expired', async () => {
    const wallet = await funded(1_000);
    const dead = replica();
    await busy(dead, wallet);
    expect(await holderOf(dead, wallet)).toBeGreaterThan(0n);
    // `dead` is never used or closed again, as after kill -9.
    const alive = replica();
    expect((await alive.account(wallet))!.creditLamports).toBe(877n * BigInt(PRICE));
    // Its answers say what the wallet has, the dead replica's hold included: on the locking way, then at once.
    const [first] = await burst(alive, wallet, 1);
    expect((first as Debit).balance.creditLamports).toBe(876n * BigInt(PRICE));
    const [second] = await burst(alive, wallet, 1);
    expect(alive.atOnceCommits).toBe(1);
    expect((second as Debit).balance.creditLamports).toBe(875n * BigInt(PRICE));
    const spent = (await Promise.all(Array.from({ length: 20 }, () => burst(alive, wallet, 50)))).flat();
    expect(spent.filter(paid).length).toBe(875);
    expect((await row(wallet)) + (await held(wallet))).toBe(0n);

    // Another account held by a replica that died: the hold stays the wallet's until it expires,
    // then a sweep folds it into the account's row.
    const other = await funded(1_000);
    await busy(dead, other);
    expect(await holderOf(dead, other)).toBeGreaterThan(0n);
    await foldHolds(sql);
    expect(await holderOf(dead, other)).toBeGreaterThan(0n);
    await sql`UPDATE credit_holds SET expires_at = 0 WHERE wallet = ${other}`;
    await foldHolds(sql);
    expect(await holds(other)).toEqual([]);
    expect(await row(other)).toBe(877n * BigInt(PRICE));
    await alive.close();
  });

  test('a replica that stops gives its holds back, and the account\'s calls made are all counted; a claim meanwhile answers the whole balance', async () => {
    const wallet = await funded(1_000);
    const r = replica();
    await busy(r, wallet);
    await burst(r, wallet, 30);
    expect(await held(wallet)).toBeGreaterThan(0n);
    // A new deposit claimed while the replica holds part of the account: the claim's balance is all of it.
    await store.recordDeposit({ signature: crypto.randomUUID(), network: 'mainnet-beta', wallet, lamports: BigInt(100 * PRICE), source: 'webhook' }, 1n);
    expect((await store.claim(wallet, 0, Date.now()))!.creditLamports).toBe(947n * BigInt(PRICE));
    await r.close();
    expect(await holds(wallet)).toEqual([]);
    const [account] = await sql`SELECT credit_lamports::text AS c, calls_made FROM credit_accounts WHERE wallet = ${wallet}`;
    expect(BigInt(account.c)).toBe(947n * BigInt(PRICE));
    expect(account.calls_made).toBe(153);
  });

  test('a COMMIT lost, or never sent, on a batch of debits of a hold: each call is charged once, the hold and the account agree, and the replica goes on at once', async () => {
    const wallet = await funded(1_000);
    const r = replica(undefined, cutter.url);
    await busy(r, wallet);
    expect(await held(wallet)).toBeGreaterThan(0n);
    const cut = cutter.arm({ on: /spent AS \(/ });
    const answers = await burst(r, wallet, 5);
    await cut;
    expect(answers.every(paid)).toBe(true);
    expect(await records(wallet)).toBe(128);
    expect((await row(wallet)) + (await held(wallet))).toBe(872n * BigInt(PRICE));
    const stalled = cutter.arm({ on: /spent AS \(/, stall: true });
    const late = await burst(r, wallet, 5);
    await stalled;
    expect(late.every(paid)).toBe(true);
    expect(await records(wallet)).toBe(133);
    expect((await row(wallet)) + (await held(wallet))).toBe(867n * BigInt(PRICE));
    const atOnce = r.atOnceCommits;
    expect((await burst(r, wallet, 5)).every(paid)).toBe(true);
    expect((await burst(r, wallet, 5)).every(paid)).toBe(true);
    expect(r.atOnceCommits - atOnce).toBeGreaterThanOrEqual(1);
    expect((await row(wallet)) + (await held(wallet))).toBe(857n * BigInt(PRICE));
    await r.close();
  });

  test("a free call given back while another replica holds the account is that replica's next call, not credit taken from its hold", async () => {
    const wallet = `wallet-${crypto.randomUUID()}`;
    await store.recordDeposit({ signature: crypto.randomUUID(), network: 'mainnet-beta', wallet, lamports: BigInt(1_000 * PRICE), source: 'webhook' }, 1n);
    await store.claim(wallet, 1, Date.now());
    const quiet = replica();
    const first = await quiet.debit(wallet, PRICE, newCallId());
    expect(paid(first) && first.kind).toBe('free');
    const holding = replica();
    await busy(holding, wallet);
    expect(await holderOf(holding, wallet)).toBeGreaterThan(0n);
    // The first call failed after all: its free call goes back to the account's row.
    expect((await quiet.refund(first as Debit)).given?.kind).toBe('free');
    const creditBefore = (await holding.account(wallet))!.creditLamports;
    const [next] = await burst(holding, wallet, 1);
    expect(paid(next) && next.kind).toBe('free');
    expect((next as Debit).balance).toEqual({ freeCalls: 0, creditLamports: creditBefore });
    const [after] = await burst(holding, wallet, 1);
    expect(paid(after) && after.kind).toBe('credit');
    expect((await holding.account(wallet))!).toMatchObject({ freeCalls: 0, creditLamports: creditBefore - BigInt(PRICE) });
    await quiet.close();
    await holding.close();
  });

  test('tokens drawn ahead of a busy bucket by two replicas: never more calls let through than the bucket gives, and few lost', async () => {
    const { wallet, keyHash } = await claimed(100_000);
    const policy = { rate: 0.001, burst: 300 };
    const replicas = [replica(policy), replica(policy)];
    const bucket = `wallet:${wallet}`;
    const draw = (r: PgLedger, n: number) => Promise.all(Array.from({ length: n }, () => r.debitDrawing(wallet, PRICE, newCallId(), keyHash, bucket)));
    const answers: Drawing[] = [];
    for (let round = 0; round < 20; round++) answers.push(...(await Promise.all(replicas.map((r) => draw(r, 25)))).flat());
    const allowed = answers.filter((a) => a.decision.allowed);
    expect(allowed.length).toBeLessThanOrEqual(policy.burst);
    expect(allowed.length).toBeGreaterThanOrEqual(policy.burst - 25);
    expect(allowed.every((a) => paid(a.debit as never))).toBe(true);
    expect(answers.filter((a) => !a.decision.allowed).every((a) => a.debit === null && a.decision.retryAfterSeconds >= 1)).toBe(true);
    expect(await records(wallet)).toBe(allowed.length);
    for (const r of replicas) await r.close();
  });

  test('tokens a replica drew ahead still serve its calls on the locking way, once the shared bucket is empty', async () => {
    const { wallet, keyHash } = await claimed(100_000);
    const policy = { rate: 0.001, burst: 400 };
    const [a, b] = [replica(policy), replica(policy)];
    const bucket = `wallet:${wallet}`;
    const draw = (r: PgLedger, n: number) => Promise.all(Array.from({ length: n }, () => r.debitDrawing(wallet, PRICE, newCallId(), keyHash, bucket)));
    const allowed = (d: Drawing[]) => d.filter((x) => x.decision.allowed).length;
    // `a` learns the account, then draws ahead (the bucket busy and more than half full).
    const first = await draw(a, 25);
    expect(allowed(first)).toBe(25);
    expect(allowed(await draw(a, 25))).toBe(25);
    // `b` empties the shared bucket: what it cannot have is what `a` drew ahead.
    const drained = allowed(await draw(b, 400));
    expect(drained).toBeLessThan(350);
    // A batch with a refund goes the locking way: `a`'s calls are paid from its tokens ahead.
    const [refund, ...mixed] = await Promise.all([a.refund((first[0]!.debit as Debit)), ...Array.from({ length: 10 }, () => a.debitDrawing(wallet, PRICE, newCallId(), keyHash, bucket))]);
    expect(refund.given).not.toBeNull();
    expect(allowed(mixed as Drawing[])).toBe(10);
    await a.close();
    await b.close();
  });

  test('tokens drawn ahead expire a set time after their draw, however often they are used meanwhile', async () => {
    const { wallet, keyHash } = await claimed(100_000);
    const policy = { rate: 0.001, burst: 400 };
    const [a, b] = [replica(policy, url, 1_000), replica(policy)];
    const bucket = `wallet:${wallet}`;
    const draw = (r: PgLedger, n: number) => Promise.all(Array.from({ length: n }, () => r.debitDrawing(wallet, PRICE, newCallId(), keyHash, bucket)));
    const allowed = (d: Drawing[]) => d.filter((x) => x.decision.allowed).length;
    await draw(a, 25);
    // The draw ahead is made between these two times.
    const from = Date.now();
    expect(allowed(await draw(a, 25))).toBe(25);
    const to = Date.now();
    expect(allowed(await draw(b, 400))).toBeLessThan(350);
    // Used within their time: from `a`'s own tokens, the shared bucket being empty.
    await Bun.sleep(300);
    expect(allowed(await draw(a, 1))).toBe(1);
    expect(Date.now() - from).toBeLessThan(1_000);
    // Past it, though used just now: dropped, and the shared bucket has none.
    await Bun.sleep(Math.max(0, to + 1_100 - Date.now()));
    expect(allowed(await draw(a, 1))).toBe(0);
    await a.close();
    await b.close();
  });
});
