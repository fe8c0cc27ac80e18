// A paid MCP call whose answer never reaches its client (a legacy SSE client that stopped reading,
// its session closed over the output budget) is refunded, and the records say so: the usage row
// reads refunded, and the refunded-lamports metric counts it. Over the wire, with a client that
// really stops reading (a Node process holding the socket), on both stores; and when the gateway
// stops with such answers still queued.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner } from '@solana/kit';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { fundedKey } from '../support/agent.ts';
import { openStalledSessions, type StalledClients } from '../support/stalled-sse.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { newCallId } from '../../src/billing/resilience/call-id.ts';

const PRICE = 1000;
const CREDIT = 100_000_000; // above the minimum deposit

const sandbox = sandboxGateways();
const stalled: StalledClients[] = [];

afterAll(() => {
  for (const c of stalled) c.kill();
});

for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('mcp-undelivered'))(`on ${backend}`, () => {
    let gw: TestGateway;

    beforeAll(async () => {
      gw = await sandbox.gateway({
        gatewayAddress: (await generateKeyPairSigner()).address,
        webhookSecret: 'undelivered-secret',
        priceLamports: PRICE,
        freeCalls: 0,
        databaseUrl: backend === 'postgres' ? await freshDatabase() : undefined,
      });
      expect(gw.services.store.backend).toBe(backend);
    }, POSTGRES_HOOK_TIMEOUT_MS);

    const metric = async (name: string) => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    };

    test('answers a stalled SSE client never took are refunded, and their usage rows and the metrics say so', async () => {
      const { key } = await fundedKey(gw, sandbox.chain, CREDIT);
      const refundedBefore = await metric('gateway_refunded_lamports_total');
      const clients = await openStalledSessions(gw.url, 1);
      stalled.push(clients);
      const endpoint = clients.endpoints[0]!;
      const post = async (body: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(gw.url + endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        return res.status;
      };
      expect(
        await post({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2024-11-05',
            capabilities: {},
            clientInfo: { name: 'stalled', version: '1' },
          },
        }),
      ).toBe(202);

      // Large answers until the socket is full and output waits in the session's own queue; then 20
      // paid calls, whose answers wait behind it; then large answers until the queue passes its budget
      // and the session is closed (404).
      const session = gw.services.mcp.get(endpoint.split('sessionId=')[1]);
      expect(session?.kind).toBe('sse');
      const stream = session!.kind === 'sse' ? session!.stream : undefined;
      let id = 1;
      for (let i = 0; i < 500 && stream!.pendingBytes === 0; i++) expect(await post({ jsonrpc: '2.0', id: id++, method: 'tools/list' })).toBe(202);
      expect(stream!.pendingBytes).toBeGreaterThan(0);
      const paid = 20;
      for (let i = 0; i < paid; i++)
        expect(
          await post(
            {
              jsonrpc: '2.0',
              id: id++,
              method: 'tools/call',
              params: { name: 'optimal_fee', arguments: {} },
            },
            { 'x-api-key': key },
          ),
        ).toBe(202);
      let status = 202;
      for (let i = 0; i < 100 && status === 202; i++) status = await post({ jsonrpc: '2.0', id: id++, method: 'tools/list' });
      expect(status).toBe(404);

      // Every accepted paid call was charged once and, if its answer never left, given back.
      const usage = async () =>
        (await gw.get('/api/keys/me/usage?limit=100', { 'x-api-key': key })).body.calls as {
          face: string;
          refunded: boolean;
          status: number;
          lamports: number;
        }[];
      let rows = await usage();
      for (let i = 0; i < 100 && rows.filter((r) => r.refunded).length < paid; i++) {
        await Bun.sleep(20);
        rows = await usage();
      }
      const me = (await gw.get('/api/keys/me', { 'x-api-key': key })).body;
      const kept = (CREDIT - Number(me.creditLamports)) / PRICE;
      const refunds = paid - kept;
      expect(refunds).toBe(paid); // every paid answer was still queued when the session closed
      expect(rows).toHaveLength(paid);
      expect(rows.every((r) => r.face === 'mcp' && r.status === 200 && Number(r.lamports) === PRICE)).toBe(true);
      expect(rows.filter((r) => r.refunded)).toHaveLength(refunds);
      expect(rows.filter((r) => !r.refunded)).toHaveLength(kept);
      expect((await metric('gateway_refunded_lamports_total')) - refundedBefore).toBe(refunds * PRICE);
    });

    test('20 calls alike in every column, refunded at once: each marks its own row', async () => {
      const wallet = (await generateKeyPairSigner()).address;
      const debit = () => ({ callId: newCallId(), wallet, kind: 'credit' as const, price: PRICE, balance: { freeCalls: 0, creditLamports: 0n } });
      const call = { capability: 'optimal-fee', face: 'mcp' as const, at: Date.now(), status: 200, refunded: false };
      const marks = Array.from({ length: 20 }, () => gw.services.usage.record(debit(), call));
      // Written first (as a call's row is by the time its answer turns out undelivered), then marked all at once.
      await Bun.sleep(300);
      for (const m of marks) m.refunded();
      let rows: { refunded: boolean }[] = [];
      for (let i = 0; i < 100; i++) {
        rows = (await gw.services.usage.page(wallet, 100)).items;
        if (rows.filter((r) => r.refunded).length === 20) break;
        await Bun.sleep(20);
      }
      expect(rows).toHaveLength(20);
      expect(rows.filter((r) => r.refunded)).toHaveLength(20);
    });
  });
}

