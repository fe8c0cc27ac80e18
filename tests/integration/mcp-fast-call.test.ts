// The direct path for a plain tools/call on a Streamable HTTP session (src/mcp/fast-call.ts) must
// answer what the SDK's own path answers, charge the same, pass every check a session request
// passes (owner, batch cap, rate limit), and leave every other message, malformed or hostile, to
// the SDK. Raw HTTP against the real server, so each path can be chosen on purpose: a `_meta`
// (a progress token) sends the very same call down the SDK's path.
import { beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import type { TestGateway } from '../support/gateway.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { Config } from '../../src/config.ts';
import { fundedKey } from '../support/agent.ts';
import { fetchFrom } from '../support/mcp.ts';
import { META_HTTP, META_PAYMENT } from '../../src/mcp/tools.ts';
import { withoutFreshChallenge } from '../support/siwx.ts';

const PRICE = 2_200_000;
const sandbox = sandboxGateways(async () => ({ gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_fast', freeCalls: 0 }));
const gateway = (overrides?: Partial<Config>) => sandbox.gateway(overrides);
let mint: Address;

beforeAll(async () => {
  mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
});

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
/** The headers a stateless 2026-07-28 tools/call carries, but for `mcp-name` and the key. */
const STATELESS_HEADERS = { ...BASE_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };

interface Answer {
  status: number;
  type: string | null;
  /** The JSON-RPC message: the JSON body, or the one SSE event's data. */
  json: any;
}

async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  const type = res.headers.get('content-type');
  const json = type?.startsWith('text/event-stream') ? JSON.parse(/^data: (.*)$/m.exec(text)![1]!) : text ? JSON.parse(text) : undefined;
  return { status: res.status, type, json };
}

/** A Streamable HTTP session opened by hand (initialize, then the initialized notification). */
async function session(gw: TestGateway, headers: Record<string, string> = {}) {
  const init = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { ...BASE_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'test', version: '1' } } }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const id = init.headers.get('mcp-session-id')!;
  const raw = (body: unknown, extra: Record<string, string> = {}, via: typeof fetch = fetch) =>
    via(`${gw.url}/mcp`, { method: 'POST', headers: { ...BASE_HEADERS, ...headers, 'mcp-session-id': id, ...extra }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const post = async (body: unknown, extra: Record<string, string> = {}, via: typeof fetch = fetch) => read(await raw(body, extra, via));
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return { id, raw, post };
}

const toolCall = (id: unknown, name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args ? { arguments: args } : {}), ...(meta ? { _meta: meta } : {}) },
});
/** The same call down the SDK's path: a progress token is something only the SDK handles. */
const viaSdk = (id: unknown, name: string, args?: Record<string, unknown>) => toolCall(id, name, args, { progressToken: `p${String(id)}` });

