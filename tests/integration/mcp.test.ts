// The MCP face through the real server, a real SQLite file and the sandbox chain, driven by the
// official SDK client over both transports (legacy HTTP+SSE and Streamable HTTP).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { inputSchema } from '../../src/capabilities/capability.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { VERSION } from '../../src/version.ts';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { connectMcp, keyOnPosts, TRANSPORTS } from '../support/mcp.ts';

const PRICE = 2_200_000;
const SECRET = 'whsec_mcp_test';

let chain: Sandbox;
let gw: TestGateway;
let mint: Address;

beforeAll(async () => {
  chain = await startSandbox();
  mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
  const gatewayAddress = (await generateKeyPairSigner()).address;
  gw = await startGateway({
    mainnetRpcUrls: [chain.url],
    devnetRpcUrls: [chain.url],
    gatewayAddress,
    webhookSecret: SECRET,
    freeCalls: 0,
  });
});
afterAll(async () => {
  await gw.stop();
  await chain.stop();
});

/** The REST answer to the same call, as raw text and parsed JSON. */
async function rest(path: string, key?: string) {
  const res = await fetch(gw.url + path, { headers: key ? { 'x-api-key': key } : {} });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

const credit = async (key: string) => (await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports as number;

for (const kind of TRANSPORTS) {
  describe(`MCP over ${kind}`, () => {
    test('initialize: server name, version and the tools capability', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        expect(c.client.getServerVersion()).toEqual({ name: 'chain-intelligence-gateway', version: VERSION });
        expect(c.client.getServerCapabilities()?.tools).toBeDefined();
        expect(c.client.getInstructions()).toContain('Solana');
      } finally {
        await c.close();
      }
    });

    test('tools/list is exactly the registry: names, input schemas, price in the description', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        const { tools } = await c.client.listTools();
        expect(tools.map((t) => t.name)).toEqual(CAPABILITIES.map((cap) => cap.tool));
        for (const cap of CAPABILITIES) {
          const tool = tools.find((t) => t.name === cap.tool)!;
          expect(tool.inputSchema).toEqual(JSON.parse(JSON.stringify(inputSchema(cap))));
          expect(tool.description).toStartWith(cap.description);
          if (cap.paid) expect(tool.description).toContain(`Paid: ${PRICE} lamports`);
          else expect(tool.description).toContain('Free');
          expect(tool.annotations?.readOnlyHint).toBe(true);
        }
      } finally {
        await c.close();
      }
    });

    test("a free tool: get_chain_balance returns the wallet's real balance, the same JSON as REST", async () => {
      const wallet = await chain.newWallet(1_234_567_891n);
      const c = await connectMcp(gw.url, kind);
      try {
        const r = await c.call('get_chain_balance', { wallet: wallet.address });
        const viaRest = await rest(`/api/chain/balance?wallet=${wallet.address}`);
        expect(r.isError).toBe(false);
        expect(r.text).toBe(viaRest.text);
        expect(r.body).toMatchObject({ wallet: wallet.address, balance_lamports: 1_234_567_891, network: 'mainnet-beta', live_status: 'SUCCESS' });
        expect(r.result.structuredContent).toEqual(viaRest.body);
        const devnet = await c.call('get_chain_balance', { wallet: wallet.address, network: 'devnet' });
        expect(devnet.body.network).toBe('devnet');
      } finally {
        await c.close();
      }
    });

    test('integers beyond 2^53 stay exact in the text (and do not break structuredContent)', async () => {
      const lamports = 2n ** 53n + 1n;
      const whale = await chain.newWallet(lamports);
      const c = await connectMcp(gw.url, kind);
      try {
        const r = await c.call('get_chain_balance', { wallet: whale.address });
        expect(r.isError).toBe(false);
        expect(r.text).toContain(`"balance_lamports":${lamports}`);
        expect(r.text).toBe((await rest(`/api/chain/balance?wallet=${whale.address}`)).text);
        expect(r.result.structuredContent.wallet).toBe(whale.address);
      } finally {
        await c.close();
      }
    });

    test('a paid tool with the key bound when the session opened: charged once, same JSON as REST', async () => {
      const { key, wallet } = await fundedKey(gw, chain, 3 * PRICE);
      const c = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        const r = await c.call('find_ata', { wallet, mint });
        expect(r.isError).toBe(false);
        expect(r.body).toMatchObject({ wallet, mint, exists: false, live_status: 'SUCCESS' });
        expect(r.result._meta).toMatchObject({ httpStatus: 200, httpHeaders: { 'x-credits-remaining': String(2 * PRICE) } });
        expect(await credit(key)).toBe(2 * PRICE);
        expect(r.text).toBe((await rest(`/api/chain/find-ata?wallet=${wallet}&mint=${mint}`, key)).text);
      } finally {
        await c.close();
      }
    });

    test('Authorization: Bearer binds the key as well as x-api-key does', async () => {
      const { key, wallet } = await fundedKey(gw, chain, PRICE);
      const c = await connectMcp(gw.url, kind, { headers: { authorization: `Bearer ${key}` } });
      try {
        expect((await c.call('find_ata', { wallet, mint })).isError).toBe(false);
        expect(await credit(key)).toBe(0);
      } finally {
        await c.close();
      }
    });

    test('a paid tool with the key on each POST only (never on the stream)', async () => {
      const { key, wallet } = await fundedKey(gw, chain, 2 * PRICE);
      const c = await connectMcp(gw.url, kind, { fetch: keyOnPosts(() => key) });
      try {
        const r = await c.call('find_ata', { wallet, mint });
        expect(r.isError).toBe(false);
        expect(r.body.ataAddress).toBeString();
        expect(await credit(key)).toBe(PRICE);
      } finally {
        await c.close();
      }
    });

    test('a session opened with a key takes no other key: refused, nothing charged to either', async () => {
      const good = await fundedKey(gw, chain, 2 * PRICE);
      let perPost: string | undefined = good.key;
      const d = await connectMcp(gw.url, kind, { headers: { 'x-api-key': good.key }, fetch: keyOnPosts(() => perPost) });
      try {
        perPost = 'cig_not_a_real_key_22222222222222222222222222';
        await expect(d.call('find_ata', { wallet: good.wallet, mint })).rejects.toThrow(/403|other credentials/);
        perPost = good.key;
        expect((await d.call('find_ata', { wallet: good.wallet, mint })).isError).toBe(false);
        expect(await credit(good.key)).toBe(PRICE);
      } finally {
        await d.close();
      }
    });

    test('a paid tool without a key: isError, and the text is exactly the REST 402 JSON', async () => {
      const owner = await chain.newWallet(1_000_000n);
      const c = await connectMcp(gw.url, kind);
      try {
        const r = await c.call('find_ata', { wallet: owner.address, mint });
        const viaRest = await rest(`/api/chain/find-ata?wallet=${owner.address}&mint=${mint}`);
        expect(viaRest.status).toBe(402);
        expect(r.isError).toBe(true);
        expect(r.text).toBe(viaRest.text);
        expect(r.body).toMatchObject({ error: 'Payment required', priceLamports: PRICE, payTo: gw.config.gatewayAddress });
        expect(r.result._meta.httpStatus).toBe(402);
      } finally {
        await c.close();
      }
    });

    test('after the credit runs out: 402 JSON, nothing more charged', async () => {
      const { key, wallet } = await fundedKey(gw, chain, PRICE);
      const c = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        expect((await c.call('find_ata', { wallet, mint })).isError).toBe(false);
        const r = await c.call('find_ata', { wallet, mint });
        expect(r.isError).toBe(true);
        expect(r.text).toBe((await rest(`/api/chain/find-ata?wallet=${wallet}&mint=${mint}`, key)).text);
        expect(r.body.error).toBe('Payment required');
        expect(await credit(key)).toBe(0);
      } finally {
        await c.close();
      }
    });

    test('a bad argument gives the REST 400 JSON as isError and costs nothing', async () => {
      const { key, wallet } = await fundedKey(gw, chain, PRICE);
      const c = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        const bad = await c.call('find_ata', { wallet: 'not-a-wallet', mint });
        expect(bad.isError).toBe(true);
        expect(bad.body).toMatchObject({ error: 'Invalid wallet', live_status: 'FAILED' });
        expect(bad.body.hint).toBeString();
        expect(bad.text).toBe((await rest(`/api/chain/find-ata?wallet=not-a-wallet&mint=${mint}`, key)).text);
        const missing = await c.call('find_ata', { wallet });
        expect(missing.isError).toBe(true);
        expect(missing.body).toMatchObject({ error: 'Missing parameters', live_status: 'FAILED' });
        const network = await c.call('get_chain_balance', { wallet, network: 'testnet' });
        expect(network.isError).toBe(true);
        expect(network.result._meta.httpStatus).toBe(400);
        expect(await credit(key)).toBe(PRICE);
      } finally {
        await c.close();
      }
    });

    test('an unknown tool is a JSON-RPC error naming the tools', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        await expect(c.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool not found.*get_chain_balance/);
      } finally {
        await c.close();
      }
    });
  });
}

