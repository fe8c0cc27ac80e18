// Two gateway processes on one PostgreSQL database given the same x402 payment at once: it buys
// one call and is settled once, whichever replica each copy reaches. Real processes, a real
// Postgres, the sandbox chain.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { startReplica, type Replica } from '../support/replicas.ts';
import { craftPayment, payer, usdcOf, x402World, USDC_MINT, type X402World } from '../support/x402.ts';

setDefaultTimeout(60_000);

const PRICE = 5_000;
const skip = shouldSkipPostgres('x402 replicas');
let chain: Sandbox;
let world: X402World;
let replicas: Replica[] = [];
let databaseUrl: string;

beforeAll(async () => {
  if (skip) return;
  chain = await startSandbox();
  world = await x402World(chain, mkdtempSync(join(tmpdir(), 'cig-x402-replicas-')), PRICE);
  databaseUrl = await freshDatabase();
  const env = {
    DATABASE_URL: databaseUrl,
    MAINNET_RPC_URLS: chain.url,
    DEVNET_RPC_URLS: chain.url,
    GATEWAY_ADDRESS: world.payTo,
    X402_PRICE: String(PRICE),
    X402_FEE_PAYER_KEYPAIR: world.settings.x402FeePayerKeypair!,
    RATE_LIMIT_RPS: '0',
    DEPOSIT_POLL_SECONDS: '0',
  };
  replicas = await Promise.all([startReplica(env), startReplica(env)]);
}, POSTGRES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await chain?.stop();
});

describe.skipIf(skip)('x402 on two replicas of one Postgres', () => {
  test('the same payment sent to both replicas at once (10 copies each) buys one call, settled once', async () => {
    const wallet = await payer(chain, 100_000n);
    const path = `/api/chain/find-ata?wallet=${wallet.address}&mint=${USDC_MINT}`;
    const offer = await fetch(replicas[0]!.url + path);
    const accepted = decodePaymentRequiredHeader(offer.headers.get('payment-required')!).accepts[0]!;
    const header = await craftPayment(chain, { accepted, from: wallet });
    const before = { wallet: await usdcOf(chain, wallet.address), gateway: await usdcOf(chain, world.payTo) };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(replicas[i % 2]!.url + path, { headers: { 'payment-signature': header } })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    expect(await usdcOf(chain, wallet.address)).toBe(before.wallet - BigInt(PRICE));
    expect(await usdcOf(chain, world.payTo)).toBe(before.gateway + BigInt(PRICE));
    // One row, settled, naming the landed transaction.
    const sql = new SQL(databaseUrl);
    const rows = await sql`SELECT status, payer, signature FROM x402_payments`;
    await sql.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'settled', payer: wallet.address });
    expect(rows[0].signature).toBeString();
    // gateway stats reads the same database and shows the payment once.
    const p = Bun.spawn(['bun', join(import.meta.dir, '../../src/main.ts'), 'stats', '--json'], { env: { PATH: process.env.PATH!, DATABASE_URL: databaseUrl }, stdout: 'pipe' });
    const stats = JSON.parse(await new Response(p.stdout).text());
    expect(await p.exited).toBe(0);
    expect(stats.x402.settled).toEqual([{ asset: USDC_MINT, payments: 1, amount: String(PRICE) }]);
    expect(stats.x402.recent).toEqual([expect.objectContaining({ payer: wallet.address, amount: PRICE, status: 'settled', transaction: rows[0].signature })]);
  });
});
