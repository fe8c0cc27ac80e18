// What x402 costs beside a key: the latency a paid call gains when it is paid with x402 instead of
// an API key (verify with a simulation, record, settle and wait for `confirmed`), and the CPU one
// verification takes. One gateway in this process on loopback, the sandbox chain in this process
// too (so its simulation's CPU is measured apart and taken out of the verification's).
// Payments are signed before the clock starts: the client's signing is not the gateway's cost.
// Run: bun bench/x402.ts [calls] [verifications]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { startGateway } from '../tests/support/gateway.ts';
import { fundedKey } from '../tests/support/agent.ts';
import { craftPayment, payer, x402World, USDC_MINT } from '../tests/support/x402.ts';

const calls = Number(process.argv[2] ?? 40);
const verifications = Number(process.argv[3] ?? 200);

const chain = await startSandbox();
const world = await x402World(chain, mkdtempSync(join(tmpdir(), 'cig-bench-x402-')), 10_000);
const gw = await startGateway({ mainnetRpcUrls: [chain.url], devnetRpcUrls: [chain.url], ...world.settings, freeCalls: 0, webhookSecret: 'bench-secret' });

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const row = (label: string, xs: number[]) => console.log(`${label.padEnd(34)} p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms   p90 ${pct(xs, 90).toFixed(2).padStart(7)} ms   (${xs.length} calls)`);

try {
  const client = await payer(chain, 10_000_000n);
  const { key } = await fundedKey(gw, chain, 2_200_000 * (calls + 10));
  const path = `/api/chain/find-ata?wallet=${client.address}&mint=${USDC_MINT}`;
  const accepted = decodePaymentRequiredHeader((await gw.get(path)).headers.get('payment-required')!).accepts[0]!;
  const timed = async (headers: Record<string, string>) => {
    const t = performance.now();
    const res = await gw.get(path, headers);
    if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(res.body)}`);
    return performance.now() - t;
  };
  // Warm both paths (the upstream cache, the key cache, the compiled code).
  for (let i = 0; i < 5; i++) await timed({ 'x-api-key': key });
  await timed({ 'payment-signature': await craftPayment(chain, { accepted, from: client }) });

  const keyed: number[] = [];
  for (let i = 0; i < calls; i++) keyed.push(await timed({ 'x-api-key': key }));
  const payments = await Promise.all(Array.from({ length: calls }, () => craftPayment(chain, { accepted, from: client })));
  const paid: number[] = [];
  for (const p of payments) paid.push(await timed({ 'payment-signature': p }));

  // One verification through the gateway's facilitator, and the sandbox's simulation alone.
  const facilitator = gw.services.x402!.facilitator;
  const unused = await Promise.all(Array.from({ length: verifications }, () => craftPayment(chain, { accepted, from: client })));
  const decoded = unused.map((h) => JSON.parse(Buffer.from(h, 'base64').toString()));
  const cpu = async (work: (p: { payload: { transaction: string } }) => Promise<unknown>) => {
    const start = process.cpuUsage();
    const t = performance.now();
    for (const p of decoded) await work(p);
    const used = process.cpuUsage(start);
    return { cpuUs: (used.user + used.system) / decoded.length, wallMs: (performance.now() - t) / decoded.length };
  };
  const verify = await cpu(async (p) => {
    const r = await facilitator.verify(p as never, accepted);
    if (!r.isValid) throw new Error(`invalid: ${r.invalidReason}`);
  });
  const simulate = await cpu((p) => gw.services.upstreams['mainnet-beta'].call('simulateTransaction', [p.payload.transaction, { sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed', encoding: 'base64' }]) as Promise<unknown>);

  console.log(`x402 bench: find-ata on the sandbox chain, ${calls} sequential calls each way, ${verifications} verifications`);
  row('key-paid call', keyed);
  row('x402-paid call', paid);
  console.log(`${'added by x402 (p50)'.padEnd(34)} ${(pct(paid, 50) - pct(keyed, 50)).toFixed(2)} ms`);
  console.log(`${'one verification'.padEnd(34)} ${verify.wallMs.toFixed(2)} ms wall, ${(verify.cpuUs / 1000).toFixed(3)} ms CPU (with the sandbox's simulation)`);
  console.log(`${'the sandbox simulation alone'.padEnd(34)} ${simulate.wallMs.toFixed(2)} ms wall, ${(simulate.cpuUs / 1000).toFixed(3)} ms CPU`);
  console.log(`${'CPU per verification (gateway)'.padEnd(34)} ${((verify.cpuUs - simulate.cpuUs) / 1000).toFixed(3)} ms`);
} finally {
  await gw.stop();
  await chain.stop();
}
