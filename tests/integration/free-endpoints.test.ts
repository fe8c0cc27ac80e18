// The two free capabilities through the real server, against the sandbox chain.
import { beforeAll, describe, expect, test } from 'bun:test';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';

const sandbox = sandboxGateways();
let gw: TestGateway;

beforeAll(async () => {
  gw = await sandbox.gateway();
});

describe('balance', () => {
  test("returns the wallet's real balance in lamports and SOL", async () => {
    const wallet = await sandbox.chain.newWallet(1_234_567_891n);
    const res = await gw.get(`/api/chain/balance?wallet=${wallet.address}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ wallet: wallet.address, balance_lamports: 1_234_567_891, balance_sol: 1.234567891, network: 'mainnet-beta', live_status: 'SUCCESS' });
    expect(Number.isInteger(res.body.slot)).toBe(true);
  });

  test('follows a real transfer', async () => {
    const from = await sandbox.chain.newWallet(3_000_000_000n);
    const to = await sandbox.chain.newWallet(1_000_000_000n);
    await sandbox.chain.transferSol(from, to.address, 500_000_000n);
    const res = await gw.get(`/api/chain/balance?wallet=${to.address}&network=devnet`);
    expect(res.body.balance_lamports).toBe(1_500_000_000);
    expect(res.body.network).toBe('devnet');
  });

  test('an address that never existed has a zero balance', async () => {
    const res = await gw.get('/api/chain/balance?wallet=Gk2nyyTPnpyd2Y8ppuE4Jn1pL1DBX3FeVMGcCEZC8fXq');
    expect(res.status).toBe(200);
    expect(res.body.balance_lamports).toBe(0);
  });

  test('the /api/solana alias serves the same route', async () => {
    const wallet = await sandbox.chain.newWallet(42_000_000n);
    const res = await gw.get(`/api/solana/balance?wallet=${wallet.address}`);
    expect(res.status).toBe(200);
    expect(res.body.balance_lamports).toBe(42_000_000);
  });
});

describe('blockhash', () => {
  test("returns the chain's latest blockhash and its last valid block height", async () => {
    const res = await gw.get('/api/chain/blockhash');
    expect(res.status).toBe(200);
    const rpc = await fetch(sandbox.chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'finalized' }] }),
    }).then((r) => r.json() as Promise<any>);
    expect(res.body.blockhash).toBe(rpc.result.value.blockhash);
    expect(res.body.lastValidBlockHeight).toBe(rpc.result.value.lastValidBlockHeight);
    expect(res.body).toMatchObject({ network: 'mainnet-beta', live_status: 'SUCCESS' });
  });

  test('100 concurrent identical requests reach the upstream at most twice', async () => {
    await Bun.sleep(1100); // let the 1 s cache entry from earlier tests expire
    sandbox.chain.resetCalls();
    const results = await Promise.all(Array.from({ length: 100 }, () => gw.get('/api/chain/blockhash?network=devnet')));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.blockhash)).size).toBe(1);
    expect(sandbox.chain.calls('getLatestBlockhash')).toBeGreaterThanOrEqual(1);
    expect(sandbox.chain.calls('getLatestBlockhash')).toBeLessThanOrEqual(2);
  });
});

describe('bad input is a 400 with a hint, and never reaches the chain', () => {
  const cases: [string, string, string][] = [
    ['missing wallet', '/api/chain/balance', 'Missing parameters'],
    ['empty wallet', '/api/chain/balance?wallet=', 'Missing parameters'],
    ['wallet not base58', '/api/chain/balance?wallet=0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', 'Invalid wallet'],
    ['wallet of the wrong length', '/api/chain/balance?wallet=abc', 'Invalid wallet'],
    ['wallet that is a signature', '/api/chain/balance?wallet=2NPwsoX7NyfarDBhGDrewJKdNccVS1X9dX2uWCtTMRamXhzXk8PHnGL25yneF5rmR7LPSXH8gKciSgPAe9nP7VU4', 'Invalid wallet'],
    ['unknown network on balance', '/api/chain/balance?wallet=8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H&network=testnet', 'Invalid network'],
    ['unknown network on blockhash', '/api/chain/blockhash?network=MAINNET', 'Invalid network'],
  ];
  for (const [name, path, error] of cases) {
    test(name, async () => {
      sandbox.chain.resetCalls();
      const res = await gw.get(path);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(error);
      expect(res.body.live_status).toBe('FAILED');
      expect(res.body.hint).toContain('/api/chain/');
      expect(sandbox.chain.calls()).toBe(0);
    });
  }

  test('the hint of an unknown network names both allowed values', async () => {
    const res = await gw.get('/api/chain/blockhash?network=solana');
    expect(res.body.hint).toContain('mainnet-beta');
    expect(res.body.hint).toContain('devnet');
  });
});

describe('HTTP edges', () => {
  test('unknown routes get a JSON 404', async () => {
    const res = await gw.get('/api/chain/nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not found');
  });

  test('a body over 64 KiB is refused with 413 before anything runs', async () => {
    const res = await gw.post('/api/keys/claim', JSON.stringify({ wallet: 'x'.repeat(70 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body.error).toContain('too large');
  });

  test('a chunked body that grows past 64 KiB is cut off with a JSON 413, on every route that takes a body', async () => {
    for (const path of ['/api/chain/simulate', '/api/keys/claim', '/mcp']) {
      const chunk = new TextEncoder().encode('{"transaction": "' + 'A'.repeat(16 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const res = await fetch(gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: string }).error).toContain('too large');
    }
  });

  test('malformed JSON is a 400, not a 5xx', async () => {
    const res = await gw.post('/api/keys/claim', '{"wallet": ');
    expect(res.status).toBe(400);
    expect(res.body.live_status).toBe('FAILED');
  });

  test('a body of only whitespace is malformed JSON, with a length or chunked, on every route that takes a body', async () => {
    const chunked = () => new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new TextEncoder().encode(' \n\t ')), c.close()) });
    for (const path of ['/api/chain/simulate', '/api/keys/claim', '/mcp']) {
      for (const body of [' \n\t ', chunked()]) {
        const res = await fetch(gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
        expect(res.status).toBe(400);
        // MCP answers in JSON-RPC's words (tests/integration/mcp-protocol.test.ts).
        const answer = (await res.json()) as { error: string | { code: number } };
        if (path === '/mcp') expect(answer.error).toMatchObject({ code: -32700 });
        else expect(answer.error).toBe('Malformed request body');
      }
    }
  });

  test('healthz answers and checks the database', async () => {
    const res = await gw.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });
});
