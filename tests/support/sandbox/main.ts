// bun tests/support/sandbox/main.ts  — a sandbox cluster on SANDBOX_PORT (default 8899), until Ctrl-C.
// It funds a demo wallet whose key it keeps in a Solana CLI keypair file, and prints the gateway
// command line and the wallet commands that buy a key on this chain by hand, each naming the chain
// it listens on and the wallet file it wrote, so they run as printed in any terminal.
import { resolve } from 'node:path';
import { startSandbox } from './index.ts';
import { DEFAULT_DEMO_WALLET, DEFAULT_SANDBOX_RPC, demoWalletPath, keypairFile, SANDBOX_GATEWAY_ADDRESS, sandboxPort, WALKTHROUGH_DEPOSIT_LAMPORTS } from './offline.ts';

const port = sandboxPort();
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const sandbox = await startSandbox({ port, host }).catch((e: Error) => {
  console.error(`sandbox: cannot listen on ${host}:${port}: ${e.message}`);
  process.exit(1);
});
const walletFile = demoWalletPath();
// A new wallet on each new chain: the chain's blockhashes repeat from one start to the next, so an
// old wallet's first deposit would be the very transaction (same signature) a gateway that kept its
// database has already counted. A file named by SANDBOX_WALLET may be someone's key: kept as is.
const demo = await keypairFile(walletFile, walletFile === DEFAULT_DEMO_WALLET).catch(async (e: Error) => {
  console.error(`sandbox: ${e.message}`);
  await sandbox.stop();
  process.exit(1);
});
await sandbox.transferSol(sandbox.payer, demo.address, 100n * 1_000_000_000n);

// Where clients reach it: a wildcard listen address is reached on loopback.
const rpc = /^(0\.0\.0\.0|::|\[::\])$/.test(host) ? `http://127.0.0.1:${new URL(sandbox.url).port}` : sandbox.url;
const ws = rpc === sandbox.url ? sandbox.wsUrl : `ws://127.0.0.1:${new URL(sandbox.wsUrl).port}`;
// The wallet commands name the chain and the key file themselves: another terminal has neither SANDBOX_PORT nor SANDBOX_WALLET.
const walletOptions = `${rpc === DEFAULT_SANDBOX_RPC ? '' : ` --rpc ${rpc}`}${walletFile === DEFAULT_DEMO_WALLET ? '' : ` --keypair ${walletFile}`}`;
console.log(`sandbox JSON-RPC: ${rpc}, WebSocket: ${ws} (a throwaway chain: it starts empty and is gone when it stops; SANDBOX_PORT moves it)`);
console.log(`demo wallet (100 SOL): ${demo.address}`);
console.log(`  its secret key is in ${resolve(walletFile)} (Solana CLI keypair format): a throwaway key for this sandbox chain only`);
console.log(`payer (1,000 SOL): ${sandbox.payer.address}`);
console.log("  the chain's own funder: it paid the demo wallet's SOL; its key never leaves the sandbox, so nothing outside can spend it");
console.log('\nA gateway that sells keys on this chain (deposits looked for every second, no free calls):');
console.log(
  `  GATEWAY_ADDRESS=${SANDBOX_GATEWAY_ADDRESS} MAINNET_RPC_URLS=${rpc} DEVNET_RPC_URLS=${rpc} DEPOSIT_POLL_SECONDS=1 FREE_CALLS=0 DATABASE_PATH=data/sandbox.sqlite bun run start`,
);
console.log('Then, as the demo wallet (README.md, "Offline: buy a key on the sandbox chain", has every step):');
console.log(`  bun run wallet -- deposit ${WALKTHROUGH_DEPOSIT_LAMPORTS}${walletOptions}    # to ${SANDBOX_GATEWAY_ADDRESS}`);
console.log(`  bun run wallet -- address${walletOptions}    # the wallet to ask a challenge for`);
console.log(`  bun run wallet -- sign <challenge>${walletOptions}    # the body for POST /api/keys/claim`);
console.log('Ctrl-C to stop');

const shutdown = async () => {
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
