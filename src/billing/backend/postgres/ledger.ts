// The credit ledger on PostgreSQL, exact across replicas, group committed per replica: the
// operations asked for while a transaction is in flight go together in the next one, answered only
// after its COMMIT. Like the SQLite ledger (sqlite/ledger.ts), a transaction first locks every account it
// touches (in wallet order, in every replica, so two replicas' transactions never wait on each
// other in a cycle), reads them and the records of its calls, applies its debits and refunds in
// order with the same pure steps (debitStep, refundStep), then writes each account once and all
// records with one statement per kind: a batch costs the same few statements whatever its size,
// and the CHECK constraints refuse a negative balance regardless. While one batch is out, a second
// may go with the calls of accounts and buckets the first does not touch (take): the two never wait
// on each other's row locks, and an account whose row is held elsewhere holds back only its own
// calls once 24 others wait.
//
// Once per call, as on SQLite (sqlite/ledger.ts): each debit is recorded under its call id in the transaction that
// takes it, and a refund gives back only a recorded debit not yet refunded. A paid call's key is
// checked live in the same transaction (keyHash), so a key revoked by another replica or by the
// operator cannot spend, whatever a replica remembers of it (key-cache.ts). Usage rows ride along
// (carry): a paid call costs no commit of its own for its history. So does its rate-limit draw
// (debitDrawing): the token is drawn first in the same transaction (buckets.ts), and a call the limit
// refuses takes nothing, so a paid call costs one commit, shared with the calls of its batch.
//
// Most batches need not read first: planned on the balances this replica last saw, a batch of debits
// it expects paid goes at once (atOnce), one statement that is its own transaction, one round trip
// instead of four. Its guards make it all or nothing: if the database is not as planned, nothing is
// written and the batch goes the locking way above.
//
// A busy account (debited 25 times a second or more in this replica, with credit for many calls)
// is not debited in its own row, which every replica's batches would queue on, one COMMIT's fsync
// after another: the locking transaction moves part of it into a hold of this replica's (holds.ts),
// and the batches after it debit that hold at once, a row no other replica touches, until it runs
// short and is refilled. Likewise a busy rate-limit bucket: a batch at once takes up to 16 times its
// tokens ahead while the bucket stays at least half full, and the next batches use those before
// drawing again (TokensAhead).
//
// When the connection is lost around COMMIT the batch may or may not have committed: the ledger then
// looks its call ids up on a new connection, after taking the accounts' row locks (which the lost
// transaction holds until the server has committed or rolled it back), and answers each operation
// as it really ended; one that did not commit is sent again. A COMMIT not answered within
// COMMIT_WITHIN_MS is settled the same way. If the database cannot be asked within
// SETTLE_WITHIN_MS, the operation fails with UnsettledWrite and its caller keeps the question.
import type { SQL } from 'bun';
import { outcomeUnknown, serverState } from '../../../db/faults.ts';
import { callIdsBefore } from '../../resilience/call-id.ts';
import { debitStep, refundStep, type AccountView, type Balance, type Debit, type DebitRef, type Refund } from '../../credit.ts';
import { COMMIT_WITHIN_MS, settleWithin, SETTLE_WITHIN_MS, UnsettledWrite } from '../../resilience/unsettled.ts';
import type { usageRow } from '../../usage-history.ts';
import type { RateDecision } from '../../rate-limit.ts';
import { KeyedBatch } from './keyed-batch.ts';
import { decisionOf, draw, drawing, drawnOf, type BucketPolicy, type Drawn } from './buckets.ts';
import { Busy, foldHolds, holdFor, HOLD_TTL_MS, SWEEP_EVERY_MS, type HoldRow } from './holds.ts';
import { LATE, within } from '../../../within.ts';
import { ledgerBatch, ledgerCommit, ledgerReplanned } from '../../../metrics.ts';

/** What a debit resolves to when its key was found revoked in its own transaction: nothing was taken. */
export const KEY_GONE = Symbol('key gone');

type UsageRow = ReturnType<typeof usageRow>;

interface Pending {
  kind: 'debit' | 'refund' | 'rows';
  /** '' for usage rows. */
  wallet: string;
  /** The call's id, or for a debit made again after a lost COMMIT, that attempt's (nextAttempt); '' for usage rows. */
  callId: string;
  price?: number;
  /** A debit's key: it must still be live when the debit is taken. */
  keyHash?: string;
  /** A debit's rate-limit bucket: a token is drawn from it first, and without one nothing is taken. */
  bucket?: string;
  /** The debit a refund gives back. */
  given?: DebitRef;
  /** A refund's stamp in refunded_at: after a lost COMMIT, tells this refund from an earlier one. */
  refundAt?: number;
  rows?: UsageRow[];
  /** What the operation answers, learned from its call's record (and its bucket, if it drew) after a lost COMMIT. */
  recovered(record: DebitRow | undefined, balance: Balance, bucket?: Drawn): { value: unknown } | 'again';
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Until when its outcome may be waited for. */
  deadline: number;
}

interface BalanceRow {
  free_calls: number;
  credit_lamports: string | number | bigint;
}

interface DebitRow {
  call_id: string;
  wallet?: string;
  kind: Debit['kind'];
  price: string | number;
  refunded_at: string | number | null;
}

/** A drawing debit's answer: the limit's decision, and the debit when the limit allowed it. */
export interface Drawing {
  decision: RateDecision;
  debit: Debit | null | typeof KEY_GONE;
}

/** The debit a call's record says was made (null when refunded since). */
const madeDebit = (record: DebitRow, wallet: string, balance: Balance): Debit | null =>
  record.refunded_at === null ? { callId: record.call_id, wallet, kind: record.kind, price: Number(record.price), balance } : null;

// Bun's client returns bigint columns as decimal strings: exact through BigInt.
const balanceOf = (r: BalanceRow): Balance => ({ freeCalls: Number(r.free_calls), creditLamports: BigInt(r.credit_lamports) });
const viewOf = (a: AccountView): Balance => ({ freeCalls: a.freeCalls, creditLamports: a.creditLamports });

/** refunded_at of a voided id: no refund is ever made at time 0. */
const VOID = 0;
const voided = (r: DebitRow) => r.refunded_at !== null && Number(r.refunded_at) === VOID;

/** The id of a debit made again after its first attempt was voided: the same call, still sorted by its time. */
const nextAttempt = (callId: string) => `${callId}+`;

/** The rows an operation locks, by name: its account, and its rate-limit bucket if it draws (usage rows lock none). */
const touched = (op: Pending): string[] => (op.kind === 'rows' ? [] : op.bucket ? [op.wallet, op.bucket] : [op.wallet]);

const byWallet = (a: { wallet: string }, b: { wallet: string }) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0);

