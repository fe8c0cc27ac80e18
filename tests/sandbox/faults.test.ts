// Injected faults: hang, slow, HTTP 429/500, garbage bodies and JSON-RPC errors, with `methods` and `times`.

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createSolanaRpc, isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from '@solana/kit';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { rawRpc } from '../support/sandbox/testing.ts';

let sb: Sandbox;
let rpc: ReturnType<typeof createSolanaRpc>;

beforeAll(async () => {
  sb = await startSandbox();
  rpc = createSolanaRpc(sb.url);
});
afterEach(() => sb.fault(null));
afterAll(() => sb.stop());

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

describe('faults', () => {
  test('hang: the request is accepted but never answered', async () => {
    sb.fault({ mode: 'hang' });
    const t0 = performance.now();
    const e = await failure(rpc.getSlot().send({ abortSignal: AbortSignal.timeout(150) }));
    expect((e as Error).name).toBe('TimeoutError');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(sb.calls('getSlot')).toBeGreaterThanOrEqual(1);
  });

  test('slow: the correct answer arrives after the delay', async () => {
    sb.fault({ mode: 'slow', delayMs: 200 });
    const t0 = performance.now();
    const slot = await rpc.getSlot().send();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    sb.fault(null);
    expect(slot).toBe(await rpc.getSlot().send());
  });

  test('http429 with Retry-After and http500, as kit transport errors', async () => {
    sb.fault({ mode: 'http429' });
    const raw = await rawRpc(sb.url, 'getSlot');
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(raw.body).toBeUndefined();
    const e429 = await failure(rpc.getSlot().send());
    expect(isSolanaError(e429, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)).toBe(true);
    expect((e429 as { context: { statusCode: number } }).context.statusCode).toBe(429);

    sb.fault({ mode: 'http500' });
    const e500 = await failure(rpc.getSlot().send());
    expect(isSolanaError(e500, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)).toBe(true);
    expect((e500 as { context: { statusCode: number } }).context.statusCode).toBe(500);
  });

  test('garbage: HTTP 200 with a body that is not JSON', async () => {
    sb.fault({ mode: 'garbage' });
    const raw = await rawRpc(sb.url, 'getSlot');
    expect(raw.status).toBe(200);
    expect(raw.body).toBeUndefined();
    expect(() => JSON.parse(raw.text)).toThrow();
    await failure(rpc.getSlot().send());
  });

  test('rpcError: HTTP 200 with a JSON-RPC error object', async () => {
    sb.fault({ mode: 'rpcError', code: -32603, message: 'account index service overloaded, please try again.' });
    const raw = await rawRpc(sb.url, 'getTokenLargestAccounts', ['So11111111111111111111111111111111111111112']);
    expect(raw.status).toBe(200);
    expect(raw.body as unknown).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'account index service overloaded, please try again.' }, id: 1 });
    const e = await failure(rpc.getSlot().send());
    expect((e as { context: { __code: number } }).context.__code).toBe(-32603);
  });

  test('times: only the next N matching requests fail, then the fault clears itself', async () => {
    sb.fault({ mode: 'http500' }, { times: 2 });
    expect((await rawRpc(sb.url, 'getSlot')).status).toBe(500);
    expect((await rawRpc(sb.url, 'getSlot')).status).toBe(500);
    expect((await rawRpc(sb.url, 'getSlot')).status).toBe(200);
    expect((await rawRpc(sb.url, 'getSlot')).status).toBe(200);
  });

  test('methods: only requests calling those methods are affected (a batch counts if any element matches)', async () => {
    sb.resetCalls();
    sb.fault({ mode: 'rpcError', code: -32005, message: 'Node is behind by 42 slots' }, { methods: ['getBalance'], times: 2 });
    expect(typeof (await rpc.getSlot().send())).toBe('bigint');
    const e = await failure(rpc.getBalance(sb.payer.address).send());
    expect((e as { context: { __code: number } }).context.__code).toBe(-32005);
    const batch = await rawRpc(sb.url, [
      ['getSlot', []],
      ['getBalance', [sb.payer.address]],
    ]);
    const replies = batch.body as unknown as { result?: unknown; error?: { code: number } }[];
    expect(replies[0]!.result).toBeDefined();
    expect(replies[1]!.error?.code).toBe(-32005);
    expect((await rpc.getBalance(sb.payer.address).send()).value).toBeGreaterThan(0n);
    expect(sb.calls('getBalance')).toBe(3);
    expect(sb.calls('getSlot')).toBe(2);
    expect(sb.calls()).toBe(5);
  });

  test('stop() also ends hung requests', async () => {
    const other = await startSandbox();
    other.fault({ mode: 'hang' });
    const pending = fetch(other.url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"getSlot"}' }).then(
      (r) => r.status,
      () => 'closed',
    );
    await Bun.sleep(20);
    const t0 = performance.now();
    await other.stop();
    const outcome = await pending;
    expect(performance.now() - t0).toBeLessThan(1000);
    expect([503, 'closed']).toContain(outcome);
  });
});
