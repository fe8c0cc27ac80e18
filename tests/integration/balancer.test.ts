// MCP through a round-robin balancer in front of three replicas: deploy/haproxy.cfg as shipped
// (only its addresses replaced) keeps each stateful session on the replica that holds its stream,
// for Streamable HTTP (learned session id) and legacy SSE (by client address). The same balancer
// without those rules breaks sessions, which shows the rules are what makes it work.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { connectMcp, TRANSPORTS } from '../support/mcp.ts';
import { freshDatabase, POSTGRES_HOOK_TIMEOUT_MS, shouldSkipPostgres } from '../support/postgres.ts';
import { freePort, waitForHealthy } from '../support/process.ts';
import { startReplica, type Replica } from '../support/replicas.ts';

// Real processes and a real database on a busy 2-core machine: seconds, not milliseconds.
setDefaultTimeout(30_000);

const HAPROXY = '/usr/sbin/haproxy';
const CONFIG = join(import.meta.dir, '../../deploy/haproxy.cfg');

function haproxyMissing(): boolean {
  if (existsSync(HAPROXY)) return false;
  if (process.env.CI === 'true') throw new Error('balancer: haproxy is required in CI (apt-get install haproxy)');
  console.warn('SKIPPED balancer: no haproxy (apt-get install haproxy)');
  return true;
}
const skip = shouldSkipPostgres('balancer') || haproxyMissing();

let replicas: Replica[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cig-lb-'));

/** Runs HAProxy with the shipped config pointed at our replicas; `sticky: false` drops the session rules. */
async function balancer(sticky: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  let cfg = readFileSync(CONFIG, 'utf8')
    .replace(/^ {2}bind .*$/m, `  bind 127.0.0.1:${port}`)
    .replace(/^ {2}server .*\n/gm, '')
    .replace(/^backend .*\n/gm, (m) => m + replicas.map((r, i) => `  server gateway-${i + 1} ${new URL(r.url).host} check inter 500\n`).join(''));
  if (!sticky) cfg = cfg.replace(/^ {2}(stick|use_backend).*\n/gm, '');
  const file = join(dir, `haproxy-${port}.cfg`);
  writeFileSync(file, cfg);
  const proc = Bun.spawn([HAPROXY, '-db', '-f', file], { stdout: 'ignore', stderr: 'pipe' });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthy(url, { ms: 10_000, proc, why: () => new Response(proc.stderr).text() });
  return {
    url,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

describe.skipIf(skip)('MCP behind a round-robin balancer', () => {
  const sandbox = sandboxGateways();
  beforeAll(async () => {
    const env = { DATABASE_URL: await freshDatabase(), MAINNET_RPC_URLS: sandbox.chain.url, DEVNET_RPC_URLS: sandbox.chain.url, RATE_LIMIT_RPS: '0' };
    replicas = await Promise.all([startReplica(env), startReplica(env), startReplica(env)]);
  }, POSTGRES_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of TRANSPORTS) {
    test(`${kind}: with deploy/haproxy.cfg every session works`, async () => {
      const lb = await balancer(true);
      try {
        const clients = await Promise.all(Array.from({ length: 6 }, () => connectMcp(lb.url, kind)));
        for (const c of clients) {
          expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
          for (let i = 0; i < 3; i++) {
            const r = await c.call('get_chain_blockhash');
            expect(r.isError).toBe(false);
            expect(r.body.blockhash).toBeString();
          }
        }
        await Promise.all(clients.map((c) => c.close()));
      } finally {
        await lb.stop();
      }
    }, 120_000);

    test(`${kind}: the same balancer without the session rules breaks sessions`, async () => {
      const lb = await balancer(false);
      try {
        const attempts = await Promise.allSettled(
          Array.from({ length: 6 }, async () => {
            const c = await connectMcp(lb.url, kind);
            try {
              for (let i = 0; i < 3; i++) if ((await c.call('get_chain_blockhash')).isError) throw new Error('tool error');
            } finally {
              await c.close();
            }
          }),
        );
        expect(attempts.some((a) => a.status === 'rejected')).toBe(true);
      } finally {
        await lb.stop();
      }
    }, 120_000);
  }
});