/**
 * A busy replica (BUSY_REPLICA_PER_SECOND debits a second or more) that finds fewer than LINGER_BELOW
 * calls queued when a batch comes back, now and as a rule, waits LINGER_MS for more before it sends
 * the next. Several replicas each batch only their own share of the calls: on 3 gateways sharing 2
 * cores with Postgres, batches of 10.7 calls cost the gateways and Postgres twice the CPU per call
 * of one gateway's 32 (docs/scale-out.md). One busy replica gathers about 32 while a batch is out
 * and does not wait when now and then it finds fewer (that cost it 5 %); a quiet one does not wait
 * for calls that are not coming.
 */
const LINGER_MS = 2;
const LINGER_BELOW = 16;
const BUSY_REPLICA_PER_SECOND = 500;

/**
 * Batches a replica keeps in flight at once. With one, a batch's statement and the gateway's work
 * for the calls of the one before run one after the other (docs/scale-out.md); a second batch goes
 * while the first is out once SECOND_BATCH_FROM operations wait that touch none of its accounts or
 * buckets (and at most a quarter of those waiting are held back), so the two never wait on each
 * other's row locks.
 */
const BATCHES_IN_FLIGHT = 2;
const SECOND_BATCH_FROM = 24;

/** Usage rows nobody waits for commit alone after this long if no debit comes to carry them. */
const DEFERRED_MS = 200;

/** What a batch is applied to: accounts, the records of its calls, the keys still live, and its draws. */
interface Read {
  accounts: Map<string, AccountView>;
  records: Map<string, DebitRow>;
  live: { has(keyHash: string): boolean };
  drawn: Map<string, Drawn>;
}

const accountOf = (r: BalanceRow & { wallet: string; calls_made: number }): AccountView => ({ wallet: r.wallet, callsMade: Number(r.calls_made), ...balanceOf(r) });

/** Requests per rate-limit bucket among a batch's drawing debits. */
function bucketCounts(ops: Pending[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const op of ops) if (op.bucket) counts.set(op.bucket, (counts.get(op.bucket) ?? 0) + 1);
  return counts;
}

/** The keys a batch's debits came with, each once: checked live in the debits' own transaction. */
const keyHashes = (ops: Pending[]): string[] => [...new Set(ops.flatMap((op) => (op.keyHash ? [op.keyHash] : [])))];

/** A plan assumes every key live: the statement checks it. */
const EVERY_KEY = { has: () => true };

/**
 * The SQLSTATEs of an at-once statement that found things not as planned: its own guard (division
 * by zero), a call id recorded already (unique violation), a balance that would go below zero
 * (check violation). The statement wrote nothing.
 */
const NOT_AS_PLANNED = new Set(['22012', '23505', '23514']);

/** Accounts remembered for planning (one replica's customers; past this, it starts again). */
const SEEN_MAX = 100_000;

/**
 * Tokens drawn ahead are dropped this long after their draw, used or not: never given twice, and
 * while a replica holds them the bucket can refill past what it would hold with them in it, so a
 * window may pass at most this long's worth of the key's rate more than the bucket alone would.
 */
const AHEAD_MS = 250;
/** A busy bucket's draw takes up to this many times its requests ahead... */
const AHEAD_TIMES = 16;

/** Tokens this replica drew ahead of a bucket, and what the bucket held after that draw. */
interface TokensAhead {
  tokens: number;
  left: number;
  at: number;
}

/** What a batch's debits ask of each account: how many calls, their lamports, and the dearest price. */
function demandOf(ops: Pending[]): Map<string, { calls: number; lamports: bigint; price: number }> {
  const demand = new Map<string, { calls: number; lamports: bigint; price: number }>();
  for (const op of ops) {
    if (op.kind !== 'debit') continue;
    const d = demand.get(op.wallet) ?? { calls: 0, lamports: 0n, price: 0 };
    demand.set(op.wallet, { calls: d.calls + 1, lamports: d.lamports + BigInt(op.price!), price: Math.max(d.price, op.price!) });
  }
  return demand;
}

/** An answer as the caller sees it: its balance with what other replicas hold of the account (`spare`), which the batch did not touch. */
function withSpare(r: unknown, spare: bigint | undefined): unknown {
  if (!spare || !r || typeof r !== 'object' || r instanceof Error) return r;
  if ('decision' in r) return { ...r, debit: withSpare((r as Drawing).debit, spare) };
  const { balance } = r as { balance: Balance };
  return { ...r, balance: { ...balance, creditLamports: balance.creditLamports + spare } };
}

/** A batch's answers with what other replicas hold of each account (`spare`, by wallet). */
const withSpares = (batch: Pending[], results: unknown[], spare: Map<string, bigint>): unknown[] =>
  spare.size ? results.map((r, i) => withSpare(r, spare.get(batch[i]!.wallet))) : results;

// No ON CONFLICT: a record made meanwhile (a voided id, pg-ledger settle) fails the batch, nothing moves.
const recordsInsert = (sql: SQL, r: Writes['records']) => sql`
  INSERT INTO ledger_debits (call_id, wallet, kind, price)
  SELECT * FROM unnest(${r.map((x) => x.callId)}::text[], ${r.map((x) => x.wallet)}::text[], ${r.map((x) => x.kind)}::text[], ${r.map((x) => String(x.price))}::text[]::bigint[])`;

const usageInsert = (sql: SQL, r: UsageRow[]) => sql`
  INSERT INTO usage_events (call_id, wallet, at, capability, face, paid_with, lamports, refunded, status)
  SELECT * FROM unnest(${r.map((x) => x.callId)}::text[], ${r.map((x) => x.wallet)}::text[], ${r.map((x) => String(x.at))}::text[]::bigint[],
    ${r.map((x) => x.capability)}::text[], ${r.map((x) => x.face)}::text[], ${r.map((x) => x.paidWith)}::text[],
    ${r.map((x) => String(x.lamports))}::text[]::bigint[], ${r.map((x) => String(x.refunded))}::text[]::boolean[], ${r.map((x) => String(x.status))}::text[]::int[])
  ON CONFLICT (call_id) DO NOTHING`;

/** What one transaction writes, gathered while its operations are applied in memory. */
interface Writes {
  /** Each drawing debit's place among its bucket's requests, counted as the batch is applied. */
  drawn: Map<string, number>;
  accounts: Map<string, AccountView>;
  records: { callId: string; wallet: string; kind: Debit['kind']; price: number }[];
  refunds: { callId: string; at: number }[];
  rows: UsageRow[];
}

