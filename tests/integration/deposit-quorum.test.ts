// The deposit quorum's waiting rule, with one honest node (the sandbox) and one that lags: it does
// not show the transaction yet (a hand-written fake: a real node cannot be made to lag on demand).
import { expect, test } from 'bun:test';
import { generateKeyPairSigner } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { depositQuorum } from '../../src/billing/quorum.ts';
import { transfersTo } from '../../src/billing/deposits.ts';
import { Upstream } from '../../src/chain/upstream.ts';
import { createLogger } from '../../src/log.ts';

const sandbox = sandboxGateways();

const log = createLogger('error', [], () => {});
const node = (url: string, fetcher?: typeof fetch) => new Upstream({ label: 'test', urls: [url], timeoutMs: 2000, retries: 0, log, fetch: fetcher });
const lagging: typeof fetch = (async (_url: string, init: RequestInit) => {
  const id = JSON.parse(String(init.body)).id;
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, result: null }), { headers: { 'content-type': 'application/json' } });
}) as typeof fetch;
const down = (async () => new Response('down', { status: 503 })) as unknown as typeof fetch;

test('a lagging node is waited for (null: ask again) for the grace time, then counts as a no; a node that is down always means ask again', async () => {
  const gateway = (await generateKeyPairSigner()).address;
  const agent = await sandbox.chain.newWallet(1_000_000_000n);
  const sig = await sandbox.chain.transferSol(agent, gateway, 5_000_000n);
  const tx = await node(sandbox.chain.url).call('getTransaction', [sig, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
  const transfers = transfersTo(tx, gateway);
  expect(transfers).toEqual([{ from: agent.address, lamports: 5_000_000n }]);

  let clock = 0;
  const both = (fetcher: typeof fetch, required: number) =>
    depositQuorum({ witnesses: [node(sandbox.chain.url), node('http://127.0.0.1:9/', fetcher)], required, gateway, log, graceMs: 60_000, now: () => clock });

  const waiting = both(lagging, 2);
  expect(await waiting.confirm(sig, transfers)).toBeNull();
  clock = 59_000;
  expect(await waiting.confirm(sig, transfers)).toBeNull();
  clock = 61_000;
  expect(await waiting.confirm(sig, transfers)).toEqual([]);

  // One of two required: the honest node alone suffices once the lagging one has had its time.
  clock = 0;
  const lenient = both(lagging, 1);
  expect(await lenient.confirm(sig, transfers)).toBeNull();
  clock = 61_000;
  expect(await lenient.confirm(sig, transfers)).toEqual(transfers);

  clock = 10_000_000;
  expect(await both(down, 1).confirm(sig, transfers)).toBeNull();
});
