// What docs/operations.md says of /healthz and /readyz, held against the gateway: /healthz is
// liveness and stays 200 while the database is away; /readyz turns 503 naming the database and the
// current cause, and 200 again once it answers.
import { expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { within } from '../support/poll.ts';
import { holdWriteLock } from '../support/outage.ts';

setDefaultTimeout(60_000);

const sandbox = sandboxGateways();
const operations = readFileSync(join(import.meta.dir, '../../docs/operations.md'), 'utf8');
/** The docs' paragraphs that speak of a health route. */
const about = (route: string) => operations.split(/\n\s*\n/).filter((p) => p.includes(`\`${route}\``));

test('docs/operations.md says of /healthz what it does: liveness, 200 through an outage, never a 500', () => {
  const healthz = about('/healthz').map((p) => p.replace(/\s+/g, ' '));
  expect(healthz.some((p) => p.includes('`/healthz` is liveness: 200 whenever the process answers, also while the database or every upstream is away'))).toBe(true);
  expect(healthz.some((p) => p.includes('`/healthz` stays 200 through an outage'))).toBe(true);
  expect(healthz.filter((p) => /healthz`[^.]*\b(500|503|reads the database)/.test(p))).toEqual([]);
  const readyz = about('/readyz').map((p) => p.replace(/\s+/g, ' '));
  expect(readyz.some((p) => p.includes("`/readyz`'s `databaseError` is the current cause"))).toBe(true);
});

test('the write lock held by another process: /healthz stays 200 while /readyz is 503 naming the database, and 200 again after', async () => {
  const gw = await sandbox.gateway();
  gw.services.readiness.start();
  expect(await within(5_000, async () => (await gw.get('/readyz')).status === 200)).not.toBeNull();
  // Another process (a sqlite3 shell, a backup tool) takes the write lock and keeps it.
  const holder = await holdWriteLock(gw.config.databasePath);
  try {
    let readyz: Awaited<ReturnType<typeof gw.get>> | undefined;
    expect(await within(10_000, async () => (readyz = await gw.get('/readyz')).status === 503)).not.toBeNull();
    expect(readyz!.body).toMatchObject({ ready: false, database: 'failed', databaseError: expect.stringMatching(/^sqlite: (locked|timeout)$/) });
    for (let i = 0; i < 10; i++) {
      expect((await gw.get('/healthz')).status).toBe(200);
      await Bun.sleep(100);
    }
  } finally {
    await holder.release();
  }
  expect(await within(5_000, async () => (await gw.get('/readyz')).status === 200)).not.toBeNull();
});
