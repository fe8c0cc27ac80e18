// `bun run sandbox` on a port of its own (SANDBOX_PORT) prints the commands that buy a key on it,
// and they run as printed from other terminals, which know nothing of SANDBOX_PORT: the gateway
// command line, then the wallet's deposit, address and sign, with curl for the gateway's routes.
import { afterAll, expect, test } from 'bun:test';
import { freshClone, shellEnv, until, type Clone } from '../support/clone.ts';
import { sandboxPorts } from '../support/process.ts';

let clone: Clone | undefined;
afterAll(() => clone?.remove());

/** The printed command that starts with `start`, without its trailing comment. */
function printed(out: string, start: string): string {
  const line = out.split('\n').find((l) => l.trimStart().startsWith(start));
  if (!line) throw new Error(`the sandbox printed no "${start}" command:\n${out}`);
  return line.trim().replace(/\s+#.*$/, '');
}

test('on a non-default port, every printed command names that port and runs as printed', async () => {
  const ports = sandboxPorts();
  const sandboxPort = String(ports.sandbox);
  const gatewayPort = String(ports.gateway);
  clone = freshClone();
  const chain = clone.start('bun run sandbox', shellEnv({ SANDBOX_PORT: sandboxPort }));
  await until('the sandbox start', () => chain.text().includes('Ctrl-C to stop'), 30_000, chain.text);
  const out = chain.text();
  const rpc = `http://127.0.0.1:${sandboxPort}`;
  expect(out).toContain(`sandbox JSON-RPC: ${rpc}`);
  expect(out).toContain('payer (1,000 SOL): ');

  const gatewayCommand = printed(out, 'GATEWAY_ADDRESS=');
  const deposit = printed(out, 'bun run wallet -- deposit');
  const address = printed(out, 'bun run wallet -- address');
  const sign = printed(out, 'bun run wallet -- sign <challenge>');
  for (const command of [gatewayCommand, deposit, address, sign]) expect(command).toContain(rpc);

  // Another terminal: where the gateway listens is the test's choice (PORT), nothing else is given.
  const gw = clone.start(gatewayCommand, shellEnv({ PORT: gatewayPort, HOST: '127.0.0.1' }));
  const base = `http://127.0.0.1:${gatewayPort}`;
  await until('the gateway start', () => fetch(base + '/healthz').then((r) => r.ok, () => false), 30_000, gw.text);

  // A third, with no SANDBOX_PORT: the wallet commands find the chain from what they say.
  const buyer = shellEnv();
  const wallet = await clone.run(`${deposit}\n${address}`, buyer);
  expect(wallet.code, wallet.stderr).toBe(0);
  const walletAddress = wallet.stdout.trim().split('\n').at(-1)!;
  await until('the deposit seen', async () => (await (await fetch(`${base}/api/keys/deposit?wallet=${walletAddress}`)).json()).status === 'claimable', 30_000, gw.text);
  const { challenge } = (await (await fetch(`${base}/api/keys/challenge?wallet=${walletAddress}`)).json()) as { challenge: string };
  const body = await clone.run(sign.replace('<challenge>', challenge), buyer);
  expect(body.code, body.stderr).toBe(0);
  const claim = await fetch(`${base}/api/keys/claim`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body.stdout });
  expect(claim.status).toBe(200);
  const { apiKey } = (await claim.json()) as { apiKey: string };
  const paid = await fetch(`${base}/api/chain/token-accounts?wallet=${walletAddress}`, { headers: { 'x-api-key': apiKey } });
  expect(paid.status).toBe(200);
}, 90_000);
