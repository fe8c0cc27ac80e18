// Finding 4 of the hardening issue: a burst of transactions to the gateway address between two
// polls (dust costs a fraction of a cent each) must not hide a real deposit. Landing 10,500 real
// transactions on the sandbox dominates this test's time (tens of seconds on a loaded machine).
import { expect, test } from 'bun:test';
import { generateKeyPairSigner } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { claimWhenSeen, deposit } from '../support/agent.ts';
import { burst } from '../support/burst.ts';

const PRICE = 2_200_000;
const sandbox = sandboxGateways();

test('a deposit followed within one poll by 10,500 other transactions is credited and claimable; the dust costs no row each', async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const gw = await sandbox.gateway({ gatewayAddress, depositPollSeconds: 3600 });
  const row = (sql: string) => gw.sqlite().query(sql).get() as Record<string, number>;
  const agent = await sandbox.chain.newWallet(1_000_000_000n);
  const spammer = await sandbox.chain.newWallet(100_000_000_000n);
  // The watcher has seen the address before: its cursor sits at the address's previous newest transaction.
  await deposit(sandbox.chain, await sandbox.chain.newWallet(100_000_000n), gatewayAddress, BigInt(PRICE));
  await gw.services.watcher!.poll();

  await deposit(sandbox.chain, agent, gatewayAddress, BigInt(3 * PRICE));
  const dust = await burst(sandbox.chain, spammer, gatewayAddress, 10_500);
  gw.services.watcher!.start(3600); // one poll, then none for an hour unless it is behind

  const key = await claimWhenSeen(gw, agent, 180_000);
  expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports).toBe(3 * PRICE);
  // Every dust transfer was read and summed, without a row each.
  expect(row('SELECT transfers AS n, lamports AS l FROM dust_totals')).toEqual({ n: 10_500, l: dust });
  expect(row('SELECT count(*) AS n FROM deposits').n).toBe(2);
  // The walk is over: its head is the cursor.
  expect(row('SELECT count(*) AS n FROM watcher_cursors WHERE walk_head IS NULL').n).toBe(1);
}, 400_000);
