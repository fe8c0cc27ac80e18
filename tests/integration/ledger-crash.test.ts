// The ledger's durability promise, tested the hard way: the gateway process is killed with
// SIGKILL in the middle of a stream of paid calls, restarted on the same SQLite file, and every
// 2xx answer a client received must still have its debit (with either LEDGER_SYNC setting). And a
// SIGTERM right after paid calls, while their usage rows are still held in memory, loses none.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { claimWhenSeen, deposit, heliusPayload, httpClient } from '../support/agent.ts';
import { freePort, MAIN, sandboxGatewayEnv, waitForHealthy } from '../support/process.ts';

const PRICE = 2_200_000;
const SECRET = 'whsec_crash';
const CONCURRENCY = 16;

const sandbox = sandboxGateways();

function startProcess(env: Record<string, string>) {
  return Bun.spawn(['bun', MAIN], { env: { ...process.env, ...env }, stdout: 'ignore', stderr: 'ignore' });
}

/**
 * A gateway process on a fresh SQLite file, with a key bought the real way for `credit` lamports.
 * `restart` starts it again on the same file and port; `stop` kills it and removes the file.
 */
async function fundedGateway(credit: number, extraEnv: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cig-crash-'));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const env = { PORT: String(port), HOST: '127.0.0.1', ...sandboxGatewayEnv({ chainUrl: sandbox.chain.url, dir, gatewayAddress, webhookSecret: SECRET }), ...extraEnv };
  const g = {
    base,
    http: httpClient(base),
    proc: startProcess(env),
    key: '',
    async restart() {
      g.proc = startProcess(env);
      await waitForHealthy(base);
    },
    async stop() {
      g.proc.kill('SIGKILL');
      await g.proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitForHealthy(base);
    const agent = await sandbox.chain.newWallet(BigInt(2 * credit));
    const sig = await deposit(sandbox.chain, agent, gatewayAddress as Address, BigInt(credit));
    expect((await g.http.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, credit), { authorization: SECRET })).status).toBe(200);
    g.key = await claimWhenSeen(g.http, agent, 0);
  } catch (e) {
    await g.stop();
    throw e;
  }
  return g;
}

describe('kill -9 in the middle of paid calls', () => {
  for (const ledgerSync of ['normal', 'full']) {
    test(`LEDGER_SYNC=${ledgerSync}: after a restart every 2xx answer has its debit, and the credit is exact`, async () => {
      const credit = 1000 * PRICE;
      const g = await fundedGateway(credit, { LEDGER_SYNC: ledgerSync });
      const { base, http, key } = g;
      try {
        // Paid calls from CONCURRENCY clients until SIGKILL cuts them off; count the 2xx received.
        let ok = 0;
        let killed = false;
        const client = async () => {
          while (!killed) {
            try {
              const res = await fetch(base + '/api/chain/optimal-fee', { headers: { 'x-api-key': key } });
              if (res.status === 200) {
                await res.arrayBuffer();
                if (!killed) ok++;
              }
            } catch {
              return; // the process is gone
            }
          }
        };
        const clients = Array.from({ length: CONCURRENCY }, client);
        while (ok < 150) await Bun.sleep(5);
        killed = true;
        g.proc.kill('SIGKILL');
        await g.proc.exited;
        await Promise.all(clients);

        await g.restart();
        const me = await http.get('/api/keys/me', { 'x-api-key': key });
        expect(me.status).toBe(200);
        // Every answer a client saw was debited; at most the calls in flight at the kill were
        // debited without an answer reaching anyone.
        expect(me.body.callsMade).toBeGreaterThanOrEqual(ok);
        expect(me.body.callsMade).toBeLessThanOrEqual(ok + CONCURRENCY);
        expect(me.body.creditLamports).toBe(credit - me.body.callsMade * PRICE);
      } finally {
        await g.stop();
      }
    }, 60_000);
  }
});

describe('a graceful stop right after paid calls', () => {
  test('SIGTERM: usage rows still held in memory are written before exit; after a restart the history lists every call', async () => {
    const g = await fundedGateway(100 * PRICE);
    const { base, http, key } = g;
    try {
      const calls = 30;
      const statuses = await Promise.all(Array.from({ length: calls }, () => fetch(base + '/api/chain/optimal-fee', { headers: { 'x-api-key': key } }).then((r) => r.status)));
      expect(statuses).toEqual(Array(calls).fill(200));
      // At once: the rows of these calls are still held back (up to 100 ms, or until 256 wait).
      g.proc.kill('SIGTERM');
      expect(await g.proc.exited).toBe(0);

      await g.restart();
      const history = await http.get('/api/keys/me/usage?limit=100', { 'x-api-key': key });
      expect(history.status).toBe(200);
      expect(history.body.calls.map((c: { capability: string }) => c.capability)).toEqual(Array(calls).fill('optimal-fee'));
    } finally {
      await g.stop();
    }
  }, 60_000);
});