describe('rate limits', () => {
  test('MCP and REST draw from the same bucket; over it a tool answers the REST 429 JSON as isError', async () => {
    const limited = await startGateway({ mainnetRpcUrls: [chain.url], devnetRpcUrls: [chain.url], rateLimitRps: 0.01, rateLimitBurst: 12 });
    const clients = await Promise.all(TRANSPORTS.map((k) => connectMcp(limited.url, k)));
    try {
      expect((await clients[0]!.call('get_chain_blockhash')).isError).toBe(false);
      expect((await clients[1]!.call('get_chain_blockhash')).isError).toBe(false);
      // Drain what is left of the bucket over REST.
      let viaRest = await limited.get('/api/chain/blockhash');
      for (let i = 0; i < 12 && viaRest.status === 200; i++) viaRest = await limited.get('/api/chain/blockhash');
      expect(viaRest.status).toBe(429);
      for (const c of clients) {
        const r = await c.call('get_chain_blockhash');
        expect(r.isError).toBe(true);
        expect(r.body).toEqual(viaRest.body);
        expect(r.result._meta).toMatchObject({ httpStatus: 429, httpHeaders: { 'retry-after': expect.any(String) } });
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await limited.stop();
    }
  });
});

test('nothing above debug level was logged by the MCP calls', () => {
  const bad = gw.logs.filter((l) => / (WARN|ERROR) /.test(l));
  expect(bad).toEqual([]);
});
