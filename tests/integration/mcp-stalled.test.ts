// Clients that open legacy SSE sessions and stop reading must not take the gateway's memory or
// anyone else's service with them: 300 such sessions, 200 tools/list calls each (about 2.2 MB of
// answers per session), against the real server process with its default output budget.
// Cleanup is certain: the Node process holding the sockets and the gateway are killed in
// afterAll even if the test times out, and the Node process also exits when this one dies.
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcp } from '../support/mcp.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { floodStalledSessions, openStalledSessions, type StalledClients } from '../support/stalled-sse.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { WATCH_TOOL_NAMES } from '../../src/watch/mcp.ts';

/** The capabilities' tools and the watch tools. */
const TOOL_COUNT = CAPABILITIES.length + WATCH_TOOL_NAMES.length;

const SESSIONS = 300;
const CALLS = 200;

const dir = mkdtempSync(join(tmpdir(), 'cig-stalled-'));
let gw: GatewayProcess | undefined;
let clients: StalledClients | undefined;

afterAll(async () => {
  clients?.kill();
  if (gw) {
    // SIGTERM drains for up to DRAIN_SECONDS; do not wait on it longer than that.
    const killer = setTimeout(() => gw!.proc.kill('SIGKILL'), 3_000);
    await gw.stop();
    clearTimeout(killer);
  }
  rmSync(dir, { recursive: true, force: true });
});

test(
  `${SESSIONS} stalled SSE sessions sent ${CALLS} calls each keep RSS under 300 MB and /healthz answering, and are closed`,
  async () => {
    gw = await spawnGateway({
      DATABASE_PATH: join(dir, 'gateway.sqlite'),
      MAINNET_RPC_URLS: 'http://127.0.0.1:9',
      DEPOSIT_POLL_SECONDS: '0',
      // One address opens every session here: lift the per-address caps, keep the output budget.
      RATE_LIMIT_RPS: '0',
      MCP_MAX_SESSIONS_PER_ADDRESS: String(SESSIONS + 10),
      LOG_LEVEL: 'warn',
    });
    clients = await openStalledSessions(gw.url, SESSIONS);
    expect(clients.endpoints).toHaveLength(SESSIONS);

    const r = await floodStalledSessions(gw.url, gw.proc.pid, clients.endpoints, { calls: CALLS, closeWithinMs: 10_000 });
    clients.kill();

    expect(gw.proc.exitCode).toBeNull();
    expect(r.peakMb).toBeLessThan(300);
    expect(r.health.length).toBeGreaterThan(0);
    expect(r.health.filter((h) => h.status !== 200 || h.ms > 5_000)).toEqual([]);
    // Messages are accepted (202) until the session is closed (404); nothing else, no 5xx.
    expect(Object.keys(r.postStatuses).sort()).toEqual(['202', '404']);
    expect(r.closed).toBe(SESSIONS);

    // A client that reads, on the same transport, is served afterwards.
    const healthy = await connectMcp(gw.url, 'sse');
    try {
      for (let i = 0; i < 3; i++) expect((await healthy.client.listTools()).tools.length).toBe(TOOL_COUNT);
    } finally {
      await healthy.close();
    }
  },
  60_000,
);
