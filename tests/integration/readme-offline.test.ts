// The README's offline walkthrough, run as written: the shell blocks between its offline markers,
// in order, in a folder laid out like a fresh clone (the repository's files linked in, no data/).
// The first block starts the sandbox and the second the gateway, each left running as a person
// leaves a terminal; the rest runs as one script that stops at the first failing command. The
// only change is where the servers listen, so the test binds no fixed port: SANDBOX_PORT, PORT and
// HOST=127.0.0.1 in the environment, and the same numbers in place of 8899 and 3000 in the URLs.
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/process.ts';

const ROOT = join(import.meta.dir, '../..');
const NOT_IN_A_CLONE = new Set(['.git', 'data', 'dist']);

/** The shell blocks between the README's offline markers. */
function offlineBlocks(readme: string): string[] {
  const section = readme.match(/<!-- offline:begin -->([\s\S]*?)<!-- offline:end -->/);
  if (!section) throw new Error('README.md has no offline:begin / offline:end markers');
  return [...section[1]!.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

interface Started {
  proc: ReturnType<typeof Bun.spawn>;
  out: string[];
}

const started: Started[] = [];
let dir: string | undefined;

/** Each block runs in its own process group: `bun run` and the script it starts stop together. */
async function stop(s: Started) {
  try {
    process.kill(-s.proc.pid, 'SIGTERM');
  } catch {}
  await s.proc.exited;
}

afterAll(async () => {
  for (const s of started) await stop(s);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function collect(stream: ReadableStream<Uint8Array>, into: string[]) {
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  })();
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000, log: () => string = () => '') {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms:\n${log()}`);
    await Bun.sleep(100);
  }
}

test('the README offline section buys a key on the sandbox chain and makes a paid call with it, and again after a restart', async () => {
  const blocks = offlineBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  const sandboxPort = String(freePort());
  const gatewayPort = String(freePort());
  const text = blocks.join('\n');
  expect(text).toMatch(/\b8899\b/);
  expect(text).toMatch(/\b3000\b/);
  const [sandbox, gateway, ...buyer] = blocks.map((b) => b.replace(/\b8899\b/g, sandboxPort).replace(/\b3000\b/g, gatewayPort));

  dir = mkdtempSync(join(tmpdir(), 'cig-readme-offline-'));
  for (const name of readdirSync(ROOT)) if (!NOT_IN_A_CLONE.has(name)) symlinkSync(join(ROOT, name), join(dir, name));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SANDBOX_PORT: sandboxPort, PORT: gatewayPort, HOST: '127.0.0.1' };
  const start = (script: string): Started => {
    // detached: a process group of its own (setsid), for the SIGTERM to the group at the end.
    const proc = Bun.spawn(['bash', '-c', script], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe', detached: true });
    const s = { proc, out: [] as string[] };
    collect(proc.stdout as ReadableStream<Uint8Array>, s.out);
    collect(proc.stderr as ReadableStream<Uint8Array>, s.out);
    started.push(s);
    return s;
  };

  const deposited = Number(text.match(/wallet -- deposit (\d+)/)![1]);
  // Twice in the same folder, as a person comes back the next day: a new chain, the gateway's
  // database kept.
  for (const run of [1, 2]) {
    // A person waits for the sandbox to say it is up, then for the gateway to answer.
    const chain = start(sandbox!);
    await until('the sandbox start', () => chain.out.join('').includes('Ctrl-C to stop'), 30_000, () => chain.out.join(''));
    const gw = start(gateway!);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await until('the gateway start', () => fetch(base + '/healthz').then((r) => r.ok, () => false), 30_000, () => gw.out.join(''));

    // The rest as one script; a last line (not the README's) hands the key to the test.
    const buy = Bun.spawn(['bash', '-euo', 'pipefail', '-c', buyer.join('\n') + '\nprintf "\\nKEY=%s\\n" "$KEY"'], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, code] = await Promise.all([new Response(buy.stdout).text(), new Response(buy.stderr).text(), buy.exited]);
    const context = `run ${run}\nstdout:\n${stdout}\nstderr:\n${stderr}\ngateway:\n${gw.out.join('')}`;
    expect(code, context).toBe(0);

    // The paid call's answer is in the output: a success body of a paid route.
    expect(stdout, context).toContain('"live_status":"SUCCESS"');
    const key = stdout.match(/^KEY=(cig_\w+)$/m)?.[1];
    expect(key, context).toBeDefined();
    const me = await fetch(base + '/api/keys/me', { headers: { 'x-api-key': key! } });
    expect(me.status).toBe(200);
    const account = (await me.json()) as { creditLamports: number; priceLamports: number; callsMade: number };
    // One call charged and kept: a call that does not end in 2xx is refunded, so this is a 200.
    expect(account.callsMade, context).toBe(1);
    expect(account.creditLamports, context).toBe(deposited - account.priceLamports);
    await stop(gw);
    await stop(chain);
  }
}, 120_000);
