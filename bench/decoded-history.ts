// What a decoded page of 25 costs (transactions?decode=true, issue 35) against the plain page of 25 as
// baseline: latency and the upstream calls it makes, cold (a fresh gateway process, nothing cached) and
// cached (the same page asked again). The gateway runs as its own process; the upstream is the sandbox
// chain on loopback, first answering at once, then with every answer delayed by DELAY ms to stand for a
// remote node (what bounded concurrency is for). The wallet has 40 transactions: SOL sent and received,
// tokens received into its existing token account (named only by that account) and a failed one.
// Run: bun bench/decoded-history.ts [cold runs] [cached runs] [delay ms]
import { cpus, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { sandboxGatewayEnv, spawnGateway, type GatewayProcess } from '../tests/support/process.ts';
import { buyKey } from './wire.ts';

const coldRuns = Number(process.argv[2] ?? 5);
const cachedRuns = Number(process.argv[3] ?? 20);
const delayMs = Number(process.argv[4] ?? 40);
const SECRET = 'bench-secret';

console.log(`command: bun bench/decoded-history.ts ${coldRuns} ${cachedRuns} ${delayMs}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, bun ${Bun.version}, ${process.platform}-${process.arch}`);

const chain = await startSandbox();
const gatewayAddress = (await generateKeyPairSigner()).address;
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-history-'));
const env = sandboxGatewayEnv({ chainUrl: chain.url, dir, gatewayAddress, webhookSecret: SECRET });

// The wallet's history: 40 transactions of four sorts, the newest 25 of which make the page.
const wallet = await chain.newWallet(5_000_000_000n);
const other = await chain.newWallet(5_000_000_000n);
const friend = (await generateKeyPairSigner()).address;
const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
await chain.mintTo(mint, chain.payer, other.address, 1_000_000_000n);
await chain.createAta(wallet.address, mint);
for (let i = 0; i < 39; i++) {
  if (i % 3 === 0) await chain.transferSol(wallet, friend, 1_000_000n + BigInt(i));
  else if (i % 3 === 1) await chain.transferSol(other, wallet.address, 2_000_000n + BigInt(i));
  else await chain.transferToken(mint, other, wallet.address, 1_000_000n + BigInt(i), { createDestination: false });
}
await chain.failingTransaction(wallet);

let gateway: GatewayProcess = await spawnGateway(env);
let key = '';
try {
  ({ key } = await buyKey(gateway.url, chain, gatewayAddress, SECRET, 100_000_000_000n));

  /** One page: its latency (ms) and the upstream calls it made, by method. */
  async function page(query: string): Promise<{ ms: number; calls: Record<string, number> }> {
    chain.resetCalls();
    const t = performance.now();
    const res = await fetch(`${gateway.url}/api/chain/transactions?wallet=${wallet.address}&limit=25${query}`, { headers: { 'x-api-key': key } });
    const body = (await res.json()) as { count?: number; transactions?: { decodeError?: unknown }[] };
    const ms = performance.now() - t;
    if (res.status !== 200 || body.count !== 25 || body.transactions!.some((i) => i.decodeError)) throw new Error(`page failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const calls: Record<string, number> = {};
    for (const m of ['getSignaturesForAddress', 'getTokenAccountsByOwner', 'getTransaction', 'getMultipleAccounts']) if (chain.calls(m) > 0) calls[m] = chain.calls(m);
    return { ms, calls };
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const show = (label: string, runs: { ms: number; calls: Record<string, number> }[]) => {
    const calls = runs[runs.length - 1]!.calls;
    const total = Object.values(calls).reduce((a, b) => a + b, 0);
    const list = Object.entries(calls).map(([m, n]) => `${m} ${n}`).join(', ');
    console.log(`  ${label.padEnd(34)} median ${median(runs.map((r) => r.ms)).toFixed(1).padStart(7)} ms  (min ${Math.min(...runs.map((r) => r.ms)).toFixed(1)}, max ${Math.max(...runs.map((r) => r.ms)).toFixed(1)}, n=${runs.length})  upstream calls ${total}: ${list}`);
  };

  for (const delay of [0, delayMs]) {
    console.log(`\nupstream answering ${delay === 0 ? 'at once (loopback)' : `after ${delay} ms per request`}:`);
    chain.fault(delay === 0 ? null : { mode: 'slow', delayMs: delay });
    const cases: [string, string][] = [
      ['plain page of 25 (baseline)', ''],
      ['decoded page of 25', '&decode=true'],
      ['decoded, tokenAccounts=false', '&decode=true&tokenAccounts=false'],
    ];
    for (const [label, query] of cases) {
      const cold: { ms: number; calls: Record<string, number> }[] = [];
      for (let i = 0; i < coldRuns; i++) {
        await gateway.stop();
        gateway = await spawnGateway(env); // nothing cached; the key lives in the SQLite file
        cold.push(await page(query));
      }
      const cached: { ms: number; calls: Record<string, number> }[] = [];
      for (let i = 0; i < cachedRuns; i++) cached.push(await page(query));
      show(`${label}, cold`, cold);
      show(`${label}, cached`, cached);
    }
  }
} finally {
  chain.fault(null);
  await gateway.stop();
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
}
