// docs/x402.md's offline walkthrough, run as written (tests/support/walkthrough.ts), as the README's
// is: the sandbox and the gateway left running, each other block run as a script that stops at its
// first failing command. A newcomer gets to the end: the fee payer's key made and funded, the
// gateway's USDC account made, one call paid with @x402/fetch, the balances moved by exactly the
// price and the quoted fee, and the call in `gateway stats` and the wallet's usage history.
import { afterAll, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X402_SETTLEMENT_FEE_LAMPORTS } from '../../src/config.ts';
import { docBlocks, ROOT, Walkthrough } from '../support/walkthrough.ts';

const walk = new Walkthrough();
afterAll(() => walk.close());

/** The `balances` lines of the output: address, lamports, USDC units, in order. */
const balances = (out: string) => [...out.matchAll(/^(\w{32,44}) {2}(\d+) lamports \(.*?\) {2}(\d+) USDC units/gm)].map((m) => ({ owner: m[1]!, lamports: BigInt(m[2]!), usdc: BigInt(m[3]!) }));

test('docs/x402.md: a newcomer pays for one call with x402 on the sandbox chain and sees it everywhere', async () => {
  const page = readFileSync(join(ROOT, 'docs/x402.md'), 'utf8');
  const blocks = docBlocks('docs/x402.md', 'x402-offline');
  expect(blocks).toHaveLength(6);
  const [sandbox, setup, gateway, pay, usage, extensions] = blocks as [string, string, string, string, string, string];
  const price = Number(gateway.match(/X402_PRICE=(\d+)/)![1]);

  const chain = await walk.startSandbox(sandbox);
  const prepared = await walk.run([setup]);
  expect(prepared.code, `${prepared.stdout}\n${prepared.stderr}\n${chain.text()}`).toBe(0);
  const gw = await walk.startGateway(gateway);

  // One shell, as a reader types them in one terminal: the extensions block uses $W and $KEY.
  const { stdout, stderr, code } = await walk.run([pay, usage, extensions]);
  const context = `stdout:\n${stdout}\nstderr:\n${stderr}\ngateway:\n${gw.text()}`;
  expect(code, context).toBe(0);
  // The paid answer, then its settlement.
  expect(stdout, context).toContain('"live_status":"SUCCESS"');
  expect(stdout, context).toMatch(/"success":true,.*"transaction":"\w{64,88}"/);

  // Wallet, fee payer, gateway; before the payment, then after.
  const seen = balances(stdout);
  expect(seen, context).toHaveLength(8);
  const [wallet, feePayer, payTo] = [0, 1, 2].map((i) => ({ before: seen[i]!, after: seen[i + 3]! }));
  expect(wallet!.before.usdc - wallet!.after.usdc).toBe(BigInt(price));
  expect(wallet!.after.lamports).toBe(wallet!.before.lamports);
  expect(payTo!.after.usdc - payTo!.before.usdc).toBe(BigInt(price));
  // The fee the page quotes is the fee paid.
  const fee = feePayer!.before.lamports - feePayer!.after.lamports;
  expect(fee).toBe(BigInt(X402_SETTLEMENT_FEE_LAMPORTS));
  expect(page).toContain(`fee (${X402_SETTLEMENT_FEE_LAMPORTS.toLocaleString('en-US')} lamports)`);

  // gateway stats: the revenue, and the call by day and by capability.
  expect(stdout, context).not.toContain('(empty:');
  expect(stdout, context).toContain(`x402 revenue    ${price} atomic units of EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v over 1 paid call`);
  expect(stdout, context).toMatch(new RegExp(`^  \\d{4}-\\d\\d-\\d\\d .*x402: ${price} of EPjFWdd5… over 1 call$`, 'm'));
  expect(stdout, context).toMatch(/^ {2}find-ata +0 +1$/m);
  // The usage history: the x402 call, paid by this wallet.
  expect(stdout, context).toContain(`"paidWith":"x402"`);
  expect(stdout, context).toContain(`"amount":"${price}"`);

  // The extensions: signed in, the call is debited from the wallet's credit (the deposit, claimed
  // with no free calls, less one call); a named payment sent twice is settled once and answered
  // twice with the same transaction, each with a receipt that verifies with the published key.
  const deposited = Number(usage.match(/wallet -- deposit (\d+)/)![1]);
  expect(Number(stdout.match(/"creditLamports":(\d+)/)?.[1]), context).toBe(deposited - Number(gateway.match(/PRICE_LAMPORTS=(\d+)/)?.[1] ?? 2_200_000));
  const settlements = [...stdout.matchAll(/"success":true,.*?"transaction":"(\w{64,88})"/g)].map((m) => m[1]);
  expect(settlements, context).toHaveLength(3);
  expect(settlements[2]).toBe(settlements[1]);
  expect(stdout.match(/^receipt verified with the gateway's published key: .*"payer":"\w+".*$/gm), context).toHaveLength(3);
  expect(seen[6]!.usdc - seen[7]!.usdc).toBe(BigInt(price));
  expect(stdout, context).toContain('"type":"mcp"');
  expect(stdout, context).toContain('"remotes":[');
}, 180_000);
