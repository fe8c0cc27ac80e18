// `gateway watches` against the file a real gateway wrote: all, failing, by wallet; the webhook by
// host only; bad arguments a usage error.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { activity, keyWithCredit, newWallet, receiver } from '../support/watch.ts';
import { within } from '../support/poll.ts';
import { MAIN } from '../support/process.ts';

let gw: TestGateway;
const down = receiver(() => 500);
afterAll(async () => {
  await gw.stop();
  down.stop();
});
beforeAll(async () => {
  gw = await startGateway({ webhookAllowPrivate: true, webhookRetryBaseSeconds: 0.05, webhookRetryMaxSeconds: 0.1, webhookFailingAfterSeconds: 0.2, freeCalls: 0 });
});

async function cli(...args: string[]) {
  const p = Bun.spawn(['bun', MAIN, 'watches', ...args], { env: { PATH: process.env.PATH!, DATABASE_PATH: gw.config.databasePath, WEBHOOK_FAILING_AFTER_SECONDS: '0.2' }, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

test('lists all, failing and one wallet\'s watches', async () => {
  const a = await keyWithCredit(gw, 1_000_000n);
  const b = await keyWithCredit(gw, 1_000_000n);
  const target = await newWallet();
  const failing = (await gw.post('/api/watches', { wallets: [target], webhookUrl: down.url + '?token=s3cret' }, { 'x-api-key': a.key })).body;
  const quiet = (await gw.post('/api/watches', { wallets: [await newWallet(), await newWallet()] }, { 'x-api-key': b.key })).body;
  await gw.services.watches.recordActivity('mainnet-beta', target, activity());
  expect(await within(5000, async () => (await gw.get(`/api/watches/${failing.id}`, { 'x-api-key': a.key })).body.status === 'failing')).not.toBeNull();

  const all = await cli('list');
  expect(all.code).toBe(0);
  expect(all.out).toContain(failing.id);
  expect(all.out).toContain(quiet.id);
  expect(all.out).not.toContain('s3cret');
  const json = JSON.parse((await cli('failing', '--json')).out);
  expect(json.map((w: any) => w.id)).toEqual([failing.id]);
  expect(json[0]).toMatchObject({ status: 'failing', pending: 1, lastError: 'HTTP 500', webhookHost: new URL(down.url).host });
  const mine = JSON.parse((await cli('wallet', b.wallet, '--json')).out);
  expect(mine.map((w: any) => [w.id, w.wallets])).toEqual([[quiet.id, 2]]);
  const bad = await cli('wallet', 'nope');
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('watches takes list, failing or wallet');
});
