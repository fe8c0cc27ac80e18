// Where watches and their events are kept, on either backend: the same SQL for SQLite (the file's
// one connection, each statement atomic) and PostgreSQL (several replicas on one database). Each
// decision is one statement: an event's place in its watch's order (seq) is the next after the
// highest, and a second writer of the same seq is refused by the unique index and tries again, so
// a watch's events commit in seq order and a reader going by seq never skips one. Delivery state
// lives on the watch (its webhook takes events in order), claimed by a lease so one replica sends.
import type { SQL } from 'bun';
import type { Database } from 'bun:sqlite';
import type { Commitment } from './sink.ts';

export type WatchStatus = 'active' | 'paused_no_credit' | 'ended';

export interface WatchRow {
  id: string;
  /** The paying wallet (the key's owner). */
  wallet: string;
  network: string;
  wallets: string[];
  commitment: Commitment;
  webhookUrl: string | null;
  secretSealed: string | null;
  status: WatchStatus;
  endedReason: string | null;
  pausedAt: number | null;
  skippedEvents: number;
  deliveredSeq: number;
  attempts: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  firstFailureAt: number | null;
  createdAt: number;
  /** The highest event seq kept (0 without events). */
  lastSeq: number;
}

export interface StoredEvent {
  seq: number;
  body: string;
  /** When it was recorded (Unix ms). */
  createdAt: number;
}

export interface DeliveryFailure {
  attempts: number;
  nextAttemptAt: number;
  lastError: string;
  firstFailureAt: number;
}

export interface WatchStore {
  /** Inserts the watch unless the owner already has `maxPerOwner` live ones; false then. */
  insert(w: Omit<WatchRow, 'lastSeq'>, maxPerOwner: number): Promise<boolean>;
  watch(id: string): Promise<WatchRow | null>;
  watchesOf(owner: string): Promise<WatchRow[]>;
  /** Every watch not ended (what is followed). */
  live(): Promise<WatchRow[]>;
  /** Ends and forgets the owner's watch and its events; false when it is not the owner's. */
  remove(id: string, owner: string): Promise<boolean>;
  eventExists(id: string): Promise<boolean>;
  /** The event's seq, or null when an event with this id was kept already. */
  insertEvent(watchId: string, eventId: string, body: string, now: number): Promise<number | null>;
  eventsAfter(watchId: string, afterSeq: number, limit: number): Promise<StoredEvent[]>;
  setStatus(id: string, status: WatchStatus, now: number, reason?: string): Promise<void>;
  skipped(id: string): Promise<void>;
  /** Watches with a webhook, undelivered events, a retry due and no live lease. */
  due(now: number, limit: number): Promise<string[]>;
  lease(id: string, owner: string, until: number, now: number): Promise<boolean>;
  release(id: string, owner: string): Promise<void>;
  /** Drops every lease (a SQLite file has one gateway: at its start, any lease is a dead process's). */
  releaseAll(): Promise<void>;
  delivered(id: string, owner: string, seq: number): Promise<void>;
  failed(id: string, owner: string, f: DeliveryFailure): Promise<void>;
  /** Sends again from after `seq` (replay): the delivery cursor moves back, the retry state clears. */
  rewind(id: string, seq: number): Promise<void>;
  /** Live watches whose webhook has failed without a success since `before` or earlier. */
  countFailing(before: number): Promise<number>;
  /** Drops events recorded before `before`, but never a watch's newest (its seq carries on from it). */
  prune(before: number): Promise<number>;
}

const COLUMNS = `w.id, w.wallet, w.network, w.wallets, w.commitment, w.webhook_url AS "webhookUrl", w.secret_sealed AS "secretSealed",
  w.status, w.ended_reason AS "endedReason", w.paused_at AS "pausedAt", w.skipped_events AS "skippedEvents",
  w.delivered_seq AS "deliveredSeq", w.attempts, w.next_attempt_at AS "nextAttemptAt", w.last_error AS "lastError",
  w.first_failure_at AS "firstFailureAt", w.created_at AS "createdAt",
  COALESCE((SELECT MAX(e.seq) FROM watch_events e WHERE e.watch_id = w.id), 0) AS "lastSeq"`;

const NUMERIC = ['pausedAt', 'skippedEvents', 'deliveredSeq', 'attempts', 'nextAttemptAt', 'firstFailureAt', 'createdAt', 'lastSeq'] as const;

function watchOf(r: Record<string, unknown>): WatchRow {
  const out = { ...r, wallets: JSON.parse(r.wallets as string) } as Record<string, unknown>;
  for (const k of NUMERIC) out[k] = r[k] === null || r[k] === undefined ? null : Number(r[k]);
  return out as unknown as WatchRow;
}

/** Runs one statement with `?` parameters and answers its rows. */
type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

