// The API contract held against live answers: every route of the OpenAPI document is called on
// the real server (loopback, sandbox chain, a key bought with a real deposit) for its success and
// for each error it documents, and every body is validated against the documented schema with a
// JSON Schema 2020-12 validator. At the end, every documented (operation, status) pair must have
// been seen: a status the document promises but no test produced fails here, as does a status the
// server answers but the document does not list.
import { beforeAll, describe, expect, test } from 'bun:test';
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
import Ajv2020 from 'ajv/dist/2020.js';
import { inputSchema, successSchema } from '../../src/capabilities/capability.ts';
import { EXAMPLE_WALLET } from '../../src/capabilities/examples.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { EXAMPLES } from '../../src/capabilities/recorded-examples.ts';
import { resultSchemaName } from '../../src/http/openapi.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { claim, fundedKey, heliusPayload, signChallenge } from '../support/agent.ts';
import { closeSchema } from '../support/closed-schema.ts';

const PRICE = 2_200_000;
/** These tests make many real chain transactions and calls; a loaded machine needs more than the default 5 s. */
const SLOW = 60_000;
const SECRET = 'whsec_contract';

const sandbox = sandboxGateways();
let gw: TestGateway;
let doc: any;
let H: Record<string, string>;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
/** operationId -> statuses answered and validated. */
const seen = new Map<string, Set<string>>();

type Answer = { status: number; body: any; headers: Headers; text: string };

async function request(base: string, method: string, path: string, opts: { body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    body: opts.body,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers, text };
}

const deref = (node: any): any => {
  if (!node?.$ref) return node;
  return deref((node.$ref as string).slice(2).split('/').reduce((o: any, k: string) => o[k], doc));
};

const closedValidators = new Map<string, ReturnType<Ajv2020['compile']>>();
const closed = (ref: string) => {
  if (!closedValidators.has(ref)) closedValidators.set(ref, new Ajv2020({ strict: false, allErrors: true }).compile(closeSchema(deref({ $ref: ref }))));
  return closedValidators.get(ref)!;
};

/** Calls a route and checks the answer against what the document says for that status. */
/** The documented path a concrete one falls under: itself, or a template such as /api/watches/{id}. */
const documentedPath = (route: string): string =>
  doc.paths[route] ? route : (Object.keys(doc.paths).find((p) => p.includes('{') && new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(route)) ?? route);

