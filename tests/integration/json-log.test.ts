// LOG_FORMAT=json is one JSON object per line, whatever the gateway's dependencies print: the
// gateway process, taken through x402's failure paths (a settlement the node refuses, where
// @x402/svm calls console.error with a stack; a fee payer drained, so the offer goes), writes
// nothing to stdout or stderr that is not a line of its log.
import { afterAll, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { spawnGateway } from '../support/process.ts';
import { craftPayment, payer, solOf, x402World } from '../support/x402.ts';
import { LAMPORTS_PER_SOL } from '../support/sandbox/index.ts';
import { within } from '../support/poll.ts';
import { USDC_MINT } from '../../src/config.ts';

setDefaultTimeout(60_000);

const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-json-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the gateway process under LOG_FORMAT=json: every line of stdout and stderr is one JSON object, a library\'s console.error among them', async () => {
  const chain = sandbox.chain;
  const world = await x402World(chain, dir);
  const gw = await spawnGateway({
    DATABASE_PATH: join(dir, 'gw.sqlite'),
    MAINNET_RPC_URLS: chain.url,
    DEVNET_RPC_URLS: chain.url,
    GATEWAY_ADDRESS: world.payTo,
    X402_PRICE: '10000',
    X402_FEE_PAYER_KEYPAIR: world.settings.x402FeePayerKeypair!,
    X402_SETTLE_SECONDS: '5',
    DEPOSIT_POLL_SECONDS: '0',
    READY_WINDOW_SECONDS: '1',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'debug',
  });
  let stdout = '';
  try {
    const path = (wallet: string) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC_MINT}`;
    const offer = await fetch(gw.url + path(world.payTo));
    const accepted = decodePaymentRequiredHeader(offer.headers.get('payment-required')!).accepts[0]!;
    const client = await payer(chain, 1_000_000n);
    // The node refuses the settlement: @x402/svm says so with console.error and the error's stack.
    chain.fault({ mode: 'rpcError', code: -32005, message: 'Node is unhealthy' }, { methods: ['sendTransaction'], times: 1 });
    const refused = await fetch(gw.url + path(client.address), { headers: { 'payment-signature': await craftPayment(chain, { accepted, from: client }) } });
    expect(refused.status).toBe(402);
    expect(await within(5_000, () => gw.lines.some((l) => l.includes('Failed to send transaction')))).not.toBeNull();
    // The fee payer drained: the fault episode's ERROR, and a payment racing it.
    await chain.transferSol(world.feePayer, chain.payer.address, (await solOf(chain, world.feePayer.address)) - 5_000n);
    const raced = await fetch(gw.url + path(client.address), { headers: { 'payment-signature': await craftPayment(chain, { accepted, from: client }) } });
    expect({ status: raced.status, body: await raced.text() }).toMatchObject({ status: 503 });
    expect(await within(5_000, () => gw.lines.some((l) => l.includes('x402 payments cannot settle')))).not.toBeNull();
    await chain.transferSol(chain.payer, world.feePayer.address, LAMPORTS_PER_SOL);
    expect(await within(5_000, () => gw.lines.some((l) => l.includes('x402 payments can settle again')))).not.toBeNull();
  } finally {
    expect(await gw.stop()).toBe(0);
    stdout = await new Response(gw.proc.stdout as ReadableStream).text();
  }
  expect(stdout).toBe('');
  const lines = gw.lines.filter((l) => l !== '');
  const notJson = lines.filter((l) => {
    try {
      const v: unknown = JSON.parse(l);
      return typeof v !== 'object' || v === null || Array.isArray(v);
    } catch {
      return true;
    }
  });
  expect(notJson).toEqual([]);
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(records.filter((r) => [r.level, r.time, r.message].some((v) => typeof v !== 'string'))).toEqual([]);
  const library = records.find((r) => String(r.message).includes('Failed to send transaction'));
  expect(library).toMatchObject({ level: 'error', event: 'console', console: 'error' });
  expect(String(library!.output)).toContain('Node is unhealthy');
  expect(records.filter((r) => r.event === 'x402_fault' && r.level === 'error')).toHaveLength(1);
});
