// bun tests/support/sandbox/main.ts  — a sandbox cluster on SANDBOX_PORT (default 8899), until Ctrl-C.

import { startSandbox } from './index.ts';

const port = Number(process.env.SANDBOX_PORT ?? 8899);
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const sandbox = await startSandbox({ port, host }).catch((e: Error) => {
  console.error(`sandbox: cannot listen on ${host}:${port}: ${e.message}`);
  process.exit(1);
});
const demo = await sandbox.newWallet(100n * 1_000_000_000n);

console.log(`sandbox JSON-RPC: ${sandbox.url}`);
console.log(`demo wallet (100 SOL): ${demo.address}`);
console.log(`payer (1,000 SOL): ${sandbox.payer.address}`);
console.log('Ctrl-C to stop');

const shutdown = async () => {
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