const credit = async (gw: TestGateway, key: string) => (await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports as number;
const DIRECT = 'application/json';
const SDK = 'text/event-stream';

describe('a plain tools/call is answered directly, as the SDK would answer it', () => {
  let gw: TestGateway;
  let key: string;
  let wallet: Address;
  let s: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    gw = await gateway();
    ({ key, wallet } = await fundedKey(gw, sandbox.chain, 10 * PRICE));
    s = await session(gw, { 'x-api-key': key });
  });

  test('a free tool: the same JSON-RPC answer on both paths, with the session id header', async () => {
    const direct = await s.post(toolCall(1, 'get_chain_balance', { wallet }));
    const sdk = await s.post(viaSdk(2, 'get_chain_balance', { wallet }));
    expect(direct.status).toBe(200);
    expect(direct.type).toStartWith(DIRECT);
    expect(sdk.type).toStartWith(SDK);
    expect(direct.json).toEqual({ ...sdk.json, id: 1 });
    expect(direct.json.result.isError).toBe(false);
    expect(direct.json.result.structuredContent).toEqual(JSON.parse(direct.json.result.content[0].text));
    const res = await s.raw(toolCall('x', 'get_chain_balance', { wallet }));
    expect(res.headers.get('mcp-session-id')).toBe(s.id);
    expect(((await res.json()) as any).id).toBe('x');
  });

  test('a paid tool: the same result shape, charged once per call on either path', async () => {
    const before = await credit(gw, key);
    const direct = await s.post(toolCall('a', 'optimal_fee', {}));
    const sdk = await s.post(viaSdk('b', 'optimal_fee', {}));
    expect(direct.type).toStartWith(DIRECT);
    expect(sdk.type).toStartWith(SDK);
    expect(direct.json.id).toBe('a');
    expect(Object.keys(direct.json.result).sort()).toEqual(Object.keys(sdk.json.result).sort());
    expect(direct.json.result.isError).toBe(false);
    expect(direct.json.result.structuredContent).toEqual(JSON.parse(direct.json.result.content[0].text));
    expect(direct.json.result.structuredContent.tiers).toEqual(sdk.json.result.structuredContent.tiers);
    expect(direct.json.result._meta[META_HTTP]).toEqual({ status: 200, headers: expect.objectContaining({ 'x-credits-remaining': String(before - PRICE) }) });
    expect(sdk.json.result._meta[META_HTTP].headers['x-credits-remaining']).toBe(String(before - 2 * PRICE));
    expect(await credit(gw, key)).toBe(before - 2 * PRICE);
  });

  test('an integer beyond 2^53 is exact in the text and in the structured content, as on the SDK path', async () => {
    const lamports = 2n ** 53n + 1n;
    const whale = await sandbox.chain.newWallet(lamports);
    const raw = async (body: unknown) => {
      const text = await (await s.raw(body)).text();
      return text.startsWith('event:') ? /^data: (.*)$/m.exec(text)![1]! : text;
    };
    const direct = await raw(toolCall(30, 'get_chain_balance', { wallet: whale.address }));
    const sdk = await raw(viaSdk(30, 'get_chain_balance', { wallet: whale.address }));
    expect(direct).toContain(`"structuredContent":{"wallet":"${whale.address}","balance_lamports":${lamports},`);
    expect(direct).toContain(`\\"balance_lamports\\":${lamports},`);
    const structured = (text: string) => /"structuredContent":(\{[^}]*\})/.exec(text)![1];
    expect(structured(direct)).toBe(structured(sdk));
  });

  test('invalid arguments: the same -32602 error on both paths, and it costs nothing', async () => {
    const before = await credit(gw, key);
    for (const args of [{ wallet: 'not-a-wallet', mint }, { wallet, mint, surprise: 1 }]) {
      const direct = await s.post(toolCall(3, 'find_ata', args));
      const sdk = await s.post(viaSdk(3, 'find_ata', args));
      expect(direct.type).toStartWith(DIRECT);
      expect(direct.json.error.code).toBe(-32602);
      expect(direct.json).toEqual(sdk.json);
    }
    expect(await credit(gw, key)).toBe(before);
  });

  test('no arguments at all is an empty argument object, as for the SDK', async () => {
    const before = await credit(gw, key);
    const direct = await s.post(toolCall(4, 'optimal_fee'));
    expect(direct.type).toStartWith(DIRECT);
    expect(direct.json.result.isError).toBe(false);
    expect(await credit(gw, key)).toBe(before - PRICE);
  });

  test('concurrent calls on one session spend the credit exactly, never below zero', async () => {
    const { key: k } = await fundedKey(gw, sandbox.chain, 3 * PRICE);
    const t = await session(gw, { 'x-api-key': k });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => t.post(toolCall(100 + i, 'optimal_fee', {}))));
    const ok = answers.filter((a) => a.json.result?.isError === false);
    const refused = answers.filter((a) => a.json.result?._meta?.[META_HTTP]?.status === 402);
    expect(ok.length).toBe(3);
    expect(refused.length).toBe(5);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(8);
    expect(await credit(gw, k)).toBe(0);
  });
});