async function check(
  expected: number,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; base?: string } = {},
): Promise<Answer> {
  const answer = await request(opts.base ?? gw.url, method, path, {
    headers: opts.headers,
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const route = documentedPath(path.split('?')[0]!);
  const op = doc.paths[route]?.[method.toLowerCase()];
  expect(op, `${method} ${route} is documented`).toBeDefined();
  if (answer.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${answer.status} ${answer.text.slice(0, 300)}`);
  const response = deref(op.responses[String(answer.status)]);
  expect(response, `${op.operationId} documents ${answer.status}`).toBeDefined();
  if (!response.content) {
    // A documented answer without a body (204).
    expect(answer.text).toBe('');
    if (!seen.has(op.operationId)) seen.set(op.operationId, new Set());
    seen.get(op.operationId)!.add(String(answer.status));
    return answer;
  }
  const [type, media] = Object.entries(response.content as Record<string, any>)[0]!;
  expect(answer.headers.get('content-type') ?? '').toContain(type);
  const validate = media.schema.$ref ? ajv.getSchema(`urn:gateway:openapi${media.schema.$ref}`)! : ajv.compile(media.schema);
  if (!validate(answer.body)) throw new Error(`${op.operationId} ${answer.status}: ${ajv.errorsText(validate.errors)}\n${answer.text.slice(0, 500)}`);
  // A success body may not carry a field its schema does not describe: the schemas stay complete.
  if (answer.status === 200 && media.schema.$ref) {
    const closedCheck = closed(media.schema.$ref);
    if (!closedCheck(answer.body)) throw new Error(`${op.operationId} answers fields its schema does not list: ${ajv.errorsText(closedCheck.errors)}`);
  }
  if (!seen.has(op.operationId)) seen.set(op.operationId, new Set());
  seen.get(op.operationId)!.add(String(answer.status));
  return answer;
}

function transferTx(from: Address, to: Address, lamports: bigint) {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(from, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash('H3asooJct4u6fQmtgTGEKrBhhuSnaHJoYJuB4N1eNG4z'), lastValidBlockHeight: 1n }, m),
    (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: createNoopSigner(from), destination: to, amount: lamports }), m),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

beforeAll(async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  gw = await sandbox.gateway({ gatewayAddress, webhookSecret: SECRET, freeCalls: 0, rpcRetries: 0, webhookAllowPrivate: true });
  doc = (await gw.get('/openapi.json')).body;
  // Refs in the document (#/components/...) resolve against the document itself.
  ajv.addSchema({ ...doc, $id: 'urn:gateway:openapi' });
  H = { 'x-api-key': (await fundedKey(gw, sandbox.chain, 100 * PRICE)).key };
}, SLOW);

describe('capabilities: success and every documented error validate against the document', () => {
  test('balance and blockhash (free)', async () => {
    const w = await sandbox.chain.newWallet(1_234_567_890n);
    const balance = await check(200, 'GET', `/api/chain/balance?wallet=${w.address}`);
    // Exact: never 1.2345678900000001 (floating-point lamports / 1e9).
    expect(balance.text).toContain('"balance_lamports":1234567890,"balance_sol":1.23456789,');
    await check(200, 'GET', `/api/chain/balance?wallet=${w.address}&network=devnet`);
    await check(400, 'GET', '/api/chain/balance?wallet=nope');
    await check(200, 'GET', '/api/chain/blockhash');
    await check(400, 'GET', '/api/chain/blockhash?network=testnet');
  }, SLOW);

  test('token-accounts, find-ata and token-profile on real mints', async () => {
    const owner = await sandbox.chain.newWallet();
    const mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
    const t22 = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 9, tokenProgram: 'token-2022' });
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, owner.address, 1_500_000n);
    await sandbox.chain.mintTo(t22, sandbox.chain.payer, owner.address, 18_446_744_073_709_551_615n);
    const holdings = await check(200, 'GET', `/api/chain/token-accounts?wallet=${owner.address}`, { headers: H });
    expect(holdings.body.tokenCount).toBe(2);
    await check(200, 'GET', `/api/chain/find-ata?wallet=${owner.address}&mint=${mint}`, { headers: H });
    await check(200, 'GET', `/api/chain/find-ata?wallet=${(await generateKeyPairSigner()).address}&mint=${t22}`, { headers: H });
    await check(404, 'GET', `/api/chain/find-ata?wallet=${owner.address}&mint=${owner.address}`, { headers: H });
    const profile = await check(200, 'GET', `/api/chain/token-profile?mint=${t22}`, { headers: H });
    expect(profile.body.topHolders.length).toBe(1);
    await check(200, 'GET', `/api/chain/token-profile?mint=${mint}`, { headers: H });
    await check(404, 'GET', `/api/chain/token-profile?mint=${(await generateKeyPairSigner()).address}`, { headers: H });
  }, SLOW);

  test('transactions, decode-tx and simulate on real transactions', async () => {
    const from = await sandbox.chain.newWallet(3_000_000_000n);
    const to = (await generateKeyPairSigner()).address;
    const sig = await sandbox.chain.transferSol(from, to, 123_456_789n, { memo: 'contract' });
    const failed = await sandbox.chain.failingTransaction(from);
    const list = await check(200, 'GET', `/api/chain/transactions?wallet=${from.address}&limit=1`, { headers: H });
    expect(list.body.nextBefore).not.toBeNull();
    await check(200, 'GET', `/api/chain/transactions?wallet=${from.address}&before=${list.body.nextBefore}`, { headers: H });
    await check(200, 'GET', `/api/chain/decode-tx?signature=${sig}`, { headers: H });
    await check(200, 'GET', `/api/chain/decode-tx?signature=${failed}`, { headers: H });
    await check(404, 'GET', `/api/chain/decode-tx?signature=${'1'.repeat(64)}`, { headers: H });
    await check(200, 'POST', '/api/chain/simulate', { headers: H, body: { transaction: transferTx(from.address, to, 1_000n) } });
    await check(200, 'POST', '/api/chain/simulate', { headers: H, body: { transaction: transferTx(to, from.address, 1_000n) } });
    const viaQuery = await check(200, 'POST', '/api/chain/simulate?network=devnet', { headers: H, body: { transaction: transferTx(from.address, to, 1_000n) } });
    expect(viaQuery.body.network).toBe('devnet');
    await check(413, 'POST', '/api/chain/simulate', { headers: H, body: { transaction: 'A'.repeat(70_000) } });
  }, SLOW);

  test('optimal-fee with and without accounts and compute units', async () => {
    const payer = await sandbox.chain.newWallet(1_000_000_000n);
    for (const price of [1_000, 5_000, 20_000]) await sandbox.chain.transferSol(payer, sandbox.chain.payer.address, 1000n, { computeUnitPrice: BigInt(price) });
    await check(200, 'GET', '/api/chain/optimal-fee?computeUnits=200000', { headers: H });
    await check(200, 'GET', `/api/chain/optimal-fee?accounts=${payer.address}`, { headers: H });
  }, SLOW);

  test('every capability: 400 for bad input, 402 without a key, 500 when the node fails', async () => {
    for (const cap of CAPABILITIES) {
      const path = `/api/chain/${cap.name}`;
      const good = Object.fromEntries(Object.entries(cap.params).flatMap(([k, p]) => (p.required ? [[k, p.example!]] : [])));
      const send = (query: Record<string, string>, headers: Record<string, string> = {}) =>
        cap.method === 'GET' ? (status: number) => check(status, 'GET', `${path}?${new URLSearchParams(query)}`, { headers }) : (status: number) => check(status, 'POST', path, { body: query, headers });
      await send({ ...good, network: 'moonnet' }, H)(400);
      if (cap.paid) await send(good)(402);
      if (cap.paid) await send(good, { 'x-api-key': 'cig_notakey' })(402);
      sandbox.chain.fault({ mode: 'rpcError', code: -32603, message: 'node is behind' });
      try {
        // devnet: nothing cached there from the calls above, so the node is really asked.
        await send({ ...good, network: 'devnet' }, H)(500);
      } finally {
        sandbox.chain.fault(null);
      }
    }
  }, SLOW);
});

describe('watch routes', () => {
  test('create, list, read, pull, replay, delete: every documented answer', async () => {
    const other = await sandbox.chain.newWallet();
    const watched = await sandbox.chain.newWallet();
    await check(402, 'POST', '/api/watches', { body: { wallets: [watched.address] } });
    await check(402, 'GET', '/api/watches');
    await check(400, 'POST', '/api/watches', { body: { wallets: ['nope'] }, headers: H });
    const made = (await check(201, 'POST', '/api/watches', { body: { wallets: [watched.address], webhookUrl: 'http://127.0.0.1:9/hook', commitment: 'finalized' }, headers: H })).body;
    expect(made.secret).toMatch(/^whsec_/);
    const pull = (await check(201, 'POST', '/api/watches', { body: { wallets: [other.address] }, headers: H })).body;
    await check(200, 'GET', '/api/watches', { headers: H });
    await check(200, 'GET', `/api/watches/${made.id}`, { headers: H });
    await check(404, 'GET', '/api/watches/wch_000000000000000000000000', { headers: H });
    await gw.services.watches.recordActivity('mainnet-beta', other.address, { signature: '5'.repeat(87), slot: 1, blockTime: 1_700_000_000, commitment: 'confirmed', item: { summary: 'Received 1 SOL' } });
    expect((await check(200, 'GET', `/api/watches/${pull.id}/events?after=0&limit=10`, { headers: H })).body.events.length).toBe(1);
    await check(400, 'GET', `/api/watches/${pull.id}/events?limit=0`, { headers: H });
    await check(404, 'GET', '/api/watches/wch_000000000000000000000000/events', { headers: H });
    await check(200, 'POST', `/api/watches/${made.id}/replay`, { body: { after: '0' }, headers: H });
    await check(400, 'POST', `/api/watches/${made.id}/replay`, { body: { after: 'x' }, headers: H });
    await check(404, 'POST', '/api/watches/wch_000000000000000000000000/replay', { body: {}, headers: H });
    await check(204, 'DELETE', `/api/watches/${made.id}`, { headers: H });
    await check(404, 'DELETE', `/api/watches/${made.id}`, { headers: H });
    // WATCH_MAX_PER_KEY (10) live watches: the eleventh is refused.
    for (let i = 0; i < 9; i++) await check(201, 'POST', '/api/watches', { body: { wallets: [(await sandbox.chain.newWallet()).address] }, headers: H });
    await check(409, 'POST', '/api/watches', { body: { wallets: [watched.address] }, headers: H });
  }, SLOW);
});

describe('keys, webhook and meta routes', () => {
  test('challenge, claim and me: success and each documented error', async () => {
    const wallet = await sandbox.chain.newWallet(1_000_000_000n);
    await check(200, 'GET', '/api/keys/challenge');
    await check(400, 'GET', '/api/keys/challenge?wallet=bad');
    const { body } = await check(200, 'GET', `/api/keys/challenge?wallet=${wallet.address}`);
    await check(404, 'POST', '/api/keys/claim', { body: { wallet: wallet.address, signature: await signChallenge(wallet, body.challenge), challenge: body.challenge } });
    await check(400, 'POST', '/api/keys/claim', { body: { wallet: wallet.address } });
    await check(401, 'POST', '/api/keys/claim', { body: { wallet: wallet.address, signature: '1'.repeat(88), challenge: 'ab'.repeat(32) } });
    await check(413, 'POST', '/api/keys/claim', { body: { wallet: 'x'.repeat(70_000) } });
    expect((await check(200, 'GET', `/api/keys/deposit?wallet=${wallet.address}`)).body.status).toBe('none');
    await check(400, 'GET', '/api/keys/deposit?wallet=bad');
    const sig = await sandbox.chain.transferSol(wallet, gw.config.gatewayAddress as Address, BigInt(PRICE));
    await check(200, 'POST', '/api/payments/webhook', { body: heliusPayload(sig, wallet.address, gw.config.gatewayAddress!, PRICE), headers: { authorization: SECRET } });
    expect((await check(200, 'GET', `/api/keys/deposit?wallet=${wallet.address}`)).body.status).toBe('claimable');
    const claimed = await claim({ get: (p) => check(200, 'GET', p), post: (p, b) => check(200, 'POST', p, { body: b }) }, wallet);
    await check(200, 'GET', '/api/keys/me', { headers: { 'x-api-key': claimed.body.apiKey } });
    await check(200, 'GET', '/api/keys/me', { headers: { authorization: `Bearer ${claimed.body.apiKey}` } });
    await check(401, 'GET', '/api/keys/me');
    // Usage: one paid call, then its history, validated like every other answer.
    const key = { 'x-api-key': claimed.body.apiKey };
    expect((await fetch(`${gw.url}/api/chain/transactions?wallet=${wallet.address}`, { headers: key })).status).toBe(200);
    const usage = await check(200, 'GET', '/api/keys/me/usage?limit=5', { headers: key });
    expect(usage.body.calls).toHaveLength(1);
    await check(400, 'GET', '/api/keys/me/usage?limit=0', { headers: key });
    await check(401, 'GET', '/api/keys/me/usage');
  }, SLOW);

  test('webhook: 400, 401, 413, 500 and 404 when disabled', async () => {
    await check(400, 'POST', '/api/payments/webhook', { body: { not: 'an array' }, headers: { authorization: SECRET } });
    await check(401, 'POST', '/api/payments/webhook', { body: [], headers: { authorization: 'wrong' } });
    await check(413, 'POST', '/api/payments/webhook', { body: 'x'.repeat(70_000), headers: { authorization: SECRET } });
    const from = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await sandbox.chain.transferSol(from, gw.config.gatewayAddress as Address, BigInt(PRICE));
    sandbox.chain.fault({ mode: 'rpcError', code: -32603, message: 'node is behind' }, { methods: ['getTransaction'] });
    try {
      await check(500, 'POST', '/api/payments/webhook', { body: heliusPayload(sig, from.address, gw.config.gatewayAddress!, PRICE), headers: { authorization: SECRET } });
    } finally {
      sandbox.chain.fault(null);
    }
    const bare = await startGateway({ mainnetRpcUrls: [sandbox.chain.url] });
    try {
      await check(404, 'POST', '/api/payments/webhook', { body: [], base: bare.url });
    } finally {
      await bare.stop();
    }
  }, SLOW);

  test('meta routes', async () => {
    await check(200, 'GET', '/');
    await check(200, 'GET', '/healthz');
    await check(200, 'GET', '/.well-known/mcp.json');
    await check(200, 'GET', '/discovery/resources?limit=3');
    await check(400, 'GET', '/discovery/resources?limit=0');
    await check(200, 'GET', '/.well-known/mcp/catalog.json');
    await check(200, 'GET', '/.well-known/ai-catalog.json');
    await check(200, 'GET', '/.well-known/jwks.json');
    await check(200, 'GET', '/icon.svg');
    const self = await check(200, 'GET', '/openapi.json');
    expect(self.body.openapi).toBe('3.1.0');
    await check(200, 'GET', '/llms.txt');
    await check(200, 'GET', '/metrics');
    await check(200, 'GET', '/readyz'); // the calls above had upstream answers
    const guarded = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], metricsToken: 'contract-metrics-token' });
    try {
      await check(401, 'GET', '/metrics', { base: guarded.url });
      await check(503, 'GET', '/readyz', { base: guarded.url }); // no upstream has answered it yet
    } finally {
      await guarded.stop();
    }
  }, SLOW);

  test('429 on every rate-limited route once the bucket is empty', async () => {
    const tight = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], rateLimitRps: 0.001, rateLimitBurst: 1 });
    try {
      await check(200, 'GET', '/api/chain/blockhash', { base: tight.url });
      for (const cap of CAPABILITIES) {
        const query = new URLSearchParams(Object.fromEntries(Object.entries(cap.params).flatMap(([k, p]) => (p.required ? [[k, p.example!]] : []))));
        const limited = await check(429, cap.method, `/api/chain/${cap.name}${cap.method === 'GET' ? `?${query}` : ''}`, {
          base: tight.url,
          ...(cap.method === 'POST' ? { body: Object.fromEntries(query) } : {}),
        });
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      await check(429, 'GET', '/api/keys/challenge', { base: tight.url });
      await check(429, 'POST', '/api/keys/claim', { base: tight.url, body: {} });
      await check(429, 'GET', '/api/keys/me', { base: tight.url });
      await check(429, 'GET', `/api/keys/deposit?wallet=${EXAMPLE_WALLET}`, { base: tight.url });
      await check(429, 'GET', '/api/keys/me/usage', { base: tight.url });
    } finally {
      await tight.stop();
    }
  }, SLOW);
});

test('the error examples of the document are real answers', async () => {
  const example = (name: string) => doc.components.responses[name].content['application/json'].example;
  expect((await check(400, 'GET', '/api/chain/balance?wallet=nope')).body).toMatchObject(example('BadRequest'));
  sandbox.chain.fault({ mode: 'rpcError', code: -32005, message: 'Node is behind by 42 slots' });
  try {
    expect((await check(500, 'GET', '/api/chain/balance?wallet=8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H&network=devnet')).body).toMatchObject(example('UpstreamFailure'));
  } finally {
    sandbox.chain.fault(null);
  }
  // One request per 1000 s: the second is refused however slow the machine.
  const tight = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], rateLimitRps: 0.001, rateLimitBurst: 1 });
  try {
    await check(200, 'GET', '/api/chain/blockhash', { base: tight.url });
    const refused = await check(429, 'GET', '/api/chain/blockhash', { base: tight.url });
    expect(refused.body).toEqual({ ...example('TooManyRequests'), hint: refused.body.hint });
    expect(refused.body.hint).toMatch(/^Rate limit reached; retry after \d+ s\.$/);
  } finally {
    await tight.stop();
  }
}, SLOW);

test('every input and output schema is strict JSON Schema 2020-12 (no unknown formats or keywords)', () => {
  const strict = new Ajv2020({ strict: true });
  for (const cap of CAPABILITIES) {
    expect(() => strict.compile(JSON.parse(JSON.stringify(successSchema(cap))))).not.toThrow();
    expect(() => strict.compile(JSON.parse(JSON.stringify(inputSchema(cap))))).not.toThrow();
  }
});

test('the recorded examples in the document validate against their schemas', () => {
  for (const cap of CAPABILITIES) {
    const example = EXAMPLES[cap.name];
    if (!example) continue;
    const validate = ajv.getSchema(`urn:gateway:openapi#/components/schemas/${resultSchemaName(cap)}`)!;
    expect(validate(example.response), `${cap.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
});

test('every route the app serves is in the document, save the alias, MCP and HTML pages', () => {
  // Left out on purpose: /api/solana/* (an alias of /api/chain/*), the MCP transports (JSON-RPC,
  // described in /llms.txt and the manifest), /swagger/json (the same document), HTML pages, their scripts and the favicon.
  const undocumented = /^(\/api\/solana\/|\/mcp(\/|$)|\/swagger\/json$|\/swagger$|\/docs$|\/claim$|\/(docs|claim)\/assets\/|\/favicon\.ico$)/;
  // Elysia names a path parameter :id where the document writes {id}.
  const served = gw.app.routes.filter((r) => !undocumented.test(r.path)).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  const missing = served.filter((route) => {
    const [method, path] = route.split(' ') as [string, string];
    return !doc.paths[path]?.[method.toLowerCase()];
  });
  expect(missing).toEqual([]);
});

test('every documented (operation, status) was answered and validated', () => {
  const documented: string[] = [];
  for (const item of Object.values(doc.paths) as any[]) {
    for (const op of Object.values(item) as any[]) for (const status of Object.keys(op.responses)) documented.push(`${op.operationId} ${status}`);
  }
  const answered = [...seen].flatMap(([op, statuses]) => [...statuses].map((s) => `${op} ${s}`));
  expect(documented.filter((d) => !answered.includes(d)).sort()).toEqual([]);
});
