// Three gateway processes on one PostgreSQL database, as behind a round-robin balancer: money stays
// exact across them, a deposit counts once, one watcher at a time survives kill -9, rate limits are
// shared. Real processes, a real Postgres, the sandbox chain.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { claim, claimWhenSeen, deposit, heliusPayload, signChallenge } from '../support/agent.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { clientOf, fundedAcross, http, replicaEnv, startReplica, type Replica } from '../support/replicas.ts';

// Real processes and a real database on a busy 2-core machine: seconds, not milliseconds.
setDefaultTimeout(30_000);

const PRICE = 2_200_000;
const SECRET = 'whsec_replicas';
const POLL_SECONDS = 1;
const skip = shouldSkipPostgres('replicas');

const sandbox = sandboxGateways({ mint: true });

async function startTrio(gatewayAddress: Address, env: Record<string, string> = {}): Promise<Replica[]> {
  const common = replicaEnv(
    { databaseUrl: await freshDatabase(), chainUrl: sandbox.chain.url, gatewayAddress, webhookSecret: SECRET },
    { RATE_LIMIT_RPS: '0', DEPOSIT_POLL_SECONDS: String(POLL_SECONDS), ...env },
  );
  // Started together: they race to migrate the same empty database.
  return Promise.all([startReplica(common), startReplica(common), startReplica(common)]);
}

/** Funds a new wallet with `lamports` of credit through one replica and claims its key on another. */
const funded = (trio: Replica[], gatewayAddress: Address, lamports: number) => fundedAcross(sandbox.chain, { via: trio[0]!, claimOn: trio[1]! }, gatewayAddress, SECRET, lamports);

const leaderOf = (trio: Replica[]) => trio.filter((r) => r.logs.some((l) => l.includes('this process watches deposits')));