describe('a keyless session', () => {
  test('a paid tool answers the same payment-required result on both paths', async () => {
    const gw = await gateway();
    const s = await session(gw);
    const direct = await s.post(toolCall(1, 'optimal_fee', {}));
    const sdk = await s.post(viaSdk(1, 'optimal_fee', {}));
    expect(direct.type).toStartWith(DIRECT);
    // Each 402 is a fresh sign-in challenge (nonce, times); nothing else differs.
    expect(withoutFreshChallenge(direct.json)).toEqual(withoutFreshChallenge(sdk.json));
    expect(direct.json.result.isError).toBe(true);
    expect(direct.json.result._meta[META_HTTP].status).toBe(402);
    expect(direct.json.result._meta[META_PAYMENT].keyHeader).toBe('x-api-key');
  });
});

describe('the checks of a session request come first', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway({ mcpMaxBatch: 3 });
  });

  test('a stolen session id from another address, or with another key: 403, nothing charged', async () => {
    const owner = await fundedKey(gw, sandbox.chain, 2 * PRICE);
    const thief = await fundedKey(gw, sandbox.chain, 2 * PRICE);
    const s = await session(gw, { 'x-api-key': owner.key });
    const other = fetchFrom('127.0.0.2') as typeof fetch;
    const attempts = [
      await s.post(toolCall(1, 'optimal_fee', {}), { 'x-api-key': '' }, other),
      await s.post(toolCall(2, 'optimal_fee', {}), { 'x-api-key': thief.key }, other),
      await s.post(toolCall(3, 'optimal_fee', {}), { 'x-api-key': thief.key }),
      await s.post(toolCall(4, 'optimal_fee', {}), { 'x-api-key': 'cig_wrong_000000000000000000000000000000' }),
    ];
    for (const a of attempts) {
      expect(a.status).toBe(403);
      expect(a.json.error).toBe('This MCP session was opened with other credentials');
    }
    expect(await credit(gw, owner.key)).toBe(2 * PRICE);
    expect(await credit(gw, thief.key)).toBe(2 * PRICE);
    expect((await s.post(toolCall(5, 'optimal_fee', {}))).json.result.isError).toBe(false);
    expect(await credit(gw, owner.key)).toBe(PRICE);
  });

  test('a foreign Origin: 403 before anything else, on a session and stateless, nothing charged', async () => {
    const { key } = await fundedKey(gw, sandbox.chain, PRICE);
    const s = await session(gw, { 'x-api-key': key });
    const onSession = await s.post(toolCall(1, 'optimal_fee', {}), { origin: 'https://evil.example' });
    expect(onSession.status).toBe(403);
    expect(onSession.json.error).toBe('Origin not allowed');
    const stateless = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...STATELESS_HEADERS, 'mcp-name': 'optimal_fee', 'x-api-key': key, origin: 'https://evil.example' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'optimal_fee', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(stateless.status).toBe(403);
    expect(await credit(gw, key)).toBe(PRICE);
  });

  test('a keyless session used from another address: 403', async () => {
    const s = await session(gw);
    const a = await s.post(toolCall(1, 'get_chain_blockhash', {}), {}, fetchFrom('127.0.0.2') as typeof fetch);
    expect(a.status).toBe(403);
  });

  test('an unknown or closed session: 404, nothing charged', async () => {
    const { key } = await fundedKey(gw, sandbox.chain, PRICE);
    const s = await session(gw, { 'x-api-key': key });
    const unknown = await s.post(toolCall(1, 'optimal_fee', {}), { 'mcp-session-id': crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe(-32001);
    const del = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { ...BASE_HEADERS, 'x-api-key': key, 'mcp-session-id': s.id } });
    expect(del.status).toBe(200);
    expect((await s.post(toolCall(2, 'optimal_fee', {}))).status).toBe(404);
    expect(await credit(gw, key)).toBe(PRICE);
  });

  test('a batch over the cap: 400 -32600, nothing run; at the cap the SDK answers and charges each call', async () => {
    const { key } = await fundedKey(gw, sandbox.chain, 3 * PRICE);
    const s = await session(gw, { 'x-api-key': key });
    const over = await s.post(Array.from({ length: 4 }, (_, i) => toolCall(i, 'optimal_fee', {})));
    expect(over.status).toBe(400);
    expect(over.json.error.code).toBe(-32600);
    expect(await credit(gw, key)).toBe(3 * PRICE);
    const single = await s.raw([toolCall(9, 'optimal_fee', {})]);
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toStartWith(SDK);
    expect(await single.text()).toContain('"isError":false');
    expect(await credit(gw, key)).toBe(2 * PRICE);
  });

  test('the rate limit applies to direct calls as to REST: 429 as an error result, nothing charged', async () => {
    const limited = await gateway({ rateLimitRps: 0.01, rateLimitBurst: 4 });
    const { key } = await fundedKey(limited, sandbox.chain, 5 * PRICE);
    const s = await session(limited, { 'x-api-key': key }); // initialize and the notification: 2 tokens
    expect((await s.post(toolCall(1, 'optimal_fee', {}))).json.result.isError).toBe(false); // 3
    expect((await s.post(toolCall(2, 'optimal_fee', {}))).json.result.isError).toBe(false); // 4
    const refused = await s.post(toolCall(3, 'optimal_fee', {}));
    expect(refused.type).toStartWith(DIRECT);
    expect(refused.json.result.isError).toBe(true);
    expect(refused.json.result._meta[META_HTTP].status).toBe(429);
    expect(refused.json.result._meta[META_HTTP].headers['retry-after']).toBeString();
    expect(await credit(limited, key)).toBe(3 * PRICE);
  });
});

