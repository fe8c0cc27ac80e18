// Usage history through the real server: calls made over REST and both MCP transports (official SDK
// clients) show up at GET /api/keys/me/usage, newest first, paged, with what each cost.
import { beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { connectMcp } from '../support/mcp.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

const PRICE = 2_200_000;
const SECRET = 'usage-webhook-secret';

const sandbox = sandboxGateways({ mint: true });
let gw: TestGateway;

beforeAll(async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  gw = await sandbox.gateway({ gatewayAddress, webhookSecret: SECRET, freeCalls: 1 });
});

const usage = (key: string | undefined, query = '') => gw.get(`/api/keys/me/usage${query}`, key ? { 'x-api-key': key } : {});

describe('usage history', () => {
  let key: string;
  let wallet: Address;
  const made: { capability: string; face: string; paidWith: string; lamports: number; refunded: boolean; status: number }[] = [];

  beforeAll(async () => {
    ({ key, wallet } = await fundedKey(gw, sandbox.chain, 10 * PRICE));
  });

  test('matches the calls made, in order, across REST and MCP; calls that cost nothing are not listed', async () => {
    const headers = { 'x-api-key': key };
    // REST, paid by the one free call.
    expect((await gw.get(`/api/chain/find-ata?wallet=${wallet}&mint=${sandbox.mint}`, headers)).status).toBe(200);
    made.push({ capability: 'find-ata', face: 'rest', paidWith: 'free_call', lamports: 0, refunded: false, status: 200 });
    // Rejected input (400) and free capabilities cost nothing and are not history.
    expect((await gw.get('/api/chain/find-ata?wallet=nope', headers)).status).toBe(400);
    expect((await gw.get(`/api/chain/balance?wallet=${wallet}`, headers)).status).toBe(200);

    const sse = await connectMcp(gw.url, 'sse', { headers });
    expect((await sse.call('token_profile', { mint: sandbox.mint })).isError).toBe(false);
    made.push({ capability: 'token-profile', face: 'mcp', paidWith: 'credit', lamports: PRICE, refunded: false, status: 200 });
    await sse.close();

    const http = await connectMcp(gw.url, 'streamable-http', { headers });
    // A mint that does not exist: charged, then refunded (404).
    const missing = (await generateKeyPairSigner()).address;
    const miss = await http.call('find_ata', { wallet, mint: missing });
    expect(miss.isError).toBe(true);
    made.push({ capability: 'find-ata', face: 'mcp', paidWith: 'credit', lamports: PRICE, refunded: true, status: 404 });
    expect((await http.call('get_token_accounts', { wallet })).isError).toBe(false);
    made.push({ capability: 'token-accounts', face: 'mcp', paidWith: 'credit', lamports: PRICE, refunded: false, status: 200 });
    await http.close();

    expect((await gw.get(`/api/chain/transactions?wallet=${wallet}&limit=2`, headers)).status).toBe(200);
    made.push({ capability: 'transactions', face: 'rest', paidWith: 'credit', lamports: PRICE, refunded: false, status: 200 });

    const res = await usage(key);
    expect(res.status).toBe(200);
    expect(res.body.wallet).toBe(wallet);
    expect(res.body.nextCursor).toBeNull();
    const calls = res.body.calls as any[];
    expect(calls.map(({ capability, face, paidWith, lamports, refunded, status }) => ({ capability, face, paidWith, lamports, refunded, status }))).toEqual(
      [...made].reverse(),
    );
    const now = Date.now() / 1000;
    for (const c of calls) expect(Math.abs(c.time - now)).toBeLessThan(60);
    // What the history says was spent is what the account lost.
    const spent = calls.filter((c) => !c.refunded).reduce((sum, c) => sum + c.lamports, 0);
    const me = await gw.get('/api/keys/me', headers);
    expect(me.body.creditLamports).toBe(10 * PRICE - spent);
  });

  test('pages newest first with a cursor, and the pages join up to the whole list', async () => {
    const all = (await usage(key)).body.calls as any[];
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await usage(key, `?limit=2${cursor ? `&before=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.calls.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.calls);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect(seen).toEqual(all);
  });

  test('without a valid key: 401, and no one sees another wallet\'s history', async () => {
    expect((await usage(undefined)).status).toBe(401);
    expect((await usage('cig_notakey')).status).toBe(401);
    const other = await fundedKey(gw, sandbox.chain, PRICE);
    const res = await usage(other.key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ wallet: other.wallet, calls: [], nextCursor: null });
  });

  test('bad paging parameters are 400 with a hint', async () => {
    for (const q of ['?limit=0', '?limit=101', '?limit=abc', '?limit=-1', '?before=0', '?before=1e3', '?before=', `?before=${'9'.repeat(40)}`]) {
      const res = await usage(key, q);
      expect(res.status, q).toBe(400);
      expect(res.body.hint).toContain('limit');
    }
  });

  test('rows older than USAGE_RETENTION_DAYS are not shown (pruning: tests/unit/usage-prune.test.ts)', async () => {
    const s = gw.services;
    const owner = (await s.payments.identify(key))!;
    const longAgo = Date.now() - (s.config.usageRetentionDays + 1) * 86_400_000;
    const before = (await usage(key)).body.calls.length;
    s.usage.record({ callId: newCallId(), wallet: owner.wallet, kind: 'credit', price: PRICE, balance: { freeCalls: 0, creditLamports: 0n } }, {
      capability: 'decode-tx',
      face: 'rest',
      at: longAgo,
      status: 200,
      refunded: false,
    });
    expect((await usage(key)).body.calls.length).toBe(before);
  });
});
