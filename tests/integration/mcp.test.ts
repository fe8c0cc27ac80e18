// The MCP face through the real server, a real SQLite file and the sandbox chain, driven by the
// official clients: the v1 SDK client over both transports (legacy HTTP+SSE and Streamable HTTP
// at a 2025 revision), and the v2 client pinned to 2026-07-28 and negotiating on its own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { inputSchema, successSchema } from '../../src/capabilities/capability.ts';
import { compactSchema } from '../../src/capabilities/compact-schema.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { VERSION } from '../../src/version.ts';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { CLIENTS, connectMcp, hasSessions, keyOnPosts, type McpTestClient } from '../support/mcp.ts';
import { META_HTTP, META_PAYMENT } from '../../src/mcp/tools.ts';

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

/** An unsigned SOL transfer, as an agent would send to simulate. */
function transferTx(from: Address, to: Address, lamports: bigint) {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(from, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash('H3asooJct4u6fQmtgTGEKrBhhuSnaHJoYJuB4N1eNG4z'), lastValidBlockHeight: 1n }, m),
    (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: createNoopSigner(from), destination: to, amount: lamports }), m),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

const credit = async (key: string) => (await gw.get('/api/keys/me', { 'x-api-key': key })).body.creditLamports as number;

for (const kind of CLIENTS) {
  describe(`MCP, official client ${kind}`, () => {
    test('initialize (or server/discover): server name, version, the tools capability, the protocol revision', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        expect(c.protocolVersion()).toBe(kind === 'sse' ? undefined : hasSessions(kind) ? '2025-11-25' : '2026-07-28');
        expect(c.client.getServerVersion()).toEqual({ name: 'chain-intelligence-gateway', version: VERSION });
        expect(c.client.getServerCapabilities()?.tools).toBeDefined();
        expect(c.client.getInstructions()).toContain('Solana');
      } finally {
        await c.close();
      }
    });

    test('tools/list is exactly the registry, then the watch tools: names, input and output schemas, price in the description', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        const { tools } = await c.client.listTools();
        expect(tools.map((t) => t.name)).toEqual([...CAPABILITIES.map((cap) => cap.tool), ...gw.services.extraTools.tools.map((t) => t.name)]);
        for (const cap of CAPABILITIES) {
          const tool = tools.find((t) => t.name === cap.tool)!;
          expect(tool.inputSchema as object).toEqual(compactSchema(inputSchema(cap), true));
          expect(tool.outputSchema).toEqual(compactSchema(successSchema(cap)));
          expect(tool.description).toStartWith(cap.summary);
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

    test('every one of the nine tools answers SUCCESS, its structuredContent the same JSON as its text', async () => {
      const { key, wallet } = await fundedKey(gw, chain, 20 * PRICE);
      const other = await chain.newWallet(5_000_000_000n);
      const signature = await chain.transferSol(other, chain.payer.address, 1_000_000n);
      const transaction = transferTx(other.address, chain.payer.address, 1000n);
      const args: Record<string, Record<string, unknown>> = {
        get_chain_balance: { wallet },
        get_chain_blockhash: {},
        get_token_accounts: { wallet },
        get_recent_transactions: { wallet: other.address, limit: 2 },
        find_ata: { wallet, mint },
        token_profile: { mint },
        optimal_fee: {},
        decode_tx: { signature },
        simulate_chain_transaction: { transaction },
      };
      expect(Object.keys(args).sort()).toEqual(CAPABILITIES.map((c) => c.tool).sort());
      const c = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        await c.client.listTools(); // clients validate structuredContent against the listed output schemas
        for (const [name, a] of Object.entries(args)) {
          const r = await c.call(name, a);
          expect({ name, isError: r.isError, status: r.body?.live_status }).toEqual({ name, isError: false, status: 'SUCCESS' });
          expect(r.result.structuredContent).toEqual(JSON.parse(r.text));
        }
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
        expect(r.result._meta[META_HTTP]).toMatchObject({ status: 200, headers: { 'x-credits-remaining': String(2 * PRICE) } });
        expect(Object.keys(r.result._meta).filter((k) => !k.includes('/'))).toEqual([]); // no unprefixed keys
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

    test.if(hasSessions(kind))('a session opened with a key takes no other key: refused, nothing charged to either', async () => {
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

    // Every real client lists tools first, and from then on the official clients validate a result's
    // structuredContent against the tool's output schema, isError or not: a refusal must carry none
    // that fails it, or the client throws -32602 instead of showing the 402.
    test('after tools/list, a paid tool without a key, with an unknown key and with no credit left: a clean isError refusal, its text exactly the REST 402 JSON', async () => {
      const owner = await chain.newWallet(1_000_000n);
      const path = `/api/chain/find-ata?wallet=${owner.address}&mint=${mint}`;
      const broke = await fundedKey(gw, chain, PRICE);
      const keyed = await connectMcp(gw.url, kind, { headers: { 'x-api-key': broke.key } });
      expect((await keyed.call('find_ata', { wallet: owner.address, mint })).isError).toBe(false);
      const refusals: [string, string | undefined, McpTestClient][] = [
        ['no key', undefined, await connectMcp(gw.url, kind)],
        ['unknown key', 'cig_NotAKeyThisGatewayEverIssued1111111111111', await connectMcp(gw.url, kind, { headers: { 'x-api-key': 'cig_NotAKeyThisGatewayEverIssued1111111111111' } })],
        ['no credit', broke.key, keyed],
      ];
      try {
        for (const [why, key, c] of refusals) {
          const { tools } = await c.client.listTools();
          expect(tools.find((t) => t.name === 'find_ata')?.outputSchema).toBeDefined();
          const r = await c.call('find_ata', { wallet: owner.address, mint });
          const viaRest = await rest(path, key);
          expect({ why, status: viaRest.status }).toEqual({ why, status: 402 });
          expect({ why, isError: r.isError }).toEqual({ why, isError: true });
          expect(r.result.structuredContent).toBeUndefined();
          expect(r.text).toBe(viaRest.text);
          expect(r.body).toMatchObject({ error: 'Payment required', priceLamports: PRICE, payTo: gw.config.gatewayAddress });
          expect(r.result._meta[META_HTTP].status).toBe(402);
          expect(r.result._meta[META_PAYMENT]).toMatchObject({ priceLamports: PRICE, payTo: gw.config.gatewayAddress, keyHeader: 'x-api-key' });
        }
        expect(await credit(broke.key)).toBe(0);
      } finally {
        for (const [, , c] of refusals) await c.close();
      }
    });

    test('resources: the price and how to pay, and each tool documented; prompts built on the tools', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        const { resources } = await c.client.listResources();
        expect(resources.map((r) => r.uri).sort()).toEqual(['gateway://pricing', ...CAPABILITIES.map((cap) => `gateway://tools/${cap.tool}`)].sort());
        const pricing = (await c.client.readResource({ uri: 'gateway://pricing' })).contents[0] as { text: string };
        expect(pricing.text).toContain(`${PRICE} lamports`);
        expect(pricing.text).toContain(gw.config.gatewayAddress!);
        expect(pricing.text).toContain('/api/keys/claim');
        const doc = (await c.client.readResource({ uri: 'gateway://tools/find_ata' })).contents[0] as { text: string };
        expect(doc.text).toContain('`wallet` (required)');
        expect(doc.text).toContain('/api/chain/find-ata');
        await expect(c.client.readResource({ uri: 'gateway://nothing' })).rejects.toThrow(/not found/);

        const { prompts } = await c.client.listPrompts();
        expect(prompts.map((p) => p.name).sort()).toEqual(['assess_token_risk', 'explain_transaction', 'wallet_overview']);
        const risk = await c.client.getPrompt({ name: 'assess_token_risk', arguments: { mint } });
        const text = (risk.messages[0]!.content as { text: string }).text;
        expect(text).toContain(mint);
        expect(text).toContain('token_profile');
        const missing = (await c.client.getPrompt({ name: 'explain_transaction', arguments: {} }).catch((e: unknown) => e)) as { code?: number };
        expect(missing.code).toBe(-32602);
      } finally {
        await c.close();
      }
    });

    test('invalid arguments are -32602 with one clear message, examples as tool arguments, and the 400 body as data; they cost nothing', async () => {
      const { key, wallet } = await fundedKey(gw, chain, PRICE);
      const c = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        const rejected = async (name: string, args: Record<string, unknown>) => {
          const e = (await c.client.callTool({ name, arguments: args }).then(
            () => null,
            (err: unknown) => err,
          )) as { code?: number; message: string; data?: any } | null;
          expect(e).not.toBeNull();
          expect(e!.code).toBe(-32602);
          expect(e!.message.match(/-32602/g)?.length ?? 0).toBeLessThanOrEqual(1); // never "MCP error -32602: MCP error -32602"
          expect(e!.message).not.toMatch(/ZodError|at .*\.ts|stack|\[\s*\{/); // no internals
          return e!;
        };
        const bad = await rejected('find_ata', { wallet: 'not-a-wallet', mint });
        expect(bad.message).toContain('Invalid arguments for tool find_ata: Invalid wallet');
        expect(bad.data).toMatchObject({ error: 'Invalid wallet', live_status: 'FAILED' });
        const viaRest = await rest(`/api/chain/find-ata?wallet=not-a-wallet&mint=${mint}`, key);
        expect(viaRest.status).toBe(400);
        // The same refusal, its example in the words of each face: a URL for REST, tool arguments for MCP.
        expect({ ...bad.data, hint: undefined }).toEqual({ ...viaRest.body, hint: undefined });
        expect(viaRest.body.hint).toContain('Example: /api/chain/find-ata?wallet=');
        expect(bad.data.hint).toContain('Example: arguments {"wallet": "');
        const missing = await rejected('find_ata', { wallet });
        expect(missing.message).toContain('Missing parameters');
        expect(missing.message).toMatch(/mint is required\. Example: arguments \{"wallet": "\w+", "mint": "\w+"\}$/);
        const limit = await rejected('get_recent_transactions', { wallet, limit: 1000 });
        expect(limit.message).toMatch(/limit must be a whole number from 1 to 100\. Example: arguments \{"wallet": "\w+", "limit": 10\}$/);
        for (const e of [bad, missing, limit]) expect(e.message).not.toContain('/api/');
        expect((await rejected('get_chain_balance', { wallet, network: 'testnet' })).message).toContain('Invalid network');
        const extra = await rejected('find_ata', { wallet, mint, bogus: 1 });
        expect(extra.message).toContain('unknown argument bogus');
        expect(await credit(key)).toBe(PRICE);
      } finally {
        await c.close();
      }
    });

    test('an unknown tool is -32602 naming the tools, its prefix not doubled', async () => {
      const c = await connectMcp(gw.url, kind);
      try {
        const e = (await c.client.callTool({ name: 'no_such_tool', arguments: {} }).catch((err: unknown) => err)) as { code?: number; message: string };
        expect(e.code).toBe(-32602);
        expect(e.message).toMatch(/Unknown tool no_such_tool\. Tools: get_chain_balance, /);
        expect(e.message).not.toMatch(/-32602.*-32602/);
      } finally {
        await c.close();
      }
    });
  });
}

describe('rate limits', () => {
  test('MCP and REST draw from the same bucket; over it a tool answers the REST 429 JSON as isError', async () => {
    const limited = await startGateway({ mainnetRpcUrls: [chain.url], devnetRpcUrls: [chain.url], rateLimitRps: 0.01, rateLimitBurst: 16 });
    const clients = await Promise.all(['sse', 'streamable-http', 'v2-2026-07-28'].map((k) => connectMcp(limited.url, k as 'sse')));
    try {
      expect((await clients[0]!.call('get_chain_blockhash')).isError).toBe(false);
      expect((await clients[1]!.call('get_chain_blockhash')).isError).toBe(false);
      expect((await clients[2]!.call('get_chain_blockhash')).isError).toBe(false);
      // Drain what is left of the bucket over REST.
      let viaRest = await limited.get('/api/chain/blockhash');
      for (let i = 0; i < 12 && viaRest.status === 200; i++) viaRest = await limited.get('/api/chain/blockhash');
      expect(viaRest.status).toBe(429);
      for (const c of clients) {
        const r = await c.call('get_chain_blockhash');
        expect(r.isError).toBe(true);
        expect(r.body).toEqual(viaRest.body);
        expect(r.result._meta[META_HTTP]).toMatchObject({ status: 429, headers: { 'retry-after': expect.any(String) } });
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
