// What one Postgres statement per batch must still guarantee when two replicas batch at once: the
// ledger's debits and refunds of several wallets mixed in one transaction stay exact, a key
// revoked under a remembered one cannot spend, and the shared rate limit's upsert per turn gives
// a bucket's tokens once, to the first requests, however many ask in one turn on two replicas.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SQL } from 'bun';
import { newCallId } from '../../src/billing/resilience/call-id.ts';
import { KeyCache } from '../../src/billing/backend/postgres/key-cache.ts';
import { PgLedger } from '../../src/billing/backend/postgres/ledger.ts';
import { PgRateLimiter } from '../../src/billing/backend/postgres/rate-limit.ts';
import { KeyGone, type BillingStore } from '../../src/billing/store.ts';
import type { Debit } from '../../src/billing/credit.ts';
import { ledgerReplanned } from '../../src/metrics.ts';
import type { PgDb } from '../../src/db/pg-client.ts';
import { openLedgerDatabase, type LedgerDatabase } from '../support/ledger-database.ts';
import { commitCutter } from '../support/commit-cutter.ts';
import { POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';

setDefaultTimeout(30_000);

const PRICE = 1000;

describe.skipIf(shouldSkipPostgres('pg-batching'))('one statement per batch, two replicas', () => {
  let pg: LedgerDatabase;
  let db: PgDb;
  let ledger: PgLedger;
  let store: BillingStore;
  let other: SQL;
  let funded: LedgerDatabase['funded'];

  beforeAll(async () => {
    pg = await openLedgerDatabase();
    ({ db, ledger, store, other, funded } = pg);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(() => pg?.close());
  const credit = async (wallet: string) => Number((await other`SELECT credit_lamports FROM credit_accounts WHERE wallet = ${wallet}`)[0].credit_lamports);

  test('debits and refunds of five wallets at once through two ledgers: each wallet pays exactly for the calls it kept', async () => {
    const wallets = await Promise.all(Array.from({ length: 5 }, () => funded(30 * PRICE)));
    const second = new PgLedger(other);
    const ledgers = [ledger, second];
    // 50 debits per wallet for credit of 30 calls, spread over both replicas, every third refunded (some twice, on both).
    const outcomes = await Promise.all(
      wallets.flatMap(({ wallet }) =>
        Array.from({ length: 50 }, async (_, i) => {
          const debit = await ledgers[i % 2]!.debit(wallet, PRICE, newCallId());
          if (!debit || typeof debit === 'symbol') return { wallet, kept: 0 };
          if (i % 3 !== 0) return { wallet, kept: 1 };
          const [a, b] = await Promise.all([ledgers[0]!.refund(debit), ledgers[1]!.refund(debit)]);
          expect([a.given, b.given].filter((g) => g !== null)).toHaveLength(1);
          return { wallet, kept: 0 };
        }),
      ),
    );
    for (const { wallet } of wallets) {
      const kept = outcomes.filter((o) => o.wallet === wallet).reduce((n, o) => n + o.kept, 0);
      expect(await credit(wallet)).toBe(30 * PRICE - kept * PRICE);
      const [{ n }] = await other`SELECT count(*)::int AS n FROM ledger_debits WHERE wallet = ${wallet} AND refunded_at IS NULL`;
      expect(n).toBe(kept);
    }
  });

  test('a key revoked after this replica remembered it cannot spend: refused in the debit itself, nothing taken', async () => {
    const { wallet, apiKey } = await funded(10 * PRICE);
    const owner = (await store.identify(apiKey))!;
    expect(owner.wallet).toBe(wallet);
    expect(await store.debit(wallet, PRICE, newCallId(), owner.keyHash)).toMatchObject({ kind: 'credit' });
    // The operator revokes it from elsewhere; this replica still remembers the key.
    await other`UPDATE api_keys SET revoked_at = ${Date.now()}, revoked_by = 'operator' WHERE wallet = ${wallet}`;
    expect(store.identify(apiKey)).toEqual(owner);
    const attempts = await Promise.allSettled(Array.from({ length: 5 }, () => store.debit(wallet, PRICE, newCallId(), owner.keyHash)));
    expect(attempts.every((a) => a.status === 'rejected' && a.reason instanceof KeyGone)).toBe(true);
    expect(await credit(wallet)).toBe(9 * PRICE);
    // Forgotten: looked up again, and found revoked.
    expect(await store.identify(apiKey)).toBeNull();
  });

  test('batches planned on the balances each replica saw commit in one statement; where another replica spent meanwhile, each wallet still pays exactly once per kept call and never below zero', async () => {
    const policy = { rate: 1000, burst: 1000 };
    const ledgers = [new PgLedger(db.$client, policy), new PgLedger(other, policy)];
    const wallets = await Promise.all(Array.from({ length: 6 }, () => funded(40 * PRICE)));
    // Three free calls each, so a plan must also tell free calls from paid ones.
    await other`UPDATE credit_accounts SET free_calls = 3 WHERE wallet = ANY(${wallets.map((w) => w.wallet)}::text[])`;
    const keyHashes = await Promise.all(wallets.map(async (w) => (await store.identify(w.apiKey))!.keyHash));
    const before = ledgers.map((l) => ({ atOnce: l.atOnceCommits, replanned: l.replanned }));
    const counted = async () => (await ledgerReplanned.get()).values[0]?.value ?? 0;
    const countedBefore = await counted();
    // Waves of calls per wallet on both replicas: first one on each (so each saw a free call left that
    // the other then took), then 12 a wave: 62 calls for 3 free calls and 40 paid, the last refused.
    const kept: { wallet: string; kind: string }[] = [];
    for (let wave = 0; wave < 6; wave++) {
      if (wave === 3) {
        // A free call given back elsewhere (a refund on another replica) comes first, though this replica saw none left.
        await other`UPDATE credit_accounts SET free_calls = 1 WHERE wallet = ANY(${wallets.map((w) => w.wallet)}::text[])`;
        const given = await Promise.all(wallets.map(({ wallet }, w) => ledgers[0]!.debitDrawing(wallet, PRICE, newCallId(), keyHashes[w]!, `wallet:${wallet}`)));
        expect(given.map((d) => (d.debit as Debit).kind)).toEqual(wallets.map(() => 'free'));
      }
      const drawings = await Promise.all(
        wallets.flatMap(({ wallet }, w) =>
          Array.from({ length: wave ? 12 : 2 }, (_, i) => ledgers[(i + wave) % 2]!.debitDrawing(wallet, PRICE, newCallId(), keyHashes[w]!, `wallet:${wallet}`)),
        ),
      );
      for (const d of drawings) {
        expect(d.decision.allowed).toBe(true);
        if (d.debit && typeof d.debit === 'object') {
          kept.push({ wallet: d.debit.wallet, kind: d.debit.kind });
          expect(d.debit.balance.creditLamports >= 0n).toBe(true);
        }
      }
    }
    for (const { wallet } of wallets) {
      const mine = kept.filter((k) => k.wallet === wallet);
      expect(mine.filter((k) => k.kind === 'free')).toHaveLength(3);
      expect(mine.filter((k) => k.kind === 'credit')).toHaveLength(40);
      expect(await credit(wallet)).toBe(0);
      const rows = await other<{ kind: string; n: number }[]>`SELECT kind, count(*)::int AS n FROM ledger_debits WHERE wallet = ${wallet} GROUP BY kind ORDER BY kind`;
      expect(rows.map((r) => [r.kind, r.n])).toEqual([['credit', 40], ['free', 4]]);
    }
    // Both ways were taken: at once on what a replica saw, and replanned where the other had changed it.
    expect(ledgers.every((l, i) => l.atOnceCommits > before[i]!.atOnce)).toBe(true);
    expect(ledgers.some((l, i) => l.replanned > before[i]!.replanned)).toBe(true);
    // And an operator sees how often: gateway_ledger_replanned_total.
    expect((await counted()) - countedBefore).toBe(ledgers.reduce((n, l, i) => n + l.replanned - before[i]!.replanned, 0));
  });

  test('keys not remembered are looked up together and only live ones remembered; a key revoked elsewhere is forgotten at the next look at all', async () => {
    const funds = await Promise.all(Array.from({ length: 20 }, () => funded(PRICE)));
    let queries = 0;
    const cache = new KeyCache(
      {
        async live(keyHashes) {
          queries++;
          const rows = await other<{ key_hash: string; wallet: string }[]>`SELECT key_hash, wallet FROM api_keys WHERE key_hash = ANY(${keyHashes}::text[]) AND revoked_at IS NULL`;
          return new Map(rows.map((r) => [r.key_hash, r.wallet]));
        },
      },
      300,
    );
    try {
      const unknown = `cig_${'1'.repeat(44)}`;
      const owners = await Promise.all([...funds.map((f) => cache.identify(f.apiKey)), cache.identify(unknown), cache.identify('not a key')]);
      expect(owners.slice(0, 20).map((o) => o?.wallet)).toEqual(funds.map((f) => f.wallet));
      expect(owners.slice(20)).toEqual([null, null]);
      expect(queries).toBe(1);
      // Remembered: at once, no query.
      expect(cache.identify(funds[0]!.apiKey)).toMatchObject({ wallet: funds[0]!.wallet });
      const again = cache.identify(unknown);
      expect(again).toBeInstanceOf(Promise);
      expect(await again).toBeNull();
      await other`UPDATE api_keys SET revoked_at = ${Date.now()}, revoked_by = 'operator' WHERE wallet = ${funds[0]!.wallet}`;
      await Bun.sleep(800);
      expect(await cache.identify(funds[0]!.apiKey)).toBeNull();
      expect(cache.identify(funds[1]!.apiKey)).toMatchObject({ wallet: funds[1]!.wallet });
    } finally {
      cache.close();
    }
  });

  test('a claim forgets the remembered keys of its wallet alone, found by the wallet, also once older keys were evicted', async () => {
    const [a, b, c] = await Promise.all(Array.from({ length: 3 }, () => funded(PRICE)));
    let queries = 0;
    const live = async (keyHashes: string[]) => {
      queries++;
      const rows = await other<{ key_hash: string; wallet: string }[]>`SELECT key_hash, wallet FROM api_keys WHERE key_hash = ANY(${keyHashes}::text[]) AND revoked_at IS NULL`;
      return new Map(rows.map((r) => [r.key_hash, r.wallet]));
    };
    // Room for two keys: the third evicts the first.
    const cache = new KeyCache({ live }, 60_000, 2);
    try {
      for (const f of [a, b, c]) expect(await cache.identify(f.apiKey)).toMatchObject({ wallet: f.wallet });
      expect(queries).toBe(3);
      cache.forgetWallet(b.wallet);
      expect(cache.identify(c.apiKey)).toMatchObject({ wallet: c.wallet });
      expect(queries).toBe(3);
      expect(await cache.identify(b.apiKey)).toMatchObject({ wallet: b.wallet });
      expect(queries).toBe(4);
      // The evicted wallet's claim forgets nothing else.
      cache.forgetWallet(a.wallet);
      expect([cache.identify(b.apiKey), cache.identify(c.apiKey)]).toMatchObject([{ wallet: b.wallet }, { wallet: c.wallet }]);
      // Remembered again (evicting c), then forgotten by its wallet again.
      expect(await cache.identify(a.apiKey)).toMatchObject({ wallet: a.wallet });
      cache.forgetWallet(a.wallet);
      const asked = cache.identify(a.apiKey);
      expect(asked).toBeInstanceOf(Promise);
      expect(await asked).toMatchObject({ wallet: a.wallet });
      expect(queries).toBe(6);
    } finally {
      cache.close();
    }
  });

  test('the shared limit: 40 requests for one bucket in one turn on each of two replicas get the burst of 5 once, and leave it empty', async () => {
    const rate = 0.001;
    const burst = 5;
    const limiters = [new PgRateLimiter(db.$client, rate, burst), new PgRateLimiter(other, rate, burst)];
    try {
      // Ten buckets in turn: the two replicas' upserts race differently each time (one reads its clock
      // before the other's insert commits, or after).
      for (let round = 0; round < 10; round++) {
        const key = `wallet:${crypto.randomUUID()}`;
        const decisions = await Promise.all(limiters.flatMap((l) => Array.from({ length: 40 }, () => l.take(key))));
        const allowed = decisions.filter((d) => d.allowed);
        expect(allowed).toHaveLength(burst);
        // Each allowed request saw the bucket one token lower; a refused one, an empty bucket and when to come back.
        expect(allowed.map((d) => d.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
        const refused = decisions.filter((d) => !d.allowed);
        expect(refused.every((d) => d.remaining === 0 && d.limit === burst && d.retryAfterSeconds >= 1)).toBe(true);
        // Other buckets asked in the same turn are their own; this one stays empty on either replica.
        const next = await Promise.all([limiters[0]!.take(`${key}-a`), limiters[0]!.take(`${key}-b`), limiters[round % 2]!.take(key)]);
        expect(next.map((d) => d.allowed)).toEqual([true, true, false]);
      }
    } finally {
      for (const l of limiters) l.close();
    }
  });

  test('a paid call draws its token in its debit\'s transaction: of 30 calls at once on two replicas with a burst of 6, six are debited, the rest take nothing, one commit each', async () => {
    const policy = { rate: 0.001, burst: 6 };
    const ledgers = [new PgLedger(db.$client, policy), new PgLedger(other, policy)];
    const limiter = new PgRateLimiter(other, policy.rate, policy.burst);
    try {
      for (let round = 0; round < 5; round++) {
        const { wallet, apiKey } = await funded(100 * PRICE);
        const keyHash = (await store.identify(apiKey))!.keyHash;
        const bucket = `wallet:${wallet}`;
        const before = ledgers.map((l) => l.commits);
        const drawings = await Promise.all(Array.from({ length: 30 }, (_, i) => ledgers[i % 2]!.debitDrawing(wallet, PRICE, newCallId(), keyHash, bucket)));
        const admitted = drawings.filter((d) => d.decision.allowed);
        expect(admitted).toHaveLength(policy.burst);
        expect(admitted.every((d) => d.debit !== null && typeof d.debit === 'object' && d.debit.price === PRICE)).toBe(true);
        expect(drawings.filter((d) => !d.decision.allowed).every((d) => d.debit === null && d.decision.retryAfterSeconds >= 1)).toBe(true);
        expect(admitted.map((d) => d.decision.remaining).sort()).toEqual([0, 1, 2, 3, 4, 5]);
        // Refused calls took nothing: the credit fell by exactly the admitted calls' price, and one record each.
        expect(await credit(wallet)).toBe((100 - policy.burst) * PRICE);
        expect(Number((await other`SELECT count(*) AS n FROM ledger_debits WHERE wallet = ${wallet}`)[0].n)).toBe(policy.burst);
        // Each replica's 15 drawing debits went in one transaction: draw and debit, one commit.
        expect(ledgers.map((l, i) => l.commits - before[i]!)).toEqual([1, 1]);
        // The bucket is the one the plain limiter draws from (free calls, MCP messages): empty now.
        expect((await limiter.take(bucket)).allowed).toBe(false);
      }
    } finally {
      limiter.close();
    }
  });

  test('a busy replica whose batches are small waits for more calls before its next one; a quiet one, or one whose batches are large, does not', async () => {
    const { wallet } = await funded(2_000 * PRICE);
    // Lingering 300 ms, so that calls asked 50 ms apart go together only by lingering, however slow the machine.
    const replica = () => new PgLedger(other, undefined, undefined, 300);
    const debits = (l: PgLedger, n: number) => Promise.all(Array.from({ length: n }, () => l.debit(wallet, PRICE, newCallId())));
    /** Batches committed for 4 calls, then 4 more asked 50 ms later. */
    const batchesFor = async (l: PgLedger) => {
      const before = l.commits;
      const first = debits(l, 4);
      await Bun.sleep(50);
      const all = (await Promise.all([first, debits(l, 4)])).flat();
      expect(all.every((d) => d && typeof d === 'object')).toBe(true);
      return l.commits - before;
    };
    const quiet = replica();
    expect(await batchesFor(quiet)).toBe(2);
    // 500 debits within a second make a replica busy; in batches of 120 it gathers enough without
    // waiting, but not with ten callers one call after another (one replica of several).
    const alone = replica();
    for (let i = 0; i < 5; i++) await debits(alone, 120);
    expect(await batchesFor(alone)).toBe(2);
    const shared = replica();
    await Promise.all(Array.from({ length: 10 }, async () => {
      for (let i = 0; i < 52; i++) await shared.debit(wallet, PRICE, newCallId());
    }));
    expect(await batchesFor(shared)).toBe(1);
  });

  test('while a batch waits on a locked account, a second goes with the calls of the other accounts, never one of the first\'s; each call pays once', async () => {
    const stuck = await funded(10 * PRICE);
    const others = await Promise.all(Array.from({ length: 30 }, () => funded(10 * PRICE)));
    const replica = new PgLedger(other);
    // Another session holds the account's row, as a long transaction elsewhere would.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.$client.begin(async (tx) => {
      await tx`SELECT 1 FROM credit_accounts WHERE wallet = ${stuck.wallet} FOR UPDATE`;
      locked();
      await released;
    });
    await isLocked;
    const ended: string[] = [];
    const first = replica.debit(stuck.wallet, PRICE, newCallId()).then((d) => (ended.push('first'), d));
    while ((await other`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`)[0].n === 0) await Bun.sleep(10);
    // A later call of the stuck account, and one call of each other account.
    const again = replica.debit(stuck.wallet, PRICE, newCallId()).then((d) => (ended.push('again'), d));
    const rest = Promise.all(others.map(({ wallet }) => replica.debit(wallet, PRICE, newCallId())));
    const meanwhile = await Promise.race([rest, Bun.sleep(2_000).then(() => 'still waiting' as const)]);
    expect(meanwhile).not.toBe('still waiting');
    expect(ended).toEqual([]);
    release();
    await holder;
    expect(await Promise.all([first, again])).toMatchObject([{ kind: 'credit' }, { kind: 'credit' }]);
    expect(ended).toEqual(['first', 'again']);
    expect(await credit(stuck.wallet)).toBe(8 * PRICE);
    for (const { wallet } of others) expect(await credit(wallet)).toBe(9 * PRICE);
  });

  test('a COMMIT lost for each of two batches in flight: every call answered as it ended, each charged once', async () => {
    const stuck = await funded(10 * PRICE);
    const others = await Promise.all(Array.from({ length: 30 }, () => funded(10 * PRICE)));
    const cutter = commitCutter(pg.url);
    const through = new SQL(cutter.url, { max: 4 });
    try {
      const replica = new PgLedger(through);
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holder = db.$client.begin(async (tx) => {
        await tx`SELECT 1 FROM credit_accounts WHERE wallet = ${stuck.wallet} FOR UPDATE`;
        locked();
        await released;
      });
      await isLocked;
      const first = replica.debit(stuck.wallet, PRICE, newCallId());
      while ((await other`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`)[0].n === 0) await Bun.sleep(10);
      // The second batch's COMMIT is lost while the first still waits on the row; then the first's.
      const secondCut = cutter.arm({ on: /^\s*COMMIT/i });
      const rest = Promise.all(others.map(({ wallet }) => replica.debit(wallet, PRICE, newCallId())));
      await secondCut;
      expect(await rest).toHaveLength(30);
      const firstCut = cutter.arm({ on: /^\s*COMMIT/i });
      release();
      await holder;
      await firstCut;
      expect(cutter.cuts).toBe(2);
      expect(await first).toMatchObject({ kind: 'credit', price: PRICE });
      for (const debit of await rest) expect(debit).toMatchObject({ kind: 'credit', price: PRICE });
      for (const { wallet } of [stuck, ...others]) {
        expect(await credit(wallet)).toBe(9 * PRICE);
        expect((await other`SELECT count(*)::int AS n FROM ledger_debits WHERE wallet = ${wallet} AND price > 0`)[0].n).toBe(1);
      }
    } finally {
      await through.close();
      cutter.stop();
    }
  });

  test('balances asked at once are read in one query, each wallet its own, each seeing every debit committed before it was asked', async () => {
    const a = await funded(10 * PRICE);
    const b = await funded(20 * PRICE);
    let queries = 0;
    const counted = new Proxy(other, { apply: (target, self, args) => (queries++, Reflect.apply(target, self, args)) });
    const reader = new PgLedger(counted);
    await reader.debit(a.wallet, PRICE, newCallId());
    queries = 0;
    const read = await Promise.all([a.wallet, b.wallet, 'no-such-wallet', a.wallet].map((w) => reader.account(w)));
    expect(queries).toBe(1);
    expect(read.map((r) => r?.creditLamports)).toEqual([BigInt(9 * PRICE), BigInt(20 * PRICE), undefined, BigInt(9 * PRICE)]);
    expect(read.map((r) => r?.wallet)).toEqual([a.wallet, b.wallet, undefined, a.wallet]);
    // Spent through another replica and committed before the read was asked: the read sees it.
    await ledger.debit(b.wallet, PRICE, newCallId());
    expect((await reader.account(b.wallet))?.creditLamports).toBe(BigInt(19 * PRICE));
  });
});