describe('everything else goes to the SDK, which answers as before', () => {
  let gw: TestGateway;
  let key: string;
  let s: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    gw = await gateway();
    ({ key } = await fundedKey(gw, sandbox.chain, 2 * PRICE));
    s = await session(gw, { 'x-api-key': key });
  });

  test('an unknown tool: the SDK event with -32602', async () => {
    const res = await s.post(toolCall(5, 'no_such_tool', {}));
    expect(res.type).toStartWith(SDK);
    expect(res.json.error.code).toBe(-32602);
  });

  test('an unsupported protocol version: 400', async () => {
    const res = await s.post(toolCall(6, 'optimal_fee', {}), { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('Unsupported protocol version');
  });

  test('no protocol version header: the SDK answers (it assumes the negotiated one)', async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, 'mcp-session-id': s.id },
      body: JSON.stringify(toolCall(7, 'get_chain_blockhash', {})),
    });
    const a = await read(res);
    expect(a.type).toStartWith(SDK);
    expect(a.json.result.isError).toBe(false);
  });

  test('a client that does not accept event streams: 406; a body that is not JSON-typed: 415', async () => {
    expect((await s.post(toolCall(8, 'optimal_fee', {}), { accept: 'application/json' })).status).toBe(406);
    expect((await s.post(toolCall(9, 'optimal_fee', {}), { 'content-type': 'text/plain' })).status).toBe(415);
  });

  test('malformed ids, versions and params get no result', async () => {
    for (const bad of [
      { ...toolCall(10, 'optimal_fee', {}), id: 1.5 },
      { ...toolCall(11, 'optimal_fee', {}), id: null },
      { ...toolCall(12, 'optimal_fee', {}), id: { n: 1 } },
      { ...toolCall(13, 'optimal_fee', {}), jsonrpc: '1.0' },
      { jsonrpc: '2.0', id: 14, method: 'tools/call', params: { name: 'optimal_fee', arguments: [1, 2] } },
      { jsonrpc: '2.0', id: 15, method: 'tools/call', params: { name: 'optimal_fee', arguments: null } },
      { jsonrpc: '2.0', id: 16, method: 'tools/call', params: { name: 7 } },
      { jsonrpc: '2.0', id: 17, method: 'tools/call' },
      { jsonrpc: '2.0', id: 18, method: 'tools/call', params: 'optimal_fee' },
    ]) {
      const res = await s.post(bad);
      expect(res.json?.result).toBeUndefined();
    }
    // An id beyond 2^53 is no integer JSON-RPC id once parsed: the SDK refuses it too.
    const huge = await s.post('{"jsonrpc":"2.0","id":123456789012345678901234,"method":"tools/call","params":{"name":"optimal_fee","arguments":{}}}');
    expect(huge.json?.result).toBeUndefined();
    expect(await credit(gw, key)).toBe(2 * PRICE);
  });

  test('an argument named __proto__ gets the SDK\'s own answer', async () => {
    const body = (meta: string) =>
      `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"get_chain_blockhash","arguments":{"__proto__":{"network":"devnet"}}${meta}}}`;
    const plain = await s.post(body(''));
    const sdk = await s.post(body(',"_meta":{"progressToken":"p"}'));
    expect(plain.type).toStartWith(SDK);
    const network = (a: Answer) => JSON.parse(a.json.result.content[0].text).network;
    expect(plain.json.result.isError).toBe(sdk.json.result.isError);
    expect(network(plain)).toBe(network(sdk));
  });

  test('a tools/call sent as a notification (no id) runs nothing and costs nothing', async () => {
    const res = await s.post({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'optimal_fee', arguments: {} } });
    expect(res.status).toBe(202);
    expect(await credit(gw, key)).toBe(2 * PRICE);
  });

  test('a call carrying _meta is answered by the SDK, and charged once', async () => {
    const res = await s.post(viaSdk(20, 'optimal_fee', {}));
    expect(res.type).toStartWith(SDK);
    expect(res.json.result.isError).toBe(false);
    expect(await credit(gw, key)).toBe(PRICE);
  });
});

