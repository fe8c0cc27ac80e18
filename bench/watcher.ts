// How fast the deposit watcher reads the gateway address's history: it must keep up with 100
// transactions per second to the address. A burst of N real transfers lands on the sandbox chain
// between two polls; the watcher (the gateway's own, over HTTP JSON-RPC to the sandbox) walks back
// to its cursor. Baseline in the same run: the same getTransaction calls made one at a time.
// Run: bun bench/watcher.ts [transactions]
import { Database } from 'bun:sqlite';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { startSandbox } from '../tests/support/sandbox/index.ts';
import { burst } from '../tests/support/burst.ts';
import { deposit } from '../tests/support/agent.ts';
import { defaultConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { createServices } from '../src/services.ts';

const count = Number(process.argv[2] ?? 3000);
const chain = await startSandbox();
const gatewayAddress = (await generateKeyPairSigner()).address;
const dir = mkdtempSync(join(tmpdir(), 'cig-bench-watcher-'));
const services = await createServices(
  { ...defaultConfig(), databasePath: join(dir, 'gw.sqlite'), mainnetRpcUrls: [chain.url], gatewayAddress, depositPollSeconds: 3600, logLevel: 'error' },
  createLogger('error', [], () => {}),
);
const watcher = services.watcher!;
const file = new Database(join(dir, 'gw.sqlite'), { readonly: true });
const cursor = () => file.query('SELECT last_signature AS last, walk_head AS walk FROM watcher_cursors').get() as { last: string; walk: string | null };

await deposit(chain, await chain.newWallet(100_000_000n), gatewayAddress, 2_200_000n);
await watcher.poll();
const before = cursor().last;
const spammer = await chain.newWallet(100_000_000_000n);
let t = performance.now();
await burst(chain, spammer, gatewayAddress, count);
const landMs = performance.now() - t;

t = performance.now();
let polls = 0;
do {
  await watcher.poll();
  polls++;
} while (cursor().walk !== null || cursor().last === before);
const walkMs = performance.now() - t;

// Baseline: the same reads, one at a time, straight to the sandbox.
const sigs: string[] = [];
const page = (await (await fetch(chain.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [gatewayAddress, { limit: 1000 }] }) })).json()) as { result: { signature: string }[] };
sigs.push(...page.result.map((r) => r.signature));
t = performance.now();
for (const s of sigs) await fetch(chain.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [s, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }] }) }).then((r) => r.json()).then((j: any) => { if (!j.result) throw new Error("baseline read failed"); });
const sequentialRate = sigs.length / ((performance.now() - t) / 1000);

console.log(`command: bun bench/watcher.ts ${count}`);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, bun ${Bun.version}`);
console.log(`landed ${count} transfers on the sandbox in ${(landMs / 1000).toFixed(1)} s`);
console.log(`watcher: ${count} transactions read and recorded in ${(walkMs / 1000).toFixed(1)} s over ${polls} polls = ${Math.round(count / (walkMs / 1000))} tx/s (target: 100 tx/s)`);
console.log(`baseline: getTransaction one at a time against the same sandbox = ${Math.round(sequentialRate)} tx/s (${sigs.length} calls)`);

await services.close();
await chain.stop();
rmSync(dir, { recursive: true, force: true });
