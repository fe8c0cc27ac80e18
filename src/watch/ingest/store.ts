// What watch ingestion keeps: a cursor per address read (a watched wallet and its token accounts) and,
// on PostgreSQL, a lease per wallet so that one replica at a time ingests it. SQLite serves one process:
// every wallet it is asked for is its own. Kept apart from the watches' own tables (src/watch).
import { and, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Network } from '../../config.ts';
import type { Commitment } from '../sink.ts';
import type { SQL } from 'bun';
import type { Database } from 'bun:sqlite';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/bun-sqlite';
import { drizzle as pgDrizzle } from 'drizzle-orm/bun-sql';
import * as lite from '../../db/schema.ts';
import * as pg from '../../db/pg-schema.ts';

/** Where an address's history was read up to. */
export interface Cursor {
  /** The newest signature handled; '' when the address had none yet. */
  lastSignature: string;
  lastSlot: number;
  /** The slot the wallet's ingestion began at: a token account found later is read back to it. */
  sinceSlot: number;
}

export interface CursorRow extends Cursor {
  address: string;
  wallet: string;
}

/** One ingestion's cursors and leases: a network at a commitment (a wallet may be ingested at both). */
export interface Scope {
  network: Network;
  commitment: Commitment;
}

export interface IngestStore {
  cursors(scope: Scope, addresses: readonly string[]): Promise<Map<string, Cursor>>;
  saveCursors(scope: Scope, rows: readonly CursorRow[]): Promise<void>;
  /**
   * Takes or renews the lease of each wallet (free, expired or already `owner`'s) until now + ttlMs and
   * answers the wallets `owner` holds now; those asked for and not answered belong to another replica.
   */
  lease(scope: Scope, owner: string, wallets: readonly string[], ttlMs: number, now?: number): Promise<Set<string>>;
  /** Gives up `owner`'s leases (of these wallets, or all): another replica may take them at once. */
  release(scope: Scope, owner: string, wallets?: readonly string[]): Promise<void>;
}

/** Rows per statement: well within either database's limit on bound parameters. */
const CHUNK = 500;
const chunks = <T>(list: readonly T[]) => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

const cursorOf = (r: Cursor): Cursor => ({ lastSignature: r.lastSignature, lastSlot: Number(r.lastSlot), sinceSlot: Number(r.sinceSlot) });

/** On the gateway's SQLite connection (the watches' and billing's own). */
export function sqliteIngestStore(client: Database): IngestStore {
  const db = sqliteDrizzle({ client });
  const t = lite.watchIngestCursors;
  return {
    async cursors({ network, commitment }, addresses) {
      const out = new Map<string, Cursor>();
      for (const part of chunks(addresses)) {
        const rows = db.select().from(t).where(and(eq(t.network, network), eq(t.commitment, commitment), inArray(t.address, part))).all();
        for (const r of rows) out.set(r.address, cursorOf(r));
      }
      return out;
    },
    async saveCursors({ network, commitment }, rows) {
      if (rows.length === 0) return;
      const now = Date.now();
      db.transaction((tx) => {
        for (const part of chunks(rows)) {
          tx.insert(t)
            .values(part.map((r) => ({ network, commitment, ...r, updatedAt: now })))
            .onConflictDoUpdate({
              target: [t.network, t.commitment, t.address],
              set: { wallet: sql`excluded.wallet`, lastSignature: sql`excluded.last_signature`, lastSlot: sql`excluded.last_slot`, sinceSlot: sql`excluded.since_slot`, updatedAt: now },
            })
            .run();
        }
      });
    },
    async lease(_network, _owner, wallets) {
      return new Set(wallets);
    },
    async release() {},
  };
}

/** On the gateway's PostgreSQL pool. */
export function pgIngestStore(client: SQL): IngestStore {
  const db = pgDrizzle({ client });
  const t = pg.watchIngestCursors;
  const l = pg.watchIngestLeases;
  return {
    async cursors({ network, commitment }, addresses) {
      const out = new Map<string, Cursor>();
      for (const part of chunks(addresses)) {
        const rows = await db.select().from(t).where(and(eq(t.network, network), eq(t.commitment, commitment), inArray(t.address, part)));
        for (const r of rows) out.set(r.address, cursorOf(r));
      }
      return out;
    },
    async saveCursors({ network, commitment }, rows) {
      const now = Date.now();
      for (const part of chunks(rows)) {
        await db
          .insert(t)
          .values(part.map((r) => ({ network, commitment, ...r, updatedAt: now })))
          .onConflictDoUpdate({
            target: [t.network, t.commitment, t.address],
            set: { wallet: sql`excluded.wallet`, lastSignature: sql`excluded.last_signature`, lastSlot: sql`excluded.last_slot`, sinceSlot: sql`excluded.since_slot`, updatedAt: now },
          });
      }
    },
    async lease({ network, commitment }, owner, wallets, ttlMs, now = Date.now()) {
      const held = new Set<string>();
      for (const part of chunks(wallets)) {
        const rows = await db
          .insert(l)
          .values(part.map((wallet) => ({ network, commitment, wallet, owner, expiresAt: now + ttlMs })))
          .onConflictDoUpdate({
            target: [l.network, l.commitment, l.wallet],
            set: { owner, expiresAt: now + ttlMs },
            setWhere: or(eq(l.owner, owner), lt(l.expiresAt, now)),
          })
          .returning({ wallet: l.wallet });
        for (const r of rows) held.add(r.wallet);
      }
      return held;
    },
    async release({ network, commitment }, owner, wallets) {
      if (wallets === undefined) return void (await db.delete(l).where(and(eq(l.network, network), eq(l.commitment, commitment), eq(l.owner, owner))));
      for (const part of chunks(wallets)) await db.delete(l).where(and(eq(l.network, network), eq(l.commitment, commitment), eq(l.owner, owner), inArray(l.wallet, part)));
    },
  };
}
