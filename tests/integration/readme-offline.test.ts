// The README's offline walkthrough, run as written: the shell blocks between its offline markers,
// in order, in a folder laid out like a fresh clone (the repository's files linked in, no data/).
// The first block starts the sandbox and the second the gateway, each left running as a person
// leaves a terminal; the rest runs as one script that stops at the first failing command. The
// only change is where the servers listen, so the test binds no fixed port: SANDBOX_PORT, PORT and
// HOST=127.0.0.1 in the environment, and the same numbers in place of 8899 and 3000 in the URLs.
import { afterAll, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshClone, shellEnv, until, type Clone } from '../support/clone.ts';
import { freePort } from '../support/process.ts';

const ROOT = join(import.meta.dir, '../..');

/** The shell blocks between the README's offline markers. */
function offlineBlocks(readme: string): string[] {
  const section = readme.match(/<!-- offline:begin -->([\s\S]*?)<!-- offline:end -->/);
  if (!section) throw new Error('README.md has no offline:begin / offline:end markers');
  return [...section[1]!.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let clone: Clone | undefined;
afterAll(() => clone?.remove());

test('the README offline section buys a key on the sandbox chain and makes a paid call with it, and again after a restart', async () => {
  const blocks = offlineBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  const sandboxPort = String(freePort());
  const gatewayPort = String(freePort());
  const text = blocks.join('\n');
  expect(text).toMatch(/\b8899\b/);
  expect(text).toMatch(/\b3000\b/);
  const [sandbox, gateway, ...buyer] = blocks.map((b) => b.replace(/\b8899\b/g, sandboxPort).replace(/\b3000\b/g, gatewayPort));

  clone = freshClone();
  const env = shellEnv({ SANDBOX_PORT: sandboxPort, PORT: gatewayPort, HOST: '127.0.0.1' });
  const start = (script: string) => clone!.start(script, env);

  const deposited = Number(text.match(/wallet -- deposit (\d+)/)![1]);
  // Twice in the same folder, as a person comes back the next day: a new chain, the gateway's
  // database kept.
  for (const run of [1, 2]) {
    // A person waits for the sandbox to say it is up, then for the gateway to answer.
    const chain = start(sandbox!);
    await until('the sandbox start', () => chain.text().includes('Ctrl-C to stop'), 30_000, chain.text);
    const gw = start(gateway!);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await until('the gateway start', () => fetch(base + '/healthz').then((r) => r.ok, () => false), 30_000, gw.text);

    // The rest as one script; a last line (not the README's) hands the key to the test.
    const { code, stdout, stderr } = await clone.run(buyer.join('\n') + '\nprintf "\\nKEY=%s\\n" "$KEY"', env);
    const context = `run ${run}\nstdout:\n${stdout}\nstderr:\n${stderr}\ngateway:\n${gw.text()}`;
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
    await clone.stop(gw);
    await clone.stop(chain);
  }
}, 120_000);