export class PgLedger {
  private queue: Pending[] = [];
  /** Batches being sent or in flight (flush loops running), at most BATCHES_IN_FLIGHT. */
  private flushing = 0;
  private secondAsked = false;
  /** The accounts and buckets of the batches in flight, each with how many batches touch it. */
  private readonly inFlight = new Map<string, number>();
  private lazy: ReturnType<typeof setTimeout> | undefined;
  /** Transactions committed by the group commit (for tests and diagnostics). */
  commits = 0;
  /** Of those, the batches committed at once (atOnce), and those that found things not as planned and went to the locking transaction. */
  atOnceCommits = 0;
  replanned = 0;
  private readonly seen = new Map<string, AccountView>();
  /** Names this replica's holds (holds.ts) while it runs. */
  readonly holder = crypto.randomUUID();
  /** The credit each of this replica's holds has left, as its last committed batch left it. */
  private readonly held = new Map<string, bigint>();
  private readonly busy = new Busy();
  private readonly busyBuckets = new Busy();
  /** This replica's debits per second, under the key ''. */
  private readonly traffic = new Busy(BUSY_REPLICA_PER_SECOND);
  /** How many operations a batch finds queued, as a rule: a moving average over about 8 batches. */
  private gathered = 0;
  /** Set by close(): no hold is taken any more. */
  private closing = false;
  private readonly ahead = new Map<string, TokensAhead>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  /** Balance reads, one query per round for every wallet asked (account()). */
  private readonly balances = new KeyedBatch<AccountView | null>(async (asked) => {
    const rows = await this.sql<(BalanceRow & { wallet: string; calls_made: number })[]>`
      SELECT a.wallet, a.free_calls, (a.credit_lamports + coalesce(sum(h.credit_lamports), 0))::text AS credit_lamports, a.calls_made + coalesce(sum(h.calls_made), 0) AS calls_made
      FROM credit_accounts a LEFT JOIN credit_holds h ON h.wallet = a.wallet WHERE a.wallet = ANY(${[...asked.keys()]}::text[]) GROUP BY a.wallet`;
    const found = new Map(rows.map((r) => [r.wallet, accountOf(r)]));
    return (wallet) => found.get(wallet) ?? null;
  });

  /**
   * `buckets`: the shared rate limit's policy, when limits are on (debitDrawing); `aheadMs`: how long
   * tokens drawn ahead last; `lingerMs`: how long a busy replica's short batch waits for more calls.
   */
  constructor(
    private readonly sql: SQL,
    readonly buckets?: BucketPolicy,
    private readonly aheadMs = AHEAD_MS,
    private readonly lingerMs = LINGER_MS,
  ) {}

