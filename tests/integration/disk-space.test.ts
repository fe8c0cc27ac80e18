// The SQLite file system running low (DATABASE_MIN_FREE_MB): a warning at start naming the
// setting, the free bytes in /metrics, and a WAL kept small (checkpointed and truncated at once,
// then every ~4 MB) until there is room again.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { freeBytes } from '../../src/db/disk-space.ts';

const walSize = (db: string) => statSync(`${db}-wal`).size;
// The pace is a setting of the gateway's own connection (PRAGMAs are per connection): asked through it.
const ownConnection = (gw: TestGateway) =>
  gw.services.storeOf({
    sqlite: (db) => ({ client: () => db.$client }),
    postgres: () => {
      throw new Error('a SQLite gateway');
    },
  }).client();

test('below DATABASE_MIN_FREE_MB: warned at start, and the WAL is truncated and kept to ~4 MB', async () => {
  // More than any disk here has free: the gateway sees "low" at start.
  const gw = await startGateway({ databaseMinFreeMb: 1_000_000_000 });
  try {
    const warned = gw.logs.filter((l) => l.includes('less than DATABASE_MIN_FREE_MB'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("the database's file system has");
    const client = ownConnection(gw);
    expect(client.query('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 1000 });
    expect(client.query('PRAGMA journal_size_limit').get()).toEqual({ journal_size_limit: 4 * 1024 * 1024 });
    // 12 MB of writes (what a busy hour of paid calls adds): the WAL stays near its limit, not 12 MB.
    client.run('CREATE TABLE filler (b BLOB)');
    for (let i = 0; i < 48; i++) client.run('INSERT INTO filler VALUES (randomblob(262144))');
    expect(walSize(gw.config.databasePath)).toBeLessThanOrEqual(5 * 1024 * 1024);
    const metrics = (await gw.get('/metrics')).body as string;
    const free = Number(/^gateway_database_free_bytes (\d+)/m.exec(metrics)![1]);
    expect(Math.abs(free - freeBytes(gw.config.databasePath))).toBeLessThan(512 * 1024 * 1024);
  } finally {
    await gw.stop();
  }
});

test('with room to spare: no warning, and the usual pace (a checkpoint every 10000 pages)', async () => {
  const gw = await startGateway({ databaseMinFreeMb: 1 });
  try {
    expect(gw.logs.filter((l) => l.includes('DATABASE_MIN_FREE_MB'))).toEqual([]);
    expect(ownConnection(gw).query('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 10000 });
  } finally {
    await gw.stop();
  }
});
