// `bun run wallet -- <command>`: act as the sandbox's demo wallet to buy a key by hand with curl
// (README, "Offline: buy a key on the sandbox chain"). Its key is a throwaway one on a throwaway
// chain, so the command talks only to a node on this machine, never to a cluster across the network.
import { parseArgs } from 'node:util';
import { createSolanaRpc, isAddress, type Address } from '@solana/kit';
import { deposit, signChallenge } from './agent.ts';
import { demoWalletPath, readKeypairFile, SANDBOX_GATEWAY_ADDRESS, sandboxPort } from './sandbox/offline.ts';
import { transfersOverRpc } from './sandbox/testing.ts';

const USAGE = `usage: bun run wallet -- <command> [options]

  address               print the wallet's address
  deposit <lamports>    send that many lamports to the gateway's deposit address; prints the transaction signature
  sign <challenge>      sign a challenge from GET /api/keys/challenge (base58 Ed25519 of its UTF-8 bytes);
                        prints the JSON body for POST /api/keys/claim

  --keypair <path>      Solana CLI keypair file (default data/sandbox-wallet.json, new on each bun run sandbox; SANDBOX_WALLET)
  --rpc <url>           the sandbox chain, on this machine only (default http://127.0.0.1:$SANDBOX_PORT, else :8899)
  --to <address>        the deposit address (default ${SANDBOX_GATEWAY_ADDRESS}, the sandbox gateway's)
`;

class UsageError extends Error {}

const U64_MAX = 2n ** 64n - 1n;
/** A one-signature transfer's fee on the sandbox, as on mainnet. */
const FEE = 5000n;
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

function lamportsArg(text: string | undefined): bigint {
  if (text === undefined || !/^[1-9]\d{0,19}$/.test(text) || BigInt(text) > U64_MAX) {
    throw new UsageError(`deposit: <lamports> must be a whole number of lamports from 1 to ${U64_MAX} (1 SOL = 1000000000), got ${JSON.stringify(text ?? '')}`);
  }
  return BigInt(text);
}

function loopbackUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--rpc: not a URL: ${JSON.stringify(text)}`);
  }
  if (!/^https?:$/.test(url.protocol) || !LOOPBACK.test(url.hostname)) {
    throw new UsageError('--rpc: this throwaway wallet sends only to a sandbox chain on this machine (localhost, 127.x.x.x or [::1])');
  }
  return url.href;
}

async function run(argv: string[], out: (s: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { keypair: { type: 'string' }, rpc: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  const [command, arg, ...extra] = positionals;
  if (values.help) return out(USAGE);
  if (!command) throw new UsageError('no command given');
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const keypair = values.keypair ?? demoWalletPath();
  switch (command) {
    case 'address': {
      if (arg !== undefined) throw new UsageError(`unexpected argument: ${arg}`);
      return out((await readKeypairFile(keypair)).address + '\n');
    }
    case 'deposit': {
      const lamports = lamportsArg(arg);
      const rpc = loopbackUrl(values.rpc ?? `http://127.0.0.1:${sandboxPort()}`);
      const to = values.to ?? SANDBOX_GATEWAY_ADDRESS;
      if (!isAddress(to)) throw new UsageError(`--to: not a Solana address: ${JSON.stringify(to)}`);
      const wallet = await readKeypairFile(keypair);
      let balance: bigint;
      try {
        balance = (await createSolanaRpc(rpc).getBalance(wallet.address).send()).value;
      } catch {
        throw new Error(`no sandbox chain answers at ${rpc}: is bun run sandbox running?`);
      }
      if (balance < lamports + FEE) throw new Error(`the wallet holds ${balance} lamports: not enough for ${lamports} and the ${FEE} lamport fee`);
      return out((await deposit(transfersOverRpc(rpc), wallet, to as Address, lamports)) + '\n');
    }
    case 'sign': {
      // The gateway's challenges are 32 bytes in hex; anything else is a paste gone wrong.
      if (arg === undefined || !/^[0-9a-f]{64}$/.test(arg)) throw new UsageError(`sign: <challenge> is the 64 hex characters of "challenge" from GET /api/keys/challenge, got ${JSON.stringify(arg ?? '')}`);
      const wallet = await readKeypairFile(keypair);
      return out(JSON.stringify({ wallet: wallet.address, signature: await signChallenge(wallet, arg), challenge: arg }) + '\n');
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

try {
  await run(process.argv.slice(2), (s) => process.stdout.write(s));
} catch (e) {
  const usage = e instanceof UsageError || (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
  // Kit puts the node's reason for a refused transfer ("insufficient funds for rent") in the cause.
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
  const message = e instanceof Error ? e.message + cause : String(e);
  process.stderr.write(`wallet: ${message.split('\n')[0]}\n${usage ? '(bun run wallet -- --help lists the commands)\n' : ''}`);
  process.exit(usage ? 2 : 1);
}
