// Several replicas on one PostgreSQL (issue 40): each watched wallet is ingested by one replica at a
// time, under a lease; a replica killed with -9 leaves its leases to run out, and another takes its
// wallets over within 10 s and hands over what landed meanwhile.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { join } from 'node:path';
import type { KeyPairSigner } from '@solana/kit';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { within } from '../support/poll.ts';
import { eachLine } from '../support/process.ts';
import { migratePostgres } from '../../src/db/pg-client.ts';
import { startTestIngestion, type TestIngestion } from '../support/watch-ingest.ts';

const skip = shouldSkipPostgres('watch ingestion leases');
let chain: Sandbox;
let url: string;
let sender: KeyPairSigner;
let survivor: TestIngestion | undefined;
let child: ReturnType<typeof Bun.spawn> | undefined;

beforeAll(async () => {
  if (skip) return;
  chain = await startSandbox();
  url = await freshDatabase();
  await migratePostgres(url);
  sender = await chain.newWallet(10_000_000_000n);
}, POSTGRES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  child?.kill(9);
  await survivor?.stop();
  await chain?.stop();
});

const LEASE_MS = 6000;

describe.skipIf(skip)('leases on PostgreSQL', () => {
  test('one replica ingests a wallet at a time; after a kill -9 another takes it over within 10 s and loses nothing', async () => {
    const wallets = await Promise.all([chain.newWallet(), chain.newWallet(), chain.newWallet()]);
    const addresses = wallets.map((w) => w.address);
    child = Bun.spawn(['bun', join(import.meta.dir, '../support/ingest-process.ts')], {
      env: { ...process.env, INGEST_RPC_URL: chain.url, INGEST_DATABASE_URL: url, INGEST_WALLETS: addresses.join(','), INGEST_LEASE_MS: String(LEASE_MS) },
      stdout: 'pipe',
      stderr: 'inherit',
    });
    const lines: string[] = [];
    void eachLine(child.stdout as ReadableStream<Uint8Array>, (line) => line && lines.push(line));
    const sql = new SQL(url);
    const owners = async (): Promise<string[]> => (await sql`SELECT DISTINCT owner FROM watch_ingest_leases WHERE expires_at > ${Date.now()}`).map((r: { owner: string }) => r.owner);
    const cursors = async () => Number((await sql`SELECT count(*)::int AS n FROM watch_ingest_cursors WHERE wallet IN ${sql(addresses)}`)[0].n);
    try {
      expect(await within(20_000, async () => (await owners()).length === 1 && (await cursors()) >= 3)).not.toBeNull();
      const [first] = await owners();

      // a second replica wants the same wallets and gets none of them while the first lives
      survivor = await startTestIngestion({ rpcUrl: chain.url, databaseUrl: url, leaseMs: LEASE_MS });
      survivor.sink.watch(addresses);
      await Bun.sleep(LEASE_MS);
      expect(survivor.ingestion.ingesters.reduce((n, i) => n + i.stats().wallets, 0)).toBe(0);
      await Bun.sleep(300); // the child's subscriptions are acknowledged
      const whileFirst = await chain.transferSol(sender, addresses[0]!, 1_000_000n);
      expect(await within(10_000, () => lines.some((l) => l.startsWith(`recorded ${addresses[0]} ${whileFirst} `)))).not.toBeNull();
      expect(survivor.sink.records).toEqual([]);

      child.kill(9);
      await child.exited;
      const killedAt = Date.now();
      const meanwhile = await chain.transferSol(sender, addresses[1]!, 2_000_000n);
      const took = await within(10_000, async () => survivor!.ingestion.ingesters.reduce((n, i) => n + i.stats().wallets, 0) === 3);
      expect(took).not.toBeNull();
      expect(Date.now() - killedAt).toBeLessThan(10_000);
      expect((await owners()).filter((o) => o !== first)).toHaveLength(1);
      // what landed between the kill and the takeover, and what lands after it, once each
      expect(await within(10_000, () => survivor!.sink.records.some((r) => r.signature === meanwhile))).not.toBeNull();
      const after = await chain.transferSol(sender, addresses[2]!, 3_000_000n);
      expect(await within(10_000, () => survivor!.sink.records.some((r) => r.signature === after))).not.toBeNull();
      await survivor.settled();
      // Besides, at most what the killed replica recorded in its last second (its cursors are written once a
      // second): handed over again, and recorded once by the watches (the same event id).
      const byFirst = new Set(lines.flatMap((l) => (l.startsWith('recorded ') ? [l.split(' ')[2]!] : [])));
      expect(survivor.sink.records.map((r) => r.signature).filter((sig) => !byFirst.has(sig))).toEqual([meanwhile, after]);
    } finally {
      await sql.close();
    }
  }, 90_000);
});