describe('stateless 2026-07-28: a plain tools/call is answered directly, as the SDK would answer it', () => {
  let gw: TestGateway;
  let key: string;
  let wallet: Address;
  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  /** The same call down the SDK's handler: a client title is something only the SDK reads. */
  const SDK_ENVELOPE = { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1', title: 'Test' } };
  const call = (id: unknown, name: string, args: Record<string, unknown> = {}, envelope: Record<string, unknown> = ENVELOPE) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: envelope },
  });
  const post = async (body: any, extra: Record<string, string> = {}) =>
    read(
      await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...STATELESS_HEADERS, 'mcp-name': String(body?.params?.name), 'x-api-key': key, ...extra },
        body: JSON.stringify(body),
      }),
    );
  beforeAll(async () => {
    gw = await gateway();
    ({ key, wallet } = await fundedKey(gw, sandbox.chain, 10 * PRICE));
  });

  test('free, paid and payment-required results equal the SDK handler\'s, and each call is charged once', async () => {
    const free = await post(call(1, 'get_chain_balance', { wallet }));
    const freeSdk = await post(call(1, 'get_chain_balance', { wallet }, SDK_ENVELOPE));
    expect(free.status).toBe(200);
    expect(free.json).toEqual(freeSdk.json);
    expect(free.json.result.resultType).toBe('complete');
    expect(free.json.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('chain-intelligence-gateway');

    const before = await credit(gw, key);
    const paid = await post(call('a', 'optimal_fee'));
    const paidSdk = await post(call('b', 'optimal_fee', {}, SDK_ENVELOPE));
    expect(paid.json.id).toBe('a');
    expect(Object.keys(paid.json.result).sort()).toEqual(Object.keys(paidSdk.json.result).sort());
    expect(paid.json.result.structuredContent).toEqual(JSON.parse(paid.json.result.content[0].text));
    expect(paid.json.result.structuredContent.tiers).toEqual(paidSdk.json.result.structuredContent.tiers);
    expect(paid.json.result._meta[META_HTTP].headers['x-credits-remaining']).toBe(String(before - PRICE));
    expect(await credit(gw, key)).toBe(before - 2 * PRICE);

    const keyless = await post(call(2, 'optimal_fee'), { 'x-api-key': '' });
    const keylessSdk = await post(call(2, 'optimal_fee', {}, SDK_ENVELOPE), { 'x-api-key': '' });
    expect(withoutFreshChallenge(keyless.json)).toEqual(withoutFreshChallenge(keylessSdk.json));
    expect(keyless.json.result._meta[META_HTTP].status).toBe(402);
  });

  test('invalid or unknown arguments: the same -32602 as the SDK handler, nothing charged', async () => {
    const before = await credit(gw, key);
    for (const args of [{ wallet: 'not-a-wallet', mint }, { wallet, mint, surprise: 1 }]) {
      const a = await post(call(3, 'find_ata', args));
      const b = await post(call(3, 'find_ata', args, SDK_ENVELOPE));
      expect(a.json.error.code).toBe(-32602);
      expect(a).toEqual(b);
    }
    expect(await credit(gw, key)).toBe(before);
  });

  test('headers or envelopes the revision refuses get the SDK\'s refusal, and cost nothing', async () => {
    const before = await credit(gw, key);
    const refused = [
      await post(call(4, 'optimal_fee'), { 'mcp-name': 'get_chain_blockhash' }), // header and body disagree
      await post(call(5, 'optimal_fee'), { 'mcp-method': 'tools/list' }),
      await post(call(6, 'optimal_fee', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' })),
      await post(call(7, 'optimal_fee', {}, { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' })), // no capabilities
      await post({ ...call(8, 'optimal_fee'), id: 1.5 }),
    ];
    for (const a of refused) expect(a.json?.result).toBeUndefined();
    expect(await credit(gw, key)).toBe(before);
  });

  test('client capabilities or an unknown tool: the SDK handler answers; extra mcp- headers change no answer', async () => {
    const before = await credit(gw, key);
    const withCapabilities = await post(call(9, 'optimal_fee', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }));
    expect(withCapabilities.json.result.isError).toBe(false);
    const withHeader = await post(call(10, 'optimal_fee'), { 'mcp-param-network': 'mainnet-beta' });
    expect(withHeader.json.result.isError).toBe(false);
    const unknown = await post(call(11, 'no_such_tool'));
    expect(unknown.json.error.code).toBe(-32602);
    expect(await credit(gw, key)).toBe(before - 2 * PRICE);
    // Taken directly (nothing the SDK reads is in them), and answered as the SDK handler answers.
    const extra = { 'mcp-param-network': 'devnet', 'mcp-param-wallet': 'x', 'mcp-other': '1' };
    const direct = await post(call(12, 'get_chain_balance', { wallet }), extra);
    const sdk = await post(call(12, 'get_chain_balance', { wallet }, SDK_ENVELOPE), extra);
    expect(direct.status).toBe(200);
    expect(direct.json).toEqual(sdk.json);
  });

  test('the rate limit applies: 429 as an error result, nothing charged', async () => {
    // Two calls at once, then one token every 500 ms.
    const limited = await gateway({ rateLimitRps: 2, rateLimitBurst: 2 });
    const { key: k } = await fundedKey(limited, sandbox.chain, 5 * PRICE);
    await Bun.sleep(1100); // the bucket full again after the purchase's own requests
    const send = (id: number) =>
      fetch(`${limited.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'optimal_fee', 'x-api-key': k },
        body: JSON.stringify(call(id, 'optimal_fee')),
      }).then(read);
    const answers = [await send(1), await send(2), await send(3)];
    expect(answers.map((a) => a.json.result._meta[META_HTTP].status)).toEqual([200, 200, 429]);
    expect(answers[2]!.json.result.isError).toBe(true);
    await Bun.sleep(600);
    const later = await send(4);
    expect(later.json.result._meta[META_HTTP].headers['x-credits-remaining']).toBe(String(2 * PRICE)); // three calls charged, not four
  });
});
