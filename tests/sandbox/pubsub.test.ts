// The sandbox's WebSocket API (port + 1) in Solana's shapes: logsSubscribe with mentions, its
// notification, logsUnsubscribe, slotSubscribe, the node's refusals, and cut/restore for fault tests.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';

let sb: Sandbox;
beforeAll(async () => void (sb = await startSandbox()));
afterAll(() => sb.stop());

/** A client that keeps every message, and asks and awaits the answer to a request. */
async function client() {
  const ws = new WebSocket(sb.wsUrl);
  const messages: any[] = [];
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)));
  await new Promise((r, j) => ((ws.onopen = r), (ws.onerror = j)));
  let id = 0;
  const ask = async (method: string, params: unknown[]) => {
    const mine = ++id;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params }));
    for (let i = 0; i < 100 && !messages.some((m) => m.id === mine); i++) await Bun.sleep(10);
    return messages.find((m) => m.id === mine);
  };
  const next = async (method: string) => {
    for (let i = 0; i < 200 && !messages.some((m) => m.method === method); i++) await Bun.sleep(10);
    const at = messages.findIndex((m) => m.method === method);
    return at < 0 ? undefined : messages.splice(at, 1)[0];
  };
  return { ws, messages, ask, next };
}

test('the WebSocket API listens on the RPC port + 1', () => {
  expect(Number(new URL(sb.wsUrl).port)).toBe(Number(new URL(sb.url).port) + 1);
});

test('logsSubscribe mentions: a notification per transaction naming the address, in mainnet shape; logsUnsubscribe ends it', async () => {
  const c = await client();
  const wallet = await sb.newWallet();
  const sub = await c.ask('logsSubscribe', [{ mentions: [wallet.address] }, { commitment: 'confirmed' }]);
  expect(sub).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 1 });
  const other = await sb.newWallet();
  await sb.transferSol(sb.payer, other.address, 1_000_000n); // does not name the wallet
  const sig = await sb.transferSol(wallet, other.address, 1_000_000n);
  const note = await c.next('logsNotification');
  const landed = sb.svm.getClock().slot;
  expect(note).toEqual({
    jsonrpc: '2.0',
    method: 'logsNotification',
    params: { result: { context: { slot: Number(landed) }, value: { signature: sig, err: null, logs: expect.arrayContaining([expect.stringMatching(/^Program 11111111111111111111111111111111 invoke \[1\]$/)]) } }, subscription: sub.result },
  });
  expect(c.messages.filter((m) => m.method === 'logsNotification')).toEqual([]);
  expect(await c.ask('logsUnsubscribe', [sub.result])).toEqual({ jsonrpc: '2.0', result: true, id: 2 });
  await sb.transferSol(wallet, other.address, 1_000_000n);
  expect(await c.next('logsNotification')).toBeUndefined();
  expect((await c.ask('logsUnsubscribe', [sub.result])).error).toEqual({ code: -32602, message: 'Invalid subscription id.' });
  c.ws.close();
});

test("a failed transaction is notified with its error; slotSubscribe follows the chain's slot", async () => {
  const c = await client();
  const wallet = await sb.newWallet();
  const sub = await c.ask('logsSubscribe', [{ mentions: [wallet.address] }]);
  const slots = await c.ask('slotSubscribe', []);
  const sig = await sb.failingTransaction(wallet);
  const note = await c.next('logsNotification');
  expect(note.params.result.value).toMatchObject({ signature: sig, err: { InstructionError: [0, { Custom: 1 }] } });
  const slot = await c.next('slotNotification');
  expect(slot.params).toEqual({ result: { parent: expect.any(Number), root: expect.any(Number), slot: expect.any(Number) }, subscription: slots.result });
  expect(slot.params.result.parent).toBe(slot.params.result.slot - 1);
  expect(sub.result).not.toBe(slots.result);
  c.ws.close();
});

test("the node's refusals: more than one address, a bad address, an unknown method", async () => {
  const c = await client();
  const a = (await sb.newWallet()).address;
  expect((await c.ask('logsSubscribe', [{ mentions: [a, a] }])).error).toEqual({ code: -32602, message: 'Invalid Request: Only 1 address supported' });
  expect((await c.ask('logsSubscribe', [{ mentions: ['not-an-address'] }])).error.code).toBe(-32602);
  expect((await c.ask('accountSubscribe2', [])).error).toEqual({ code: -32601, message: 'Method not found' });
  c.ws.close();
});

test('cut() drops every connection and refuses new ones until restore()', async () => {
  const c = await client();
  const closed = new Promise((r) => (c.ws.onclose = r));
  sb.pubsub.cut();
  await closed;
  expect(sb.pubsub.open().connections).toBe(0);
  await expect(client()).rejects.toBeDefined();
  sb.pubsub.restore();
  const again = await client();
  expect(sb.pubsub.open().connections).toBe(1);
  again.ws.close();
});