describe.skipIf(skip)('three gateways on one Postgres', () => {
  let trio: Replica[];
  let gatewayAddress: Address;
  const paid = (r: Replica, key: string, wallet: string) => http(r.url, `/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, { headers: { 'x-api-key': key } });

  beforeAll(async () => {
    gatewayAddress = (await generateKeyPairSigner()).address;
    trio = await startTrio(gatewayAddress);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(() => Promise.all((trio ?? []).map((r) => r.stop())));

  test('600 concurrent paid calls spread over the three, on credit for exactly 111: exactly 111 succeed, the balance ends at 0', async () => {
    const { key, agent } = await funded(trio, gatewayAddress, 111 * PRICE);
    const results = await Promise.all(Array.from({ length: 600 }, (_, i) => paid(trio[i % 3]!, key, agent.address)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(111);
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([]);
    // Every answer's balance header was read right after its own debit: none below zero.
    expect(results.every((r) => Number(r.headers.get('x-credits-remaining') ?? 0) >= 0)).toBe(true);
    for (const r of trio) expect((await http(r.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body).toMatchObject({ creditLamports: 0, callsMade: 111 });
  }, 120_000);

  test('what a replica remembers of a key or a balance never decides: a spend or a revocation on one shows at once on the others', async () => {
    const { key, agent } = await funded(trio, gatewayAddress, 5 * PRICE);
    // Every replica has seen the key and the balance before anything changes.
    for (const [i, r] of trio.entries()) {
      expect((await paid(r, key, agent.address)).status).toBe(200);
      expect((await http(r.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body).toMatchObject({ creditLamports: (4 - i) * PRICE, callsMade: i + 1 });
    }
    expect((await paid(trio[0]!, key, agent.address)).status).toBe(200);
    for (const r of trio) expect((await http(r.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body).toMatchObject({ creditLamports: PRICE, callsMade: 4 });
    // A new deposit claimed through replica 0 revokes the old key: refused everywhere at once.
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(PRICE));
    expect((await http(trio[0]!.url, '/api/payments/webhook', { method: 'POST', body: heliusPayload(sig, agent.address, gatewayAddress, PRICE), headers: { authorization: SECRET } })).status).toBe(200);
    const next = await claimWhenSeen(clientOf(trio[0]!.url), agent, 5_000);
    for (const r of trio.slice(1)) {
      const refused = await paid(r, key, agent.address);
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ code: 'revoked_key' });
      expect((await paid(r, next, agent.address)).status).toBe(200);
    }
  }, 120_000);

  test('exactly one replica watches deposits; a deposit reported to all three and seen by the watcher is credited once', async () => {
    await Bun.sleep(POLL_SECONDS * 1000 * 1.5);
    expect(leaderOf(trio)).toHaveLength(1);
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, 9_000_000n);
    const payload = heliusPayload(sig, agent.address, gatewayAddress, 9_000_000);
    await Promise.all(trio.flatMap((r) => Array.from({ length: 5 }, () => http(r.url, '/api/payments/webhook', { method: 'POST', body: payload, headers: { authorization: SECRET } }))));
    await Bun.sleep(POLL_SECONDS * 1000 * 1.5);
    const key = await claimWhenSeen(clientOf(trio[2]!.url), agent, 0);
    expect((await http(trio[0]!.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body.creditLamports).toBe(9_000_000);
  }, 60_000);

  test("kill -9 of the watcher's replica: another takes over and the next deposit is credited within two poll intervals", async () => {
    const [leader] = leaderOf(trio);
    await leader!.kill9();
    const survivors = trio.filter((r) => r !== leader);
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    await deposit(sandbox.chain, agent, gatewayAddress, 8_000_000n);
    const start = Date.now();
    const key = await claimWhenSeen(clientOf(survivors[0]!.url), agent, 2 * POLL_SECONDS * 1000);
    const elapsed = Date.now() - start;
    expect(elapsed).toBeLessThanOrEqual(2 * POLL_SECONDS * 1000);
    expect(leaderOf(survivors)).toHaveLength(1);
    expect((await http(survivors[1]!.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body.creditLamports).toBe(8_000_000);
    trio = survivors;
  }, 60_000);
});

describe.skipIf(skip)('three gateways on one Postgres, under faults and limits', () => {
  test('kill -9 of a replica under paid load: every 2xx answered has its debit, nothing is debited twice', async () => {
    const gatewayAddress = (await generateKeyPairSigner()).address;
    const trio = await startTrio(gatewayAddress);
    try {
      const credit = 1000 * PRICE;
      const { key, agent } = await funded(trio, gatewayAddress, credit);
      const victim = trio[0]!;
      let unanswered = 0;
      const calls = Array.from({ length: 300 }, (_, i) =>
        http(trio[i % 3]!.url, `/api/chain/find-ata?wallet=${agent.address}&mint=${sandbox.mint}`, { headers: { 'x-api-key': key } }).catch(() => {
          unanswered++;
          return { status: 0 };
        }),
      );
      await Bun.sleep(30);
      await victim.kill9();
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      const ok = statuses.filter((s) => s === 200).length;
      expect(ok).toBeGreaterThan(0);
      const me = (await http(trio[1]!.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body;
      // Each debit is exactly one price and each answered call at most one debit; calls the dead
      // replica debited but never answered are the only debits without a 2xx.
      expect(me.creditLamports).toBe(credit - me.callsMade * PRICE);
      expect(me.callsMade).toBeGreaterThanOrEqual(ok);
      expect(me.callsMade).toBeLessThanOrEqual(ok + unanswered);
    } finally {
      await Promise.all(trio.map((r) => r.stop()));
    }
  }, 120_000);

  test('a rate limit of N per second per key holds across the three together', async () => {
    const N = 5;
    const gatewayAddress = (await generateKeyPairSigner()).address;
    const trio = await startTrio(gatewayAddress, { RATE_LIMIT_RPS: String(N), RATE_LIMIT_BURST: String(N) });
    try {
      const { key } = await funded(trio, gatewayAddress, 10 * PRICE);
      // Let the key's bucket fill up (claiming drew on the client address's bucket, not the key's).
      await Bun.sleep(1000);
      const start = Date.now();
      let allowed = 0;
      let sent = 0;
      while (Date.now() - start < 2000) {
        const batch = await Promise.all(trio.map((r) => http(r.url, '/api/chain/blockhash', { headers: { 'x-api-key': key } })));
        sent += batch.length;
        allowed += batch.filter((r) => r.status === 200).length;
        expect(batch.every((r) => r.status === 200 || r.status === 429)).toBe(true);
      }
      const seconds = (Date.now() - start) / 1000;
      // A full bucket plus what refills while we hammer it, for all three together.
      expect(allowed).toBeLessThanOrEqual(N + Math.ceil(N * seconds));
      expect(allowed).toBeGreaterThanOrEqual(N);
      expect(sent).toBeGreaterThan(3 * allowed);
    } finally {
      await Promise.all(trio.map((r) => r.stop()));
    }
  }, 120_000);

  test('paid calls draw from the same shared limit, in their debit: a refused one takes nothing', async () => {
    const N = 5;
    const gatewayAddress = (await generateKeyPairSigner()).address;
    const trio = await startTrio(gatewayAddress, { RATE_LIMIT_RPS: String(N), RATE_LIMIT_BURST: String(N) });
    try {
      const credit = 100 * PRICE;
      const { key, agent } = await funded(trio, gatewayAddress, credit);
      await Bun.sleep(1000);
      const start = Date.now();
      const answers = [];
      const invalid = [];
      while (Date.now() - start < 2000) {
        answers.push(...(await Promise.all([...trio, ...trio].map((r) => http(r.url, `/api/chain/find-ata?wallet=${agent.address}&mint=${sandbox.mint}`, { headers: { 'x-api-key': key } })))));
        // A paid call with bad input draws its token alone and costs nothing: 400, or 429 once the bucket is empty.
        invalid.push(await http(trio[0]!.url, '/api/chain/find-ata?wallet=not-a-wallet', { headers: { 'x-api-key': key } }));
      }
      expect(invalid.every((r) => r.status === 400 || r.status === 429)).toBe(true);
      const seconds = (Date.now() - start) / 1000;
      const ok = answers.filter((r) => r.status === 200).length;
      expect(answers.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
      expect(ok).toBeGreaterThanOrEqual(N);
      expect(ok).toBeLessThanOrEqual(N + Math.ceil(N * seconds));
      expect(answers.filter((r) => r.status === 429).every((r) => Number(r.headers.get('retry-after')) >= 1 && r.body.error === 'Too many requests')).toBe(true);
      // Only the answered calls were paid for, whichever replica answered.
      const me = (await http(trio[2]!.url, '/api/keys/me', { headers: { 'x-api-key': key } })).body;
      expect(me).toMatchObject({ creditLamports: credit - ok * PRICE, callsMade: ok });
    } finally {
      await Promise.all(trio.map((r) => r.stop()));
    }
  }, 120_000);
});

test.skipIf(skip)('a claim races across replicas: one key', async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const trio = await startTrio(gatewayAddress);
  try {
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, 5_000_000n);
    await http(trio[0]!.url, '/api/payments/webhook', { method: 'POST', body: heliusPayload(sig, agent.address, gatewayAddress, 5_000_000), headers: { authorization: SECRET } });
    // Challenges issued without a wallet binding, so none supersedes another.
    const attempts = await Promise.all(
      trio.map(async (r) => {
        const c = clientOf(r.url);
        const { body } = await c.get('/api/keys/challenge');
        return c.post('/api/keys/claim', { wallet: agent.address, signature: await signChallenge(agent, body.challenge), challenge: body.challenge });
      }),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual([200, 404, 404]);
    expect((await claim(clientOf(trio[1]!.url), agent)).status).toBe(404);
  } finally {
    await Promise.all(trio.map((r) => r.stop()));
  }
}, 120_000);
