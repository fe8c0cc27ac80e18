// A log shipper that stops reading the gateway's stderr must not stop the gateway: requests keep
// being answered, the lines waiting for stderr stay within LOG_BUFFER_BYTES, the lines beyond it
// are dropped and counted in /metrics, and every other line arrives whole once the reader is back.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';

let chain: Sandbox;
let gw: GatewayProcess;
let dir: string;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const metric = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);

beforeAll(async () => {
  // A chain that answers, so the only lines are the start-up's and the access lines.
  chain = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'cig-logpipe-'));
  gw = await spawnGateway(
    {
      DATABASE_PATH: join(dir, 'gw.sqlite'),
      MAINNET_RPC_URLS: chain.url,
      DEVNET_RPC_URLS: chain.url,
      DEPOSIT_POLL_SECONDS: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      LOG_BUFFER_BYTES: String(64 * 1024),
    },
    [],
    undefined,
    { stoppableReader: true },
  );
}, 30_000);

afterAll(async () => {
  await gw?.stop('SIGKILL');
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a stderr nobody reads: requests answered, memory bounded, drops counted, no other line lost or torn', async () => {
  // Settle first: the start-up lines and a first load's allocations are not what is measured.
  const load = async (n: number) => {
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < n / 16; i++) statuses.push((await fetch(gw.url + '/healthz')).status);
      }),
    );
    return statuses;
  };
  await load(320);
  gw.stallReader(true);
  const rssBefore = rssMb(gw.proc.pid);
  // About 200 bytes a line: many times what the pipe (64 KiB) and the buffer (64 KiB) hold.
  const statuses = await load(8_000);
  expect(statuses.length).toBe(8_000);
  expect(statuses.every((s) => s === 200)).toBe(true);
  expect(rssMb(gw.proc.pid) - rssBefore).toBeLessThan(40);

  gw.stallReader(false);
  const settled = async () => {
    let seen = -1;
    while (gw.lines.length !== seen) {
      seen = gw.lines.length;
      await Bun.sleep(300);
    }
  };
  await settled();
  const text = await (await fetch(gw.url + '/metrics')).text();
  await settled();
  const dropped = metric(text, 'gateway_log_lines_dropped_total');
  // The /metrics request above is counted once it is answered, after its body was written.
  const answered = metric(text, 'gateway_http_requests_total') + 1;
  const records = gw.lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as { kind?: string });
  const access = records.filter((r) => r.kind === 'access').length;
  expect(dropped).toBeGreaterThan(1_000);
  expect(access + dropped).toBe(answered);
  expect(access).toBeGreaterThan(0);
}, 60_000);
