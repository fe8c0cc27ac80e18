// Two gateway processes on one PostgreSQL, 24 clients making paid calls round robin, and the
// database taken away for five seconds three ways (issue 33): `pg_ctl stop -m immediate`, a kill -9
// of all its processes, and a graceful `pg_ctl stop -m fast` (a restart that takes five seconds),
// then started again. What must hold after each:
// - money exact: credit = deposit - (2xx answers x price); one usage row per 2xx, a refunded row per
//   charged failure at most, no duplicates;
// - every refused paid call got the storage_unavailable JSON with Retry-After, none a bare 500, none
//   a hang past 10 s; free calls stayed 200;
// - both replicas alive; /readyz 503 within 2 s of the database going and 200 within 2 s of its return;
// - a deposit made during the outage is credited by the watcher once the database is back.
// Every fact is gathered before one comparison, so a failed run names all that failed (and prints
// them: `bun run test:outage` runs this file repeatedly and counts them).
// A fourth run restarts it with `pg_ctl restart -m fast` and no wait: readiness must see even that.
// OUTAGE_MODES=immediate,kill9,fast,restart (the default) picks the modes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SQL } from 'bun';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { claimWhenSeen, deposit, signChallenge } from '../support/agent.ts';
import { POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres, startPostgres, freshDatabase, type PostgresServer } from '../support/postgres.ts';
import { clientOf, fundedAcross, http, replicaEnv, startReplica, type Replica } from '../support/replicas.ts';
import { ask, load, type Answer } from '../support/outage.ts';
import { within } from '../support/poll.ts';
import { connectMcp, TRANSPORTS } from '../support/mcp.ts';

setDefaultTimeout(60_000);

const PRICE = 2_200_000;
const CREDIT_CALLS = 30_000;
const SECRET = 'whsec_outage_pg';
const OUTAGE_MS = 5_000;
const CLIENTS = 24;
const MODES = (process.env.OUTAGE_MODES ?? 'immediate,kill9,fast,restart').split(',') as ('immediate' | 'kill9' | 'fast' | 'restart')[];
const skip = shouldSkipPostgres('storage outage');

const sandbox = sandboxGateways({ mint: true });

