// Credit a replica holds out of a busy account (backend/postgres/holds.ts), attacked the ways that
// could lose or double money: several replicas spending one account down to nothing, a replica that
// dies holding credit, one that stops, a COMMIT lost on a debit of a hold; and tokens drawn ahead of
// a busy rate-limit bucket, which must never let more through than the bucket gives.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SQL } from 'bun';
import { newCallId } from '../../src/billing/resilience/call-id.ts';
import { PgLedger, type Drawing } from '../../src/billing/backend/postgres/ledger.ts';
import { foldHolds } from '../../src/billing/backend/postgres/holds.ts';
import { pgStore } from '../../src/billing/backend/postgres/store.ts';
import type { BillingStore } from '../../src/billing/store.ts';
import type { Debit } from '../../src/billing/credit.ts';
import { migratePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.ts';
import { commitCutter, type CommitCutter } from '../support/commit-cutter.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';

setDefaultTimeout(60_000);

const PRICE = 1000;

describe.skipIf(shouldSkipPostgres('pg-holds'))('credit held by replicas', () => {
  let url: string;
  let db: PgDb;
  let store: BillingStore;
  let release: () => Promise<void>;
  let sql: SQL;
  let cutter: CommitCutter;
  const opened: SQL[] = [];

  beforeAll(async () => {
    url = await freshDatabase();
    await migratePostgres(url);
    db = openPostgres(url, 4);
    ({ store, release } = pgStore(db, new PgLedger(db.$client)));
    sql = new SQL(url, { max: 4 });
    cutter = commitCutter(url);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    for (const c of opened) await c.close();
    await sql?.close();
    await release?.();
    await db?.$client.close();
    cutter?.stop();
  });

  /** A replica's ledger on a pool of its own (through `via`, a proxy URL, when given). */
  function replica(policy?: { rate: number; burst: number }, via = url): PgLedger {
    const pool = new SQL(via, { max: 4 });
    opened.push(pool);
    return new PgLedger(pool, policy);
  }

  async function funded(calls: number): Promise<string> {
    return (await claimed(calls)).wallet;
  }
  async function claimed(calls: number): Promise<{ wallet: string; keyHash: string }> {
    const wallet = `wallet-${crypto.randomUUID()}`;
    await store.recordDeposit({ signature: crypto.randomUUID(), network: 'mainnet-beta', wallet, lamports: BigInt(calls * PRICE), source: 'webhook' }, 1n);
    const { apiKey } = (await store.claim(wallet, 0, Date.now()))!;
    return { wallet, keyHash: (await store.identify(apiKey))!.keyHash };
  }

  const row = async (wallet: string) => BigInt((await sql`SELECT credit_lamports::text AS c FROM credit_accounts WHERE wallet = ${wallet}`)[0].c);
  const holds = async (wallet: string) =>
    (await sql<{ holder: string; c: string }[]>`SELECT holder, credit_lamports::text AS c FROM credit_holds WHERE wallet = ${wallet} ORDER BY holder`).map((h) => ({ holder: h.holder, credit: BigInt(h.c) }));
  const held = async (wallet: string) => (await holds(wallet)).reduce((sum, h) => sum + h.credit, 0n);
  const records = async (wallet: string) => Number((await sql`SELECT count(*) AS n FROM ledger_debits WHERE wallet = ${wallet} AND price > 0 AND refunded_at IS NULL`)[0].n);
  const paid = (d: Awaited<ReturnType<PgLedger['debit']>>): d is Debit => d !== null && typeof d === 'object';

  /** `n` debits of `wallet` on `ledger` asked at once (so they share batches, and the account is busy). */
  const burst = (ledger: PgLedger, wallet: string, n: number) => Promise.all(Array.from({ length: n }, () => ledger.debit(wallet, PRICE, newCallId())));

  test('three replicas spending one busy account: each takes a hold, and together they pay exactly its credit, never more, down to zero', async () => {
    const wallet = await funded(2_000);
    const replicas = [replica(), replica(), replica()];
    // Each replica learns the account, then debits it in bursts: the locking way takes a hold once, the rest go at once on it.
    for (const r of replicas) expect(paid(await r.debit(wallet, PRICE, newCallId()))).toBe(true);
    const first = (await Promise.all(replicas.map((r) => burst(r, wallet, 40)))).flat();
    expect(first.every(paid)).toBe(true);
    expect((await holds(wallet)).map((h) => h.holder).sort()).toEqual(replicas.map((r) => r.holder).sort());
    // What the wallet has is its row and every hold: the replicas' answers and the account say the same.
    const spent = BigInt((3 + first.length) * PRICE);
    expect((await row(wallet)) + (await held(wallet))).toBe(2_000n * BigInt(PRICE) - spent);
    expect((await replicas[0]!.account(wallet))!.creditLamports).toBe(2_000n * BigInt(PRICE) - spent);
    // Spent down past zero from all three at once: credit held elsewhere is folded in when needed, so
    // exactly the credit's calls are paid, and nothing is left held or below zero.
    const rest = (await Promise.all(replicas.map((r) => Promise.all(Array.from({ length: 20 }, () => burst(r, wallet, 40)))))).flat(2);
    expect(rest.filter(paid).length).toBe(2_000 - 3 - first.length);
    expect(await row(wallet)).toBe(0n);
    expect(await held(wallet)).toBe(0n);
    expect(await records(wallet)).toBe(2_000);
    for (const r of replicas) await r.close();
  });

  test('a replica that dies holding credit: the others still see it and can spend all of it at once, and it is folded back once expired', async () => {
    const wallet = await funded(1_000);
    const dead = replica();
    await dead.debit(wallet, PRICE, newCallId());
    await burst(dead, wallet, 10);
    const hold = (await holds(wallet)).find((h) => h.holder === dead.holder)!.credit;
    expect(hold).toBeGreaterThan(0n);
    // `dead` is never used or closed again, as after kill -9.
    const alive = replica();
    expect((await alive.account(wallet))!.creditLamports).toBe(989n * BigInt(PRICE));
    const spent = (await Promise.all(Array.from({ length: 25 }, () => burst(alive, wallet, 50)))).flat();
    expect(spent.filter(paid).length).toBe(989);
    expect((await row(wallet)) + (await held(wallet))).toBe(0n);

    // Another account, held by a replica that died: its hold stays the wallet's until it expires,
    // then any replica's sweep folds it into the account's row.
    const other = await funded(1_000);
    await dead.debit(other, PRICE, newCallId());
    await burst(dead, other, 10);
    const kept = await held(other);
    expect(kept).toBeGreaterThan(0n);
    expect(await foldHolds(sql)).toBe(0);
    await sql`UPDATE credit_holds SET expires_at = 0 WHERE wallet = ${other}`;
    expect(await foldHolds(sql)).toBe(1);
    expect(await holds(other)).toEqual([]);
    expect(await row(other)).toBe(989n * BigInt(PRICE));
    await alive.close();
  });

  test('a replica that stops gives its holds back, and the account\'s calls made are all counted', async () => {
    const wallet = await funded(1_000);
    const r = replica();
    await r.debit(wallet, PRICE, newCallId());
    await burst(r, wallet, 30);
    await burst(r, wallet, 30);
    expect(await held(wallet)).toBeGreaterThan(0n);
    await r.close();
    expect(await holds(wallet)).toEqual([]);
    const [account] = await sql`SELECT credit_lamports::text AS c, calls_made FROM credit_accounts WHERE wallet = ${wallet}`;
    expect(BigInt(account.c)).toBe(939n * BigInt(PRICE));
    expect(account.calls_made).toBe(61);
  });

  test('a COMMIT lost on a batch of debits of a hold: each call is charged once, the hold and the account agree', async () => {
    const wallet = await funded(1_000);
    const r = replica(undefined, cutter.url);
    await r.debit(wallet, PRICE, newCallId());
    await burst(r, wallet, 10);
    expect(await held(wallet)).toBeGreaterThan(0n);
    const cut = cutter.arm({ on: /spent AS \(/ });
    const answers = await burst(r, wallet, 5);
    await cut;
    expect(answers.every(paid)).toBe(true);
    expect(await records(wallet)).toBe(16);
    expect((await row(wallet)) + (await held(wallet))).toBe(984n * BigInt(PRICE));
    // The replica goes on at once on what the look-up found.
    expect((await burst(r, wallet, 5)).every(paid)).toBe(true);
    expect((await row(wallet)) + (await held(wallet))).toBe(979n * BigInt(PRICE));
    await r.close();
  });

  test('tokens drawn ahead of a busy bucket by two replicas: never more calls let through than the bucket gives', async () => {
    const { wallet, keyHash } = await claimed(100_000);
    const policy = { rate: 1, burst: 600 };
    const replicas = [replica(policy), replica(policy)];
    const bucket = `wallet:${wallet}`;
    const started = Date.now();
    const draw = (r: PgLedger) => Promise.all(Array.from({ length: 25 }, () => r.debitDrawing(wallet, PRICE, newCallId(), keyHash, bucket)));
    const answers: Drawing[] = [];
    for (let round = 0; round < 20; round++) answers.push(...(await Promise.all(replicas.map(draw))).flat());
    const allowed = answers.filter((a) => a.decision.allowed).length;
    const refill = Math.ceil(((Date.now() - started) / 1000) * policy.rate);
    expect(allowed).toBeLessThanOrEqual(policy.burst + refill);
    // Taken ahead, not lost: nearly all the bucket was used, and every allowed call was debited once.
    expect(allowed).toBeGreaterThan(policy.burst / 2);
    expect(answers.filter((a) => a.decision.allowed && paid(a.debit as never)).length).toBe(allowed);
    expect(await records(wallet)).toBe(allowed);
    for (const r of replicas) await r.close();
  });
});