// A graceful stop closes every event stream, which refunds the answers still queued in them; a call
// still running then ends on a closed stream and is refunded too. All of it, and the usage rows
// that say so, must be written before the database closes: read back after a restart.
for (const backend of ['sqlite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && shouldSkipPostgres('mcp-undelivered'))(`stopping on ${backend}`, () => {
    test('answers still queued when the gateway stops are refunded, and their usage rows say so after a restart', async () => {
      const settings = {
        gatewayAddress: (await generateKeyPairSigner()).address,
        webhookSecret: 'undelivered-secret',
        priceLamports: PRICE,
        freeCalls: 0,
        ...sandbox.rpcUrls,
        databaseUrl: backend === 'postgres' ? await freshDatabase() : undefined,
      };
      const gw = await startGateway(settings, { keepFiles: true });
      const { key } = await fundedKey(gw, sandbox.chain, CREDIT);
      const clients = await openStalledSessions(gw.url, 1);
      stalled.push(clients);
      const endpoint = clients.endpoints[0]!;
      const post = async (body: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(gw.url + endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
        await res.arrayBuffer();
        return res.status;
      };
      expect(await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'stalled', version: '1' } } })).toBe(202);
      const session = gw.services.mcp.get(endpoint.split('sessionId=')[1]);
      const stream = session!.kind === 'sse' ? session!.stream : undefined;
      let id = 1;
      for (let i = 0; i < 500 && stream!.pendingBytes === 0; i++) expect(await post({ jsonrpc: '2.0', id: id++, method: 'tools/list' })).toBe(202);
      const paid = 20;
      for (let i = 0; i < paid; i++) {
        expect(await post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'optimal_fee', arguments: {} } }, { 'x-api-key': key })).toBe(202);
      }
      // At once: the last calls are still running when their session closes.
      await gw.stop();

      const again = await startGateway({ ...settings, databasePath: join(gw.dir, 'gateway.sqlite') });
      try {
        const me = (await again.get('/api/keys/me', { 'x-api-key': key })).body;
        const rows = (await again.get('/api/keys/me/usage?limit=100', { 'x-api-key': key })).body.calls as { refunded: boolean; lamports: number }[];
        expect(Number(me.creditLamports)).toBe(CREDIT);
        expect(rows).toHaveLength(paid);
        expect(rows.filter((r) => r.refunded)).toHaveLength(paid);
      } finally {
        await again.stop();
        rmSync(gw.dir, { recursive: true, force: true });
      }
    }, POSTGRES_HOOK_TIMEOUT_MS);
  });
}