describe.skipIf(skip)('the database away under paid load, two replicas', () => {
  let pg: PostgresServer;
  let databaseUrl: string;
  let pair: Replica[];
  let gatewayAddress: Address;

  beforeAll(async () => {
    // A server of its own (the shared one serves the other test files), with Postgres's own commit
    // settings: the shared one acknowledges commits before their WAL is written (synchronous_commit
    // off), which an immediate stop or a kill -9 loses, 2xx answers and all.
    pg = await startPostgres({ durable: true });
    databaseUrl = await freshDatabase(pg.url);
    gatewayAddress = (await generateKeyPairSigner()).address;
    const env = replicaEnv(
      { databaseUrl, chainUrl: sandbox.chain.url, gatewayAddress, webhookSecret: SECRET },
      // On, and out of the way: the shared limiter is in play, and falls back to the local one while the database is away.
      { RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000', DEPOSIT_POLL_SECONDS: '1' },
    );
    pair = await Promise.all([startReplica(env), startReplica(env)]);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all((pair ?? []).map((r) => r.stop()));
    await pg?.stop();
  });

  /** A new wallet's key, bought through the webhook on one replica and claimed on the other. */
  async function funded(lamports: number) {
    const { key, agent } = await fundedAcross(sandbox.chain, { via: pair[0]!, claimOn: pair[1]! }, gatewayAddress, SECRET, lamports);
    return { key, wallet: agent.address };
  }

  /** First time (ms after `from`) each replica's /readyz answered `status`, polled every 100 ms for `timeoutMs`. */
  const readyzTurns = (status: number, from: number, timeoutMs: number) =>
    Promise.all(pair.map(async (r) => ((await within(timeoutMs, async () => (await ask(r.url + '/readyz', {}, 1_000)).status === status)) === null ? null : Date.now() - from)));

  /** What needs no storage works; what writes (or must read the key) answers like a paid call: a challenge, a claim, the balance, an MCP tool. */
  async function duringOutage(key: string, wallet: string, claimBody: Record<string, string>) {
    const free = await Promise.all(pair.flatMap((r) => [ask(r.url + '/api/chain/blockhash'), ask(r.url + '/api/chain/blockhash', { 'x-api-key': key })]));
    const claimPost = await http(pair[1]!.url, '/api/keys/claim', { method: 'POST', body: claimBody });
    const keyRoutes = [
      ...(await Promise.all([ask(`${pair[0]!.url}/api/keys/challenge?wallet=${claimBody.wallet}`), ask(`${pair[1]!.url}/api/keys/me`, { 'x-api-key': key })])),
      { status: claimPost.status, body: claimPost.body, retryAfter: claimPost.headers.get('retry-after'), at: 0, ms: 0 },
    ];
    // MCP sessions still open (the key cannot be looked up: the address names the rate-limit bucket) and a paid tool answers the same body as an error result.
    const mcp = await Promise.all(
      TRANSPORTS.map(async (kind) => {
        try {
          const client = await connectMcp(pair[0]!.url, kind, { headers: { 'x-api-key': key } });
          const r = await client.call('find_ata', { wallet, mint: sandbox.mint }).finally(() => client.close());
          const meta = r.result._meta?.['io.github.chain-intelligence-gateway/http'];
          return r.isError && r.body?.code === 'storage_unavailable' && meta?.status === 500 && Number(meta.headers['retry-after']) > 0;
        } catch {
          return false;
        }
      }),
    );
    return { free, keyRoutes, mcp };
  }

  for (const mode of MODES) {
    test(mode === 'restart' ? 'restart: pg_ctl restart -m fast, back at once' : `${mode}: five seconds without the database, then back`, async () => {
      const { key, wallet } = await funded(CREDIT_CALLS * PRICE);
      const path = `/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`;
      const paid = load(CLIENTS, async (i) => (await Bun.sleep(10), ask(pair[i % 2]!.url + path, { 'x-api-key': key })));
      await within(10_000, () => paid.answers.filter((a) => a.status === 200).length >= 50);
      const logsBefore = pair.map((r) => r.logs.length);
      const claimer = await sandbox.chain.newWallet();
      const challenge = (await http(pair[0]!.url, `/api/keys/challenge?wallet=${claimer.address}`)).body.challenge as string;
      const claimBody = { wallet: claimer.address, signature: await signChallenge(claimer, challenge), challenge };

      const downAt = Date.now();
      const going = mode === 'restart' ? pg.restart() : pg.down(mode);
      const notReady = readyzTurns(503, downAt, 2_000);
      await going;
      // During the outage: free calls, the key routes, MCP, and a deposit the watcher must not lose.
      const during = mode === 'restart' ? undefined : (await Bun.sleep(500), await duringOutage(key, wallet, claimBody));
      const depositor = await sandbox.chain.newWallet(3_000_000_000n);
      await deposit(sandbox.chain, depositor, gatewayAddress, 2_000_000_000n);
      const readyzDuring = await notReady;
      if (mode !== 'restart') {
        await Bun.sleep(Math.max(0, downAt + OUTAGE_MS - Date.now()));
        await pg.up();
      }
      const upAt = Date.now();
      const readyzAfter = await readyzTurns(200, upAt, 5_000);
      const servedAgain = await within(5_000, () => paid.answers.some((a) => a.status === 200 && a.at >= upAt));
      await Bun.sleep(1_000);
      const answers = await paid.stop();

      const ok = answers.filter((a) => a.status === 200);
      const failed = answers.filter((a) => a.status !== 200);
      const clean = (a: Answer) => a.status === 500 && a.body?.code === 'storage_unavailable' && a.body?.live_status === 'FAILED' && Number(a.retryAfter) > 0;
      const unclean = failed.filter((a) => !clean(a));
      const me = (await http(pair[0]!.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body;
      // Usage rows the database refused wait in each replica's queue and are written once it answers:
      // counted when both queues are empty (or after 10 s, then what is still pending is a failure).
      const pendingRows = async () => (await Promise.all(pair.map(async (r) => Number((await (await fetch(r.url + '/metrics')).text()).match(/^gateway_usage_rows_pending (\d+)/m)?.[1] ?? NaN)))).reduce((a, b) => a + b, 0);
      const drained = await within(10_000, async () => (await pendingRows()) === 0);
      const sql = new SQL(databaseUrl);
      const rows = await sql<{ refunded: boolean; status: number; n: number }[]>`SELECT refunded, status, count(*)::int AS n FROM usage_events WHERE wallet = ${wallet} GROUP BY refunded, status`;
      // A row without its call's id would escape the table's uniqueness on it: such rows, or two with one id, count here.
      const duplicates = Number((await sql`SELECT count(*) - count(DISTINCT call_id) AS d FROM usage_events WHERE wallet = ${wallet}`)[0].d);
      await sql.close();
      const kept = rows.filter((r) => !r.refunded && r.status === 200).reduce((n, r) => n + r.n, 0);
      const refundedRows = rows.filter((r) => r.refunded).reduce((n, r) => n + r.n, 0);
      const depositSeen = await claimWhenSeen(clientOf(pair[0]!.url), depositor, 15_000).then(
        () => true,
        () => false,
      );
      // The line that the outage is over comes once the database has answered for 2 s.
      await within(5_000, () => pair.every((r, i) => r.logs.slice(logsBefore[i]).some((x) => x.includes('storage answers again (postgres'))));
      const newLogs = pair.map((r, i) => r.logs.slice(logsBefore[i]));
      const alive = await Promise.all(pair.map(async (r) => (await ask(r.url + '/healthz')).status === 200));

      const always = {
        creditExact: me.creditLamports === (CREDIT_CALLS - ok.length) * PRICE && me.callsMade === ok.length,
        usageRowPer2xx: drained !== null && kept === ok.length,
        refundedRowsAtMostFailures: refundedRows <= failed.length,
        noDuplicateRows: duplicates === 0 && rows.every((r) => r.status === 200 || r.refunded),
        everyRefusalStorageUnavailable: unclean.length === 0,
        noHangPast10s: answers.every((a) => a.status !== 0 && a.ms < 10_000),
        servedWithin2sOfReturn: servedAgain !== null && servedAgain <= 2_000,
        readyz503Within2s: readyzDuring.every((t) => t !== null && t <= 2_000),
        readyz200Within2sOfReturn: readyzAfter.every((t) => t !== null && t <= 2_000),
        bothReplicasAlive: alive.every(Boolean) && pair.every((r) => r.logs.every((l) => !l.includes('cannot open the database'))),
        oneWarningPerReplica: newLogs.every((l) => l.filter((x) => x.includes('storage unavailable (postgres')).length === 1),
        oneRecoveryLinePerReplica: newLogs.every((l) => l.filter((x) => x.includes('storage answers again (postgres')).length === 1),
        noStackInLogs: newLogs.every((l) => !l.some((x) => /unhandled error|capability failed/.test(x))),
        depositDuringOutageCredited: depositSeen,
      };
      // What only an outage that lasts can show.
      const lasting = during && {
        someRefused: failed.length > 0,
        freeCalls200: during.free.every((a) => a.status === 200),
        keyRoutesStorageUnavailable: during.keyRoutes.every(clean),
        mcpToolResultStorageUnavailable: during.mcp.every(Boolean),
        watcherPausedAndResumedOnce: newLogs.every((l) => l.filter((x) => x.includes('deposit watcher paused')).length === 1 && l.filter((x) => x.includes('deposit watcher resumed')).length === 1 && !l.some((x) => x.includes('deposit watcher poll failed'))),
      };
      const facts = { ...always, ...lasting };
      const figures = {
        answers: answers.length,
        ok: ok.length,
        failed: failed.length,
        unclean: unclean.slice(0, 3).map((a) => ({ status: a.status, body: a.body })),
        keyRoutes: during?.keyRoutes.filter((a) => !clean(a)).map((a) => ({ status: a.status, body: a.body })),
        creditLamports: me.creditLamports,
        expectedCredit: (CREDIT_CALLS - ok.length) * PRICE,
        callsMade: me.callsMade,
        usageRows: rows,
        usageQueueDrainedMs: drained,
        readyzDuring,
        readyzAfter,
        servedAgain,
        slowest: Math.max(...answers.map((a) => a.ms)),
        storageLines: newLogs.map((l) => l.filter((x) => x.includes('storage ')).map((x) => x.slice(0, 160))),
      };
      console.log(`OUTAGE-FACTS ${mode} ${JSON.stringify(facts)} ${JSON.stringify(figures)}`);
      expect(facts).toEqual(Object.fromEntries(Object.keys(facts).map((k) => [k, true])) as typeof facts);
    });
  }
});
