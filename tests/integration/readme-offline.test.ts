// The README's offline walkthrough, run as written (tests/support/walkthrough.ts): the shell blocks
// between its offline markers, in order, in a folder laid out like a fresh clone. The first block
// starts the sandbox and the second the gateway, each left running as a person leaves a terminal;
// the rest runs as one script that stops at the first failing command.
import { afterAll, expect, test } from 'bun:test';
import { docBlocks, Walkthrough } from '../support/walkthrough.ts';

const walk = new Walkthrough();
afterAll(() => walk.close());

test('the README offline section buys a key on the sandbox chain and makes a paid call with it, and again after a restart', async () => {
  const blocks = docBlocks('README.md', 'offline');
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  const text = blocks.join('\n');
  expect(text).toMatch(/\b8899\b/);
  expect(text).toMatch(/\b3000\b/);
  const [sandbox, gateway, ...buyer] = blocks;

  const deposited = Number(text.match(/wallet -- deposit (\d+)/)![1]);
  // Twice in the same folder, as a person comes back the next day: a new chain, the gateway's
  // database kept.
  for (const run of [1, 2]) {
    // A person waits for the sandbox to say it is up, then for the gateway to answer.
    const chain = await walk.startSandbox(sandbox!);
    const gw = await walk.startGateway(gateway!);

    // The rest as one script; a last line (not the README's) hands the key to the test.
    const { stdout, stderr, code } = await walk.run([...buyer, 'printf "\\nKEY=%s\\n" "$KEY"']);
    const context = `run ${run}\nstdout:\n${stdout}\nstderr:\n${stderr}\ngateway:\n${gw.text()}`;
    expect(code, context).toBe(0);

    // The paid call's answer is in the output: a success body of a paid route.
    expect(stdout, context).toContain('"live_status":"SUCCESS"');
    const key = stdout.match(/^KEY=(cig_\w+)$/m)?.[1];
    expect(key, context).toBeDefined();
    const me = await fetch(walk.gatewayUrl + '/api/keys/me', { headers: { 'x-api-key': key! } });
    expect(me.status).toBe(200);
    const account = (await me.json()) as { creditLamports: number; priceLamports: number; callsMade: number };
    // One call charged and kept: a call that does not end in 2xx is refunded, so this is a 200.
    expect(account.callsMade, context).toBe(1);
    expect(account.creditLamports, context).toBe(deposited - account.priceLamports);
    await walk.stop(gw);
    await walk.stop(chain);
  }
}, 120_000);