function sqlStore(q: Query, seqConflict: (e: unknown) => boolean): WatchStore {
  const one = async (sql: string, params: unknown[]) => (await q(sql, params))[0];
  return {
    async insert(w, maxPerOwner) {
      const rows = await q(
        `INSERT INTO watches (id, wallet, network, wallets, commitment, webhook_url, secret_sealed, status, skipped_events, delivered_seq, attempts, created_at)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ? WHERE (SELECT COUNT(*) FROM watches WHERE wallet = ? AND status <> 'ended') < ? RETURNING id`,
        [w.id, w.wallet, w.network, JSON.stringify(w.wallets), w.commitment, w.webhookUrl, w.secretSealed, w.status, w.createdAt, w.wallet, maxPerOwner],
      );
      return rows.length === 1;
    },
    async watch(id) {
      const r = await one(`SELECT ${COLUMNS} FROM watches w WHERE w.id = ?`, [id]);
      return r ? watchOf(r) : null;
    },
    async watchesOf(owner) {
      return (await q(`SELECT ${COLUMNS} FROM watches w WHERE w.wallet = ? ORDER BY w.created_at, w.id`, [owner])).map(watchOf);
    },
    async live() {
      return (await q(`SELECT ${COLUMNS} FROM watches w WHERE w.status <> 'ended'`, [])).map(watchOf);
    },
    async remove(id, owner) {
      const rows = await q('DELETE FROM watches WHERE id = ? AND wallet = ? RETURNING id', [id, owner]);
      if (rows.length === 0) return false;
      await q('DELETE FROM watch_events WHERE watch_id = ?', [id]);
      return true;
    },
    async eventExists(id) {
      return (await q('SELECT 1 AS x FROM watch_events WHERE id = ?', [id])).length > 0;
    },
    async insertEvent(watchId, eventId, body, now) {
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await one(
            `INSERT INTO watch_events (id, watch_id, seq, body, created_at)
             SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ? FROM watch_events WHERE watch_id = ?
             ON CONFLICT (id) DO NOTHING RETURNING seq`,
            [eventId, watchId, body, now, watchId],
          );
          return r ? Number(r.seq) : null;
        } catch (e) {
          // Another replica took this seq first: the next try reads past it.
          if (attempt < 20 && seqConflict(e)) continue;
          throw e;
        }
      }
    },
    async eventsAfter(watchId, afterSeq, limit) {
      const rows = await q('SELECT seq, body, created_at AS "createdAt" FROM watch_events WHERE watch_id = ? AND seq > ? ORDER BY seq LIMIT ?', [watchId, afterSeq, limit]);
      return rows.map((r) => ({ seq: Number(r.seq), body: r.body as string, createdAt: Number(r.createdAt) }));
    },
    async setStatus(id, status, now, reason) {
      await q('UPDATE watches SET status = ?, paused_at = ?, ended_reason = ? WHERE id = ?', [status, status === 'paused_no_credit' ? now : null, reason ?? null, id]);
    },
    async skipped(id) {
      await q('UPDATE watches SET skipped_events = skipped_events + 1 WHERE id = ?', [id]);
    },
    async due(now, limit) {
      const rows = await q(
        `SELECT w.id FROM watches w WHERE w.webhook_url IS NOT NULL AND w.status <> 'ended'
           AND (w.next_attempt_at IS NULL OR w.next_attempt_at <= ?) AND (w.lease_until IS NULL OR w.lease_until < ?)
           AND EXISTS (SELECT 1 FROM watch_events e WHERE e.watch_id = w.id AND e.seq > w.delivered_seq) LIMIT ?`,
        [now, now, limit],
      );
      return rows.map((r) => r.id as string);
    },
    async lease(id, owner, until, now) {
      const rows = await q('UPDATE watches SET lease_owner = ?, lease_until = ? WHERE id = ? AND (lease_until IS NULL OR lease_until < ? OR lease_owner = ?) RETURNING id', [owner, until, id, now, owner]);
      return rows.length === 1;
    },
    async release(id, owner) {
      await q('UPDATE watches SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?', [id, owner]);
    },
    async releaseAll() {
      await q('UPDATE watches SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL', []);
    },
    async delivered(id, owner, seq) {
      await q(
        'UPDATE watches SET delivered_seq = ?, attempts = 0, next_attempt_at = NULL, last_error = NULL, first_failure_at = NULL WHERE id = ? AND lease_owner = ? AND delivered_seq < ?',
        [seq, id, owner, seq],
      );
    },
    async failed(id, owner, f) {
      await q('UPDATE watches SET attempts = ?, next_attempt_at = ?, last_error = ?, first_failure_at = ? WHERE id = ? AND lease_owner = ?', [
        f.attempts,
        f.nextAttemptAt,
        f.lastError,
        f.firstFailureAt,
        id,
        owner,
      ]);
    },
    async rewind(id, seq) {
      await q('UPDATE watches SET delivered_seq = ?, attempts = 0, next_attempt_at = NULL, last_error = NULL, first_failure_at = NULL WHERE id = ?', [seq, id]);
    },
    async countFailing(before) {
      const r = await one(`SELECT COUNT(*) AS n FROM watches WHERE status = 'active' AND first_failure_at IS NOT NULL AND first_failure_at <= ?`, [before]);
      return Number(r?.n ?? 0);
    },
    async prune(before) {
      const rows = await q(
        'DELETE FROM watch_events WHERE created_at < ? AND seq < (SELECT MAX(n.seq) FROM watch_events n WHERE n.watch_id = watch_events.watch_id) RETURNING id',
        [before],
      );
      return rows.length;
    },
  };
}

export function sqliteWatchStore(client: Database): WatchStore {
  return sqlStore(
    async (sql, params) => client.query(sql).all(...(params as never[])) as Record<string, unknown>[],
    // One connection writes at a time: two writers never race for a seq.
    () => false,
  );
}

/** `?` placeholders as PostgreSQL's numbered ones. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

export function pgWatchStore(client: SQL): WatchStore {
  return sqlStore(
    async (sql, params) => (await client.unsafe(numbered(sql), params as never[])) as Record<string, unknown>[],
    (e) => e instanceof Error && e.message.includes('watch_events_seq_idx'),
  );
}
