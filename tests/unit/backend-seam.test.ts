// The one seam to billing's database (billing/backend/open.ts): the settings choose the database,
// and everything it hands out is guarded, a store another part brings (storeOf) included. A real
// SQLite file and, where it is installed, a real PostgreSQL.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../../src/billing/backend/open.ts';
import type { Backend, OnEitherDatabase } from '../../src/billing/backend/backend.ts';
import { defaultConfig, type Config } from '../../src/config.ts';
import { StorageUnavailable } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'cig-seam-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = createLogger('error', [], () => {}, 'json');

/** A part's store, saying which database it was opened on. */
interface Part {
  on: 'sqlite' | 'postgres';
  accounts(): Promise<unknown>;
  write(): Promise<void>;
}

const either: OnEitherDatabase<Part> = {
  sqlite: (db) => ({
    on: 'sqlite',
    accounts: async () => db.$client.query('SELECT count(*) AS n FROM credit_accounts').get(),
    write: async () => void db.$client.run("INSERT INTO challenges (challenge, requester, created_at, expires_at) VALUES ('c', 'r', 0, 1)"),
  }),
  postgres: (db) => ({
    on: 'postgres',
    accounts: () => db.$client.unsafe('SELECT count(*)::int AS n FROM credit_accounts'),
    write: async () => void (await db.$client.unsafe("INSERT INTO challenges (challenge, requester, created_at, expires_at) VALUES ('c', 'r', 0, 1)")),
  }),
};

async function opened(overrides: Partial<Config>, use: (b: Backend) => Promise<void>) {
  const b = await openBackend({ ...defaultConfig(), databasePath: join(dir, `${Math.random()}.sqlite`), ...overrides }, silent);
  try {
    await use(b);
  } finally {
    await b.close();
  }
}

describe('SQLite (no DATABASE_URL)', () => {
  test('the store, and a part brought along, are opened on the same migrated file', () =>
    opened({}, async (b) => {
      expect(b.store.backend).toBe('sqlite');
      const part = b.storeOf(either);
      expect(part.on).toBe('sqlite');
      expect(await part.accounts()).toEqual({ n: 0 });
    }));

  test("a part's real storage fault (a read-only connection) reaches its caller as StorageUnavailable, and begins the outage", () =>
    opened({}, async (b) => {
      const readOnly: OnEitherDatabase<Part & { readOnly(): void }> = {
        sqlite: (db) => ({ ...either.sqlite(db), readOnly: () => void db.$client.run('PRAGMA query_only = ON') }),
        postgres: (db) => ({ ...either.postgres(db), readOnly: () => {} }),
      };
      const part = b.storeOf(readOnly);
      part.readOnly();
      await expect(part.write()).rejects.toBeInstanceOf(StorageUnavailable);
      expect(b.health.available).toBe(false);
      expect(b.health.reason).toBe('sqlite: read-only');
      // So does the store's own: every method guarded.
      await expect(Promise.resolve().then(() => b.store.issueChallenge(60, 'r', undefined, Date.now()))).rejects.toBeInstanceOf(StorageUnavailable);
    }));

  test('rate limits stay in the process: decided at once, not as a promise', () =>
    opened({ rateLimitRps: 1, rateLimitBurst: 1 }, async (b) => {
      expect(b.limiter.enabled).toBe(true);
      const first = b.limiter.admit('addr:1.2.3.4');
      expect(first).not.toBeInstanceOf(Promise);
      expect((b.limiter.admit('addr:1.2.3.4') as { refusal?: unknown }).refusal).toBeDefined();
    }));
});

describe.skipIf(shouldSkipPostgres('backend-seam'))('PostgreSQL (DATABASE_URL)', () => {
  test(
    'DATABASE_URL opens PostgreSQL: the store, a part brought along, and buckets every replica shares',
    async () => {
      await opened({ databaseUrl: await freshDatabase(), rateLimitRps: 1, rateLimitBurst: 1 }, async (b) => {
        expect(b.store.backend).toBe('postgres');
        const part = b.storeOf(either);
        expect(part.on).toBe('postgres');
        expect(await part.accounts()).toEqual([{ n: 0 }]);
        // The shared buckets answer after a round trip to the database.
        const first = b.limiter.admit('addr:1.2.3.4');
        expect(first).toBeInstanceOf(Promise);
        expect((await first).refusal).toBeUndefined();
        expect((await b.limiter.admit('addr:1.2.3.4')).refusal).toBeDefined();
      });
    },
    POSTGRES_HOOK_TIMEOUT_MS,
  );
});