  /** Folds back every replica's expired holds from now on, every SWEEP_EVERY_MS, until close(); the gateway's ledger does. */
  sweepExpiredHolds(): void {
    this.sweeper ??= setInterval(() => void foldHolds(this.sql).catch(() => {}), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  /** `keyHash`: the key the call came with, checked live in the debit's transaction (else KEY_GONE). */
  debit(wallet: string, price: number, firstCallId: string, keyHash?: string): Promise<Debit | null | typeof KEY_GONE> {
    return this.debitOf(wallet, price, firstCallId, keyHash);
  }

  /**
   * debit() with a token drawn first from the rate-limit bucket `bucket` in the same transaction:
   * refused by the limit, it takes nothing (debit null). Needs `buckets`.
   */
  debitDrawing(wallet: string, price: number, firstCallId: string, keyHash: string, bucket: string): Promise<Drawing> {
    return this.debitOf(wallet, price, firstCallId, keyHash, bucket);
  }

  private debitOf<T>(wallet: string, price: number, callId: string, keyHash?: string, bucket?: string): Promise<T> {
    return this.enqueue({
      kind: 'debit',
      wallet,
      callId,
      price,
      keyHash,
      bucket,
      // Made: a drawing debit's draw was too, in the same transaction. Not made (or refused by the
      // limit, which leaves no record): made again, drawing again; a bucket is not money.
      recovered: (record, balance, drawn) => {
        if (!record || voided(record)) return 'again';
        const debit = madeDebit(record, wallet, balance);
        if (!bucket) return { value: debit };
        const policy = this.buckets!;
        return { value: { decision: decisionOf({ tokens: drawn?.tokens ?? policy.burst, allowed: 1 }, 0, policy), debit } satisfies Drawing };
      },
    });
  }

  /** Gives back what the call `debit.callId` was debited, once however often asked. */
  refund(debit: DebitRef): Promise<Refund> {
    const refundAt = Date.now();
    return this.enqueue({
      kind: 'refund',
      wallet: debit.wallet,
      callId: debit.callId,
      given: debit,
      refundAt,
      recovered: (record, balance) => {
        if (!record || record.refunded_at === null) return 'again';
        const mine = Number(record.refunded_at) === refundAt;
        return { value: { balance, given: mine ? { balance, ...debit, kind: record.kind, price: Number(record.price) } : null } satisfies Refund };
      },
    });
  }

  /**
   * Usage rows (unique by call id, so writing one twice writes it once), written with the next
   * group commit or, when no debit comes, alone within DEFERRED_MS. Resolves once committed.
   */
  carry(rows: UsageRow[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ kind: 'rows', wallet: '', callId: '', rows, recovered: () => 'again', resolve: resolve as (v: unknown) => void, reject, deadline: Date.now() + SETTLE_WITHIN_MS });
      if (this.flushing === 0) this.later();
    });
  }

  /**
   * The account with every replica's holds of it: what it has. Reads asked while one runs go together
   * in the next (KeyedBatch): a query of its own cost the gateway 66-88 µs of CPU per polled balance.
   * A read still sees every commit made before it was asked, since its round starts after that.
   */
  account(wallet: string): Promise<AccountView | null> {
    return this.balances.ask(wallet);
  }

  /** On a graceful stop: once nothing is in flight, this replica's holds go back to their accounts (else they expire, holds.ts). */
  async close(waitMs = 2_000): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    const until = Date.now() + waitMs;
    while ((this.flushing > 0 || this.queue.length) && Date.now() < until) await Bun.sleep(5);
    this.held.clear();
    await foldHolds(this.sql, this.holder).catch(() => {});
  }

  /** Forgets the records of calls made before `before` (Unix ms): no refund is owed that long. */
  async prune(before: number): Promise<void> {
    await this.sql`DELETE FROM ledger_debits WHERE call_id < ${callIdsBefore(before)}`;
  }

  private enqueue<T>(op: Omit<Pending, 'resolve' | 'reject' | 'deadline'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ...op, resolve: resolve as (v: unknown) => void, reject, deadline: Date.now() + SETTLE_WITHIN_MS });
      this.start();
    });
  }

  private start() {
    if (this.flushing > 0) {
      // Looked at once per turn of the event loop: the second batch takes what waits by then. Only
      // beside a batch in flight: a replica waiting for more calls (lingering) still waits.
      if (this.flushing < BATCHES_IN_FLIGHT && !this.secondAsked && this.inFlight.size > 0 && this.queue.length >= SECOND_BATCH_FROM) {
        this.secondAsked = true;
        setImmediate(() => {
          this.secondAsked = false;
          if (this.flushing >= BATCHES_IN_FLIGHT || this.inFlight.size === 0) return;
          this.flushing++;
          void this.flush();
        });
      }
      return;
    }
    this.flushing = 1;
    clearTimeout(this.lazy);
    this.lazy = undefined;
    setImmediate(() => void this.flush());
  }

  /**
   * The next batch, sorted by wallet (stably: one wallet's operations keep their order): every
   * operation queued whose account and bucket no batch in flight touches, the rest left queued for
   * after it. Beside another batch in flight, none unless at least SECOND_BATCH_FROM can go.
   */
  private take(): Pending[] {
    const alone = this.flushing === 1;
    if (alone && this.inFlight.size === 0) {
      const all = this.queue;
      this.queue = [];
      return all.sort(byWallet);
    }
    const busy = (op: Pending) => touched(op).some((key) => this.inFlight.has(key));
    // A wallet held back holds back its later operations too, so that its order stays.
    const blocked = new Set<string>();
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    for (const op of this.queue) {
      if (busy(op) || blocked.has(op.wallet)) {
        if (op.wallet !== '') blocked.add(op.wallet);
        rest.push(op);
      } else batch.push(op);
    }
    // Not when most of what waits is held back (a few busy customers): a second batch would only
    // split theirs (8 hot keys: 83-94 % of the rate with one batch in flight).
    if (!alone && (batch.filter((op) => op.kind !== 'rows').length < SECOND_BATCH_FROM || rest.length * 4 > this.queue.length)) return [];
    this.queue = rest;
    return batch.sort(byWallet);
  }

  private mark(batch: Pending[], by: 1 | -1) {
    for (const op of batch) {
      for (const key of touched(op)) {
        const n = (this.inFlight.get(key) ?? 0) + by;
        if (n > 0) this.inFlight.set(key, n);
        else this.inFlight.delete(key);
      }
    }
  }

  /** Usage rows alone wait a while for a debit to carry them. */
  private later() {
    this.lazy ??= setTimeout(() => {
      this.lazy = undefined;
      this.start();
    }, DEFERRED_MS);
  }

  private async flush(): Promise<void> {
    // Usage rows alone go only when nothing else came for them (later() started this flush).
    let alone = !this.queue.some((op) => op.kind !== 'rows');
    while (this.queue.length && (alone || this.queue.some((op) => op.kind !== 'rows'))) {
      alone = false;
      if (this.flushing === 1) {
        this.gathered += (this.queue.length - this.gathered) / 8;
        if (this.queue.length < LINGER_BELOW && this.gathered < LINGER_BELOW && this.traffic.busy('')) await Bun.sleep(this.lingerMs);
      }
      const batch = this.take();
      if (!batch.length) break;
      const started = performance.now();
      // Its accounts and buckets stay the batch's until it is answered or settled.
      this.mark(batch, 1);
      const results = await this.send(batch);
      this.mark(batch, -1);
      if (!results) continue;
      this.commits++;
      ledgerBatch.observe(batch.filter((op) => op.kind !== 'rows').length);
      ledgerCommit.observe((performance.now() - started) / 1000);
      batch.forEach((op, i) => {
        const r = results[i];
        if (r instanceof Error) op.reject(r);
        else op.resolve(r);
      });
    }
    this.flushing--;
    if (this.flushing === 0 && this.queue.length) this.later();
  }

  /**
   * A batch sent and committed: its operations' answers; or null once they were told otherwise (each
   * rejected with the database's error, or settled after a lost or late COMMIT: answered as their
   * calls ended, or queued again).
   */
  private async send(batch: Pending[]): Promise<unknown[] | null> {
    try {
      // A refund of a vanished account fails alone; any error thrown is the database's: the whole
      // batch either committed or did not.
      const results = await within(this.commit(batch, Date.now() + COMMIT_WITHIN_MS), COMMIT_WITHIN_MS);
      if (results !== LATE) return results;
    } catch (e) {
      if (!outcomeUnknown(e)) {
        for (const op of batch) op.reject(e);
        return null;
      }
    }
    // Lost, or too late to wait for: settled like a lost answer (what the transaction says later is ignored).
    await this.settle(batch);
    return null;
  }

  /**
   * One batch, committed: at once when it can be (atOnce), else in a transaction that locks and reads
   * first; but not after `until`, when the batch is being settled as late (settle) instead.
   */
  private async commit(batch: Pending[], until: number): Promise<unknown[]> {
    const demand = demandOf(batch);
    const counts = bucketCounts(batch);
    let debits = 0;
    for (const [wallet, d] of demand) {
      this.busy.count(wallet, d.calls);
      debits += d.calls;
    }
    for (const [bucket, n] of counts) this.busyBuckets.count(bucket, n);
    this.traffic.count('', debits);
    const fast = this.atOnce(batch, demand, counts);
    if (fast) {
      try {
        const results = await fast;
        this.atOnceCommits++;
        return results;
      } catch (e) {
        // The database found the batch not as planned (or a call id recorded already): nothing of it
        // was written; the locking transaction decides it on what is there.
        if (!NOT_AS_PLANNED.has(serverState(e) ?? '') || Date.now() >= until) throw e;
        this.replanned++;
        ledgerReplanned.inc();
      }
    }
    const { results, accounts, holds } = await this.sql.begin((tx) => this.apply(tx, batch, demand, counts));
    this.saw(accounts.values());
    if (this.held.size > SEEN_MAX) this.held.clear();
    for (const [wallet, hold] of holds) {
      if (hold > 0n) this.held.set(wallet, hold);
      else this.held.delete(wallet);
    }
    return results;
  }

  /**
   * One transaction: lock and read, apply in order in memory, write each account once and each kind
   * of record in one statement. Returns the accounts' rows as written, and this replica's hold of
   * each account from now on (0n: none).
   */
  private async apply(tx: SQL, batch: Pending[], demand: ReturnType<typeof demandOf>, counts: Map<string, number>): Promise<{ results: unknown[]; accounts: Map<string, AccountView>; holds: Map<string, bigint> }> {
    const money = batch.filter((op) => op.kind !== 'rows');
    const wallets = [...new Set(money.map((op) => op.wallet))];
    const keys = keyHashes(money);
    // Tokens drawn ahead first; spent here even if this transaction fails (then a few are refused early, never given twice).
    const draws = this.drawsAhead(counts, false);
    const [fromDb, [accountRows, holdRows, recordRows, liveRows]] = await Promise.all([
      // Sent first: the buckets' row locks come before the accounts' in every transaction.
      draws.fromDb.size ? draw(tx, draws.fromDb, this.buckets!, false) : new Map<string, Drawn>(),
      money.length
        ? Promise.all([
            // First: the row locks, held until COMMIT. The records are read under them, so a debit of
            // the same call still committing elsewhere is seen once it has.
            tx<(BalanceRow & { wallet: string; calls_made: number })[]>`
              SELECT wallet, free_calls, credit_lamports, calls_made FROM credit_accounts WHERE wallet = ANY(${wallets}::text[]) ORDER BY wallet FOR UPDATE`,
            // Then every replica's holds of them, in the same order (holds.ts): a hold being debited
            // at once elsewhere is seen once that has committed.
            tx<HoldRow[]>`
              SELECT wallet, holder, credit_lamports, calls_made, expires_at < extract(epoch from clock_timestamp()) * 1000 AS expired
              FROM credit_holds WHERE wallet = ANY(${wallets}::text[]) ORDER BY wallet, holder FOR UPDATE`,
            tx<DebitRow[]>`SELECT call_id, wallet, kind, price, refunded_at FROM ledger_debits WHERE call_id = ANY(${money.map((op) => op.callId)}::text[])`,
            keys.length ? tx<{ key_hash: string }[]>`SELECT key_hash FROM api_keys WHERE key_hash = ANY(${keys}::text[]) AND revoked_at IS NULL` : Promise.resolve([]),
          ])
        : ([[], [], [], []] as const),
    ]);
    const drawn = this.tookAhead(counts, draws, fromDb);
    const { accounts, folded, spare } = this.pool(accountRows.map(accountOf), holdRows, demand);
    const records = new Map<string, DebitRow>(recordRows.map((r) => [r.call_id, r]));
    const live = new Set(liveRows.map((r) => r.key_hash));
    const { results, writes } = this.stepAll(batch, { accounts, records, live, drawn });
    // This replica's hold of each busy account from here on (refilled, or taken); the rest is its row.
    const holds = new Map<string, bigint>();
    const rows = new Map<string, AccountView>();
    const touched = new Set(folded.map((h) => h.wallet));
    const a: AccountView[] = [];
    for (const [wallet, account] of accounts) {
      const d = demand.get(wallet);
      const hold = d ? this.holdWanted(wallet, account, d.price) : 0n;
      const row = { ...account, creditLamports: account.creditLamports - hold };
      holds.set(wallet, hold);
      rows.set(wallet, row);
      if (hold > 0n || touched.has(wallet) || writes.accounts.has(wallet)) a.push(row);
    }
    const at = Date.now();
    const statements: Promise<unknown>[] = [];
    if (a.length) {
      statements.push(tx`
        UPDATE credit_accounts c SET free_calls = v.f, credit_lamports = v.c, calls_made = v.m, updated_at = ${at}
        FROM unnest(${a.map((x) => x.wallet)}::text[], ${a.map((x) => String(x.freeCalls))}::text[]::int[], ${a.map((x) => String(x.creditLamports))}::text[]::bigint[], ${a.map((x) => String(x.callsMade))}::text[]::int[])
          AS v(w, f, c, m)
        WHERE c.wallet = v.w`.then(() => {}));
    }
    if (folded.length) {
      statements.push(tx`
        DELETE FROM credit_holds h USING unnest(${folded.map((x) => x.wallet)}::text[], ${folded.map((x) => x.holder)}::text[]) AS v(w, holder)
        WHERE h.wallet = v.w AND h.holder = v.holder`.then(() => {}));
    }
    const taken = [...holds].filter(([, hold]) => hold > 0n);
    if (taken.length) {
      statements.push(tx`
        INSERT INTO credit_holds (wallet, holder, credit_lamports, calls_made, expires_at)
        SELECT w, ${this.holder}, c, 0, (extract(epoch from clock_timestamp()) * 1000)::bigint + ${HOLD_TTL_MS}
        FROM unnest(${taken.map(([w]) => w)}::text[], ${taken.map(([, c]) => String(c))}::text[]::bigint[]) AS v(w, c)
        ON CONFLICT (wallet, holder) DO UPDATE SET credit_lamports = EXCLUDED.credit_lamports, calls_made = 0, expires_at = EXCLUDED.expires_at`.then(() => {}));
    }
    if (writes.records.length) statements.push(recordsInsert(tx, writes.records).then(() => {}));
    if (writes.refunds.length) {
      const r = writes.refunds;
      statements.push(tx`
        UPDATE ledger_debits d SET refunded_at = v.at
        FROM unnest(${r.map((x) => x.callId)}::text[], ${r.map((x) => String(x.at))}::text[]::bigint[]) AS v(id, at)
        WHERE d.call_id = v.id AND d.refunded_at IS NULL`.then(() => {}));
    }
    if (writes.rows.length) statements.push(usageInsert(tx, writes.rows).then(() => {}));
    await Promise.all(statements);
    return { results: withSpares(batch, results, spare), accounts: rows, holds };
  }

  /** The hold this replica would take of `account` for calls of `price`: only of a busy account, and never once stopping. */
  private holdWanted(wallet: string, account: AccountView, price: number): bigint {
    return !this.closing && this.busy.busy(wallet) ? holdFor(account, price) : 0n;
  }

  /**
   * The accounts a locking batch is applied to: each account's row with this replica's hold and
   * every expired one folded back in, and other replicas' live holds too where the batch might need
   * them; those it leaves alone (`spare`) are only added to the balances it answers.
   */
  private pool(rows: AccountView[], holds: readonly HoldRow[], demand: ReturnType<typeof demandOf>) {
    const accounts = new Map(rows.map((a) => [a.wallet, a]));
    const folded: HoldRow[] = [];
    const fold = (h: HoldRow) => {
      const a = accounts.get(h.wallet);
      if (!a) return;
      accounts.set(h.wallet, { ...a, creditLamports: a.creditLamports + BigInt(h.credit_lamports), callsMade: a.callsMade + Number(h.calls_made) });
      folded.push(h);
    };
    const others = new Map<string, HoldRow[]>();
    for (const h of holds) {
      if (h.holder === this.holder || h.expired) fold(h);
      else others.set(h.wallet, [...(others.get(h.wallet) ?? []), h]);
    }
    const spare = new Map<string, bigint>();
    for (const [wallet, theirs] of others) {
      const a = accounts.get(wallet);
      const d = demand.get(wallet);
      if (a && d && a.freeCalls < d.calls && a.creditLamports < d.lamports) theirs.forEach(fold);
      else spare.set(wallet, theirs.reduce((sum, h) => sum + BigInt(h.credit_lamports), 0n));
    }
    return { accounts, folded, spare };
  }

  /**
   * The batch as one statement, which is its own transaction: one round trip and one commit instead
   * of four round trips. It is planned here on the balances this replica last saw, so it can only
   * carry debits (and usage rows) it expects to be paid and drawn, of accounts it has seen. Each
   * account's change is written as a difference, guarded by the free calls being as seen and the
   * credit being enough: other replicas' debits in the meantime do not matter, since what each of
   * these calls takes (a free call or its price) is then what the locking transaction would take too.
   * If anything is not as planned (an account, a draw, a key revoked, a call id recorded already),
   * the statement fails whole (NOT_AS_PLANNED) and the batch goes to the locking transaction. Null
   * when the batch cannot be planned.
   */
  private atOnce(batch: Pending[], demand: ReturnType<typeof demandOf>, counts: Map<string, number>): Promise<unknown[]> | null {
    if (batch.some((op) => op.kind === 'refund')) return null;
    const debits = batch.filter((op) => op.kind === 'debit');
    const before = new Map<string, AccountView>();
    for (const [wallet, d] of demand) {
      const hold = this.held.get(wallet);
      if (hold !== undefined) {
        // Its debits go on this replica's hold alone, which must pay them all; else the locking way refills it.
        if (hold < d.lamports) return null;
        before.set(wallet, { wallet, freeCalls: 0, creditLamports: hold, callsMade: 0 });
        continue;
      }
      const seen = this.seen.get(wallet);
      // A busy account worth a hold goes the locking way once, which takes it.
      if (!seen || this.holdWanted(wallet, seen, d.price) > 0n) return null;
      before.set(wallet, seen);
    }
    const draws = this.drawsAhead(counts, true);
    const everyDraw = new Map([...counts].map(([key, n]) => [key, { key, tokens: 0, allowed: n }]));
    const plan = this.stepAll(batch, { accounts: new Map(before), records: new Map(), live: EVERY_KEY, drawn: everyDraw });
    // Every debit paid: a refusal (no credit) is left to the locking transaction.
    if (plan.writes.records.length !== debits.length) return null;
    if (!debits.length) return usageInsert(this.sql, plan.writes.rows).then(() => plan.results);
    const change = [...plan.writes.accounts.values()].map((after) => {
      const b = before.get(after.wallet)!;
      return { wallet: after.wallet, free0: b.freeCalls, free: b.freeCalls - after.freeCalls, credit: b.creditLamports - after.creditLamports, calls: after.callsMade - b.callsMade };
    });
    const shared = change.filter((c) => !this.held.has(c.wallet));
    const held = change.filter((c) => this.held.has(c.wallet));
    const keys = keyHashes(debits);
    const sql = this.sql;
    const wallets = shared.map((c) => c.wallet);
    const heldWallets = held.map((c) => c.wallet);
    // Every token asked for given, those taken ahead too (asked only while the bucket held twice as
    // many): else the locking transaction draws just what the batch needs.
    const drawnEnough = draws.asked.size ? sql`(SELECT coalesce(sum(allowed), 0) FROM drawn) = ${[...draws.asked.values()].reduce((a, b) => a + b, 0)}` : sql`true`;
    // The draws, then the accounts' row locks in wallet order (LockRows above the sort), then this
    // replica's holds, as in every transaction: each locking CTE's condition on the one before is
    // evaluated once, before its scan. A part with nothing to do is left out, not sent with an empty
    // array: Postgres keeps one cached plan for each shape only while no custom plan looks cheaper.
    const lockShared = sql`
      locked AS (
        SELECT wallet FROM credit_accounts WHERE wallet = ANY(${wallets}::text[]) AND ${drawnEnough}
        ORDER BY wallet FOR UPDATE),
      changed AS (
        UPDATE credit_accounts c SET free_calls = c.free_calls - v.f, credit_lamports = c.credit_lamports - v.c, calls_made = c.calls_made + v.m, updated_at = ${Date.now()}
        FROM unnest(${wallets}::text[], ${shared.map((c) => String(c.free0))}::text[]::int[], ${shared.map((c) => String(c.free))}::text[]::int[],
          ${shared.map((c) => String(c.credit))}::text[]::bigint[], ${shared.map((c) => String(c.calls))}::text[]::int[]) AS v(w, f0, f, c, m)
        WHERE c.wallet = v.w AND c.free_calls = v.f0 AND c.credit_lamports >= v.c AND (SELECT count(*) FROM locked) = ${wallets.length}
        RETURNING c.wallet, c.free_calls, c.credit_lamports::text AS credit_lamports, c.calls_made,
          (SELECT coalesce(sum(h.credit_lamports), 0) FROM credit_holds h WHERE h.wallet = c.wallet)::text AS held),`;
    const lockHeld = sql`
      holding AS (
        SELECT wallet FROM credit_holds WHERE holder = ${this.holder} AND wallet = ANY(${heldWallets}::text[])
          AND ${wallets.length ? sql`(SELECT count(*) FROM changed) = ${wallets.length}` : drawnEnough}
        ORDER BY wallet FOR UPDATE),
      spent AS (
        UPDATE credit_holds h SET credit_lamports = h.credit_lamports - v.c, calls_made = h.calls_made + v.m,
          expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + ${HOLD_TTL_MS}
        FROM unnest(${heldWallets}::text[], ${held.map((c) => String(c.credit))}::text[]::bigint[], ${held.map((c) => String(c.calls))}::text[]::int[]) AS v(w, c, m)
        WHERE h.holder = ${this.holder} AND h.wallet = v.w AND h.credit_lamports >= v.c AND (SELECT count(*) FROM holding) = ${heldWallets.length}
        RETURNING h.wallet, h.credit_lamports::text AS credit_lamports),`;
    const statement = sql<{ ok: number; accounts: (BalanceRow & { wallet: string; calls_made: number; held: string })[] | null; held: { wallet: string; credit_lamports: string }[] | null; spare: { wallet: string; credit: string }[] | null; drawn: Drawn[] | null }[]>`
      WITH ${draws.asked.size ? sql`drawn AS (${drawing(sql, draws.asked, this.buckets!, false)}),` : sql``}
      ${wallets.length ? lockShared : sql``}
      ${heldWallets.length ? lockHeld : sql``}
      recorded AS (${recordsInsert(sql, plan.writes.records)})
      ${plan.writes.rows.length ? sql`, used AS (${usageInsert(sql, plan.writes.rows)})` : sql``}
      SELECT
        -- Not as planned: 1/0 fails the statement, and with it every write above. Each key is looked up
        -- by its index (LATERAL, LIMIT 1), not found by scanning them all: a cached plan cannot see how few are asked.
        1 / (CASE WHEN ${drawnEnough}
          ${wallets.length ? sql`AND (SELECT count(*) FROM changed) = ${wallets.length}` : sql``}
          ${
            heldWallets.length
              ? // A held account's row has no free call (a hold is taken only then), unless a refund gave one back
                // since: the locking way uses it first.
                sql`AND (SELECT count(*) FROM spent) = ${heldWallets.length} AND NOT EXISTS (SELECT FROM credit_accounts a WHERE a.wallet = ANY(${heldWallets}::text[]) AND a.free_calls > 0)`
              : sql``
          }
          AND (SELECT count(*) FROM unnest(${keys}::text[]) AS k(h), LATERAL (SELECT FROM api_keys a WHERE a.key_hash = k.h AND a.revoked_at IS NULL LIMIT 1) live) = ${keys.length} THEN 1 ELSE 0 END) AS ok,
        ${wallets.length ? sql`(SELECT json_agg(changed) FROM changed)` : sql`NULL`} AS accounts,
        ${heldWallets.length ? sql`(SELECT json_agg(spent) FROM spent)` : sql`NULL`} AS held,
        -- What the rest of a held account has (its row and other replicas' holds), for the balances answered.
        ${
          heldWallets.length
            ? sql`(SELECT json_agg(s) FROM (SELECT a.wallet, (a.credit_lamports + coalesce((SELECT sum(o.credit_lamports) FROM credit_holds o WHERE o.wallet = a.wallet AND o.holder <> ${this.holder}), 0))::text AS credit
                FROM credit_accounts a WHERE a.wallet = ANY(${heldWallets}::text[])) s)`
            : sql`NULL`
        } AS spare,
        ${draws.asked.size ? sql`(SELECT json_agg(drawn) FROM drawn)` : sql`NULL`} AS drawn`;
    return statement.then(([row]) => {
      // The calls' answers, stepped again from the balances the database really had before them.
      const accounts = new Map(row!.accounts?.map((r) => [r.wallet, accountOf(r)]) ?? []);
      const actual = new Map(shared.map((c) => {
        const a = accounts.get(c.wallet)!;
        return [c.wallet, { wallet: c.wallet, freeCalls: a.freeCalls + c.free, creditLamports: a.creditLamports + c.credit, callsMade: a.callsMade - c.calls }];
      }));
      const left = new Map((row!.held ?? []).map((r) => [r.wallet, BigInt(r.credit_lamports)]));
      for (const c of held) {
        const hold = left.get(c.wallet)!;
        this.held.set(c.wallet, hold);
        actual.set(c.wallet, { wallet: c.wallet, freeCalls: 0, creditLamports: hold + c.credit, callsMade: 0 });
      }
      this.saw(accounts.values());
      const drawn = this.tookAhead(counts, draws, drawnOf(row!.drawn ?? []));
      const { results } = this.stepAll(batch, { accounts: actual, records: new Map(), live: EVERY_KEY, drawn });
      // What replicas hold of an account is the wallet's too.
      const spare = new Map<string, bigint>();
      for (const r of row!.accounts ?? []) if (r.held !== '0') spare.set(r.wallet, BigInt(r.held));
      for (const r of row!.spare ?? []) spare.set(r.wallet, BigInt(r.credit));
      return withSpares(batch, results, spare);
    });
  }

  /**
   * What a batch draws of each bucket: its tokens drawn ahead first (`local`), the rest from the
   * database (`fromDb`); at once (`ahead`), asking there for up to AHEAD_TIMES as many more
   * (`asked`) while the bucket is busy here and stays at least half full.
   */
  private drawsAhead(counts: Map<string, number>, ahead: boolean) {
    const now = Date.now();
    const local = new Map<string, number>();
    const fromDb = new Map<string, number>();
    const asked = new Map<string, number>();
    for (const [bucket, n] of counts) {
      const a = this.ahead.get(bucket);
      const fresh = a && now - a.at < this.aheadMs ? a : undefined;
      const mine = Math.min(fresh?.tokens ?? 0, n);
      local.set(bucket, mine);
      if (n === mine) continue;
      fromDb.set(bucket, n - mine);
      const spare = ahead && fresh && this.busyBuckets.busy(bucket) ? Math.floor(fresh.left - (n - mine) - this.buckets!.burst / 2) : 0;
      asked.set(bucket, n - mine + Math.max(0, Math.min(AHEAD_TIMES * n, spare)));
    }
    return { local, fromDb, asked, now };
  }

  /**
   * Once a batch's draws are made (`fromDb`, what the database gave): the tokens left ahead of each
   * bucket, and each bucket's draw as the batch's requests are answered, its first ones allowed.
   */
  private tookAhead(counts: Map<string, number>, draws: ReturnType<PgLedger['drawsAhead']>, fromDb: Map<string, Drawn>): Map<string, Drawn> {
    if (this.ahead.size > SEEN_MAX) this.ahead.clear();
    const drawn = new Map<string, Drawn>();
    for (const [bucket, n] of counts) {
      const a = this.ahead.get(bucket);
      const local = draws.local.get(bucket)!;
      const d = fromDb.get(bucket);
      // A draw from the database comes only once the tokens ahead are spent: what is ahead after it
      // is that draw's extra, timed from it; without one, the tokens ahead keep their draw's time.
      // (Without `a`: dropped meanwhile by a settle, this being a late answer; nothing is left ahead.)
      const tokens = d ? Math.max(0, d.allowed - draws.fromDb.get(bucket)!) : Math.max(0, (a?.tokens ?? 0) - local);
      const left = d?.tokens ?? a?.left ?? this.buckets!.burst;
      this.ahead.set(bucket, { tokens, left, at: d ? draws.now : (a?.at ?? draws.now) });
      drawn.set(bucket, { key: bucket, tokens: left + tokens, allowed: Math.min(n, local + (d?.allowed ?? 0)) });
    }
    return drawn;
  }

  /** Remembers accounts as a committed transaction left them, for atOnce's plans. */
  private saw(accounts: Iterable<AccountView>) {
    if (this.seen.size > SEEN_MAX) this.seen.clear();
    for (const a of accounts) this.seen.set(a.wallet, a);
  }

  /** Applies a batch in order to accounts, records, live keys and draws as read: what each operation answers, and what to write. */
  private stepAll(batch: Pending[], read: Read): { results: unknown[]; writes: Writes } {
    const writes: Writes = { drawn: new Map(), accounts: new Map(), records: [], refunds: [], rows: [] };
    const results = batch.map((op) => {
      if (!op.bucket) return this.step(op, read, writes);
      const i = writes.drawn.get(op.bucket) ?? 0;
      writes.drawn.set(op.bucket, i + 1);
      const decision = decisionOf(read.drawn.get(op.bucket)!, i, this.buckets!);
      return { decision, debit: decision.allowed ? (this.step(op, read, writes) as Drawing['debit']) : null } satisfies Drawing;
    });
    for (const op of batch) if (op.rows) writes.rows.push(...op.rows);
    return { results, writes };
  }

  /** One operation on the accounts as read and stepped so far; what it answers (an Error fails it alone). */
  private step(op: Pending, { accounts, records, live }: Read, writes: Writes): unknown {
    if (op.kind === 'rows') return undefined;
    const account = accounts.get(op.wallet) ?? null;
    if (op.kind === 'debit') {
      if (op.keyHash && !live.has(op.keyHash)) return KEY_GONE;
      // A call id recorded already (or voided after a lost COMMIT) is not debited again.
      if (records.has(op.callId)) return null;
      const taken = debitStep(account, op.price!);
      if (!taken) return null;
      accounts.set(op.wallet, taken.next);
      writes.accounts.set(op.wallet, taken.next);
      records.set(op.callId, { call_id: op.callId, wallet: op.wallet, kind: taken.kind, price: op.price!, refunded_at: null });
      writes.records.push({ callId: op.callId, wallet: op.wallet, kind: taken.kind, price: op.price! });
      return { callId: op.callId, wallet: op.wallet, kind: taken.kind, price: op.price!, balance: viewOf(taken.next) } satisfies Debit;
    }
    if (!account) return new Error('refund: credit account vanished');
    const record = records.get(op.callId);
    if (!record || record.refunded_at !== null || record.wallet !== op.wallet) return { balance: viewOf(account), given: null } satisfies Refund;
    const given: Debit = { balance: viewOf(account), ...op.given!, kind: record.kind, price: Number(record.price) };
    const next = refundStep(account, given);
    accounts.set(op.wallet, next);
    writes.accounts.set(op.wallet, next);
    record.refunded_at = op.refundAt!;
    writes.refunds.push({ callId: op.callId, at: op.refundAt! });
    return { balance: viewOf(next), given } satisfies Refund;
  }

  /** A batch whose COMMIT was lost: each operation answered as its call's record says it ended, or sent again. */
  private async settle(all: Pending[]): Promise<void> {
    // Usage rows need no look-up: written again (once, by their call ids) by their log's own retry.
    for (const op of all) if (op.kind === 'rows') op.reject(new UnsettledWrite(''));
    const batch = all.filter((op) => op.kind !== 'rows');
    if (batch.length === 0) return;
    const deadline = Math.min(...batch.map((op) => op.deadline));
    let found: Awaited<ReturnType<PgLedger['lookUp']>>;
    try {
      found = await settleWithin(deadline, batch[0]!.callId, () => this.lookUp(batch));
    } catch {
      for (const op of batch) op.reject(new UnsettledWrite(op.callId));
      return;
    }
    // What this replica holds is as the look-up found it; tokens it drew ahead may have been spent unheard, so they are dropped.
    for (const op of batch) {
      const hold = found.mine.get(op.wallet);
      if (hold === undefined) this.held.delete(op.wallet);
      else this.held.set(op.wallet, hold);
      if (op.bucket) this.ahead.delete(op.bucket);
    }
    for (const op of batch) {
      const balance = found.balances.get(op.wallet);
      const outcome = balance ? op.recovered(found.records.get(op.callId), balance, op.bucket ? found.buckets.get(op.bucket) : undefined) : 'again';
      if (outcome !== 'again') {
        op.resolve(outcome.value);
        continue;
      }
      // Its id was voided by the look-up: made again under the attempt's own id.
      if (op.kind === 'debit') op.callId = nextAttempt(op.callId);
      this.queue.push(op);
    }
  }

  private lookUp(batch: Pending[]) {
    const wallets = [...new Set(batch.map((op) => op.wallet))].sort();
    const ids = batch.map((op) => op.callId);
    return this.sql.begin(async (tx) => {
      // The lost transaction holds these row locks until the server has finished it either way: the
      // accounts', and this replica's holds' (a batch made at once locks only those of a held account).
      const accounts = await tx<(BalanceRow & { wallet: string })[]>`
        SELECT wallet, free_calls, credit_lamports FROM credit_accounts WHERE wallet = ANY(${wallets}) ORDER BY wallet FOR UPDATE`;
      const mine = await tx<{ wallet: string; credit_lamports: string }[]>`
        SELECT wallet, credit_lamports FROM credit_holds WHERE holder = ${this.holder} AND wallet = ANY(${wallets}) ORDER BY wallet FOR UPDATE`;
      const holds = await tx<{ wallet: string; credit: string }[]>`
        SELECT wallet, sum(credit_lamports)::text AS credit FROM credit_holds WHERE wallet = ANY(${wallets}) GROUP BY wallet`;
      const records = await tx<DebitRow[]>`SELECT call_id, kind, price, refunded_at FROM ledger_debits WHERE call_id = ANY(${ids})`;
      const bucketKeys = [...new Set(batch.flatMap((op) => (op.bucket ? [op.bucket] : [])))];
      const buckets = bucketKeys.length ? await tx<Drawn[]>`SELECT key, tokens, 0 AS allowed FROM rate_buckets WHERE key = ANY(${bucketKeys}::text[])` : [];
      // A debit not made may still be on its way (its transaction not begun on the server yet):
      // its id is voided (recorded with nothing taken, refunded at VOID), so that transaction fails
      // on the primary key if it ever runs, and the debit is made again under another id.
      const made = new Set(records.map((r) => r.call_id));
      const absent = batch.filter((op) => op.kind === 'debit' && !made.has(op.callId));
      if (absent.length > 0) {
        await tx`
          INSERT INTO ledger_debits (call_id, wallet, kind, price, refunded_at)
          SELECT id, w, 'credit', 0, ${VOID} FROM unnest(${absent.map((op) => op.callId)}::text[], ${absent.map((op) => op.wallet)}::text[]) AS v(id, w)
          ON CONFLICT DO NOTHING`;
      }
      const heldOf = new Map(holds.map((h) => [h.wallet, BigInt(h.credit)]));
      return {
        mine: new Map(mine.map((h) => [h.wallet, BigInt(h.credit_lamports)])),
        balances: new Map(accounts.map((a) => [a.wallet, { ...balanceOf(a), creditLamports: BigInt(a.credit_lamports) + (heldOf.get(a.wallet) ?? 0n) }])),
        records: new Map(records.map((r) => [r.call_id, r])),
        buckets: new Map(buckets.map((b) => [b.key, { key: b.key, tokens: Number(b.tokens), allowed: 0 }])),
      };
    });
  }
}
