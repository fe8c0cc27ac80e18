// `bun run wallet` and the demo wallet `bun run sandbox` hands out, as processes: the sandbox
// writes a Solana CLI keypair file for the wallet it funds and prints how to use it; the wallet
// command deposits from it and signs challenges with it, and refuses, with nothing sent, whatever
// a slip of the hand (or a hostile paste) would turn into a transfer it should not make.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base58 } from '@scure/base';
import { createSolanaRpc, getPublicKeyFromAddress, verifySignature, type Address, type KeyPairSigner, type Signature, type SignatureBytes } from '@solana/kit';
import { startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { keypairFile, readKeypairFile, SANDBOX_GATEWAY_ADDRESS } from '../support/sandbox/offline.ts';
import { freePort, sandboxPorts } from '../support/process.ts';
import { USDC_MINT } from '../support/sandbox/constants.ts';

const WALLET = join(import.meta.dir, '../support/wallet.ts');
const SANDBOX_MAIN = join(import.meta.dir, '../support/sandbox/main.ts');

let chain: Sandbox;
let dir: string;
let keyFile: string;
let wallet: KeyPairSigner;

beforeAll(async () => {
  chain = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'cig-wallet-'));
  keyFile = join(dir, 'wallet.json');
  wallet = await keypairFile(keyFile);
  await chain.transferSol(chain.payer, wallet.address, 1_000_000_000n);
});

afterAll(async () => {
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function walletCommand(...args: string[]) {
  const p = Bun.spawn(['bun', WALLET, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { stdout, stderr, code };
}

const balance = async (a: string): Promise<bigint> => (await createSolanaRpc(chain.url).getBalance(a as Address).send()).value;

describe('the wallet command', () => {
  test('deposit sends exactly that many lamports to the sandbox gateway address and prints only the signature', async () => {
    const before = await balance(wallet.address);
    const { stdout, code, stderr } = await walletCommand('deposit', '22000000', '--keypair', keyFile, '--rpc', chain.url);
    expect(code, stderr).toBe(0);
    const signature = stdout.trim();
    expect(base58.decode(signature)).toHaveLength(64);
    expect(await balance(SANDBOX_GATEWAY_ADDRESS)).toBe(22_000_000n);
    expect(await balance(wallet.address)).toBe(before - 22_000_000n - 5000n);
    const tx = await createSolanaRpc(chain.url).getTransaction(signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx?.meta?.err).toBeNull();
  });

  test('--to sends elsewhere', async () => {
    const to = (await chain.newWallet(0n)).address;
    const { code, stderr } = await walletCommand('deposit', '3000000', '--to', to, '--keypair', keyFile, '--rpc', chain.url);
    expect(code, stderr).toBe(0);
    expect(await balance(to)).toBe(3_000_000n);
  });

  test('sign prints the claim body: the base58 Ed25519 signature of the challenge by the wallet', async () => {
    const challenge = 'c0ffee'.repeat(10) + 'abcd';
    const { stdout, code, stderr } = await walletCommand('sign', challenge, '--keypair', keyFile);
    expect(code, stderr).toBe(0);
    const body = JSON.parse(stdout);
    expect(Object.keys(body).sort()).toEqual(['challenge', 'signature', 'wallet']);
    expect(body.wallet).toBe(wallet.address);
    expect(body.challenge).toBe(challenge);
    const key = await getPublicKeyFromAddress(wallet.address);
    expect(await verifySignature(key, base58.decode(body.signature) as SignatureBytes, new TextEncoder().encode(challenge))).toBe(true);
    expect(await verifySignature(key, base58.decode(body.signature) as SignatureBytes, new TextEncoder().encode(challenge.replace('c', 'd')))).toBe(false);
  });

  test('address prints the address of the keypair file', async () => {
    expect((await walletCommand('address', '--keypair', keyFile)).stdout).toBe(wallet.address + '\n');
  });

  test.each([
    ['0', 2],
    ['-1', 2],
    ['1.5', 2],
    ['1e9', 2],
    ['0x10', 2],
    ['007', 2],
    ['18446744073709551616', 2], // 2^64: no u64 holds it
    ['', 2],
    ['999000000000', 1], // more than the wallet holds
  ])('deposit %p is refused with a one-line reason and nothing moves', async (lamports, exit) => {
    const before = await balance(wallet.address);
    const { code, stdout, stderr } = await walletCommand('deposit', lamports, '--keypair', keyFile, '--rpc', chain.url);
    expect(code).toBe(exit);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toStartWith('wallet: ');
    expect(await balance(wallet.address)).toBe(before);
  });

  test.each(['https://api.mainnet-beta.solana.com', 'http://127.0.0.1.example.com:8899', 'http://localhost.example:8899', 'ftp://127.0.0.1:8899', 'not a url'])(
    'an RPC off this machine (%p) is refused before the keypair is even read',
    async (rpc) => {
      const { code, stderr } = await walletCommand('deposit', '22000000', '--keypair', join(dir, 'absent.json'), '--rpc', rpc);
      expect(code).toBe(2);
      expect(stderr).toContain('--rpc');
    },
  );

  test("a transfer the chain refuses says the node's reason, and nothing moves", async () => {
    const before = await balance(wallet.address);
    const fresh = (await chain.newWallet(0n)).address;
    const { code, stdout, stderr } = await walletCommand('deposit', '1', '--to', fresh, '--keypair', keyFile, '--rpc', chain.url);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('insufficient funds for rent');
    expect(await balance(wallet.address)).toBe(before);
  });

  test('a deposit address that is not one is refused', async () => {
    const before = await balance(wallet.address);
    const { code, stderr } = await walletCommand('deposit', '22000000', '--to', 'SandboxGateway0', '--keypair', keyFile, '--rpc', chain.url);
    expect(code).toBe(2);
    expect(stderr).toContain('--to');
    expect(await balance(wallet.address)).toBe(before);
  });

  test.each(['', 'abc', 'AB'.repeat(32), 'ab'.repeat(33), '{"challenge":"' + 'ab'.repeat(32) + '"}'])('sign %p (not a challenge as issued) is refused', async (challenge) => {
    const { code, stdout, stderr } = await walletCommand('sign', challenge, '--keypair', keyFile);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('64 hex characters');
  });

  test('a keypair file that is missing, not 64 bytes, or whose public half is not its secret half is refused', async () => {
    expect((await walletCommand('address', '--keypair', join(dir, 'absent.json'))).stderr).toContain('bun run sandbox writes it');
    const short = join(dir, 'short.json');
    writeFileSync(short, JSON.stringify(Array(32).fill(7)));
    expect((await walletCommand('address', '--keypair', short)).stderr).toContain('not a Solana CLI keypair file');
    const bytes: number[] = JSON.parse(await Bun.file(keyFile).text());
    bytes[40] = (bytes[40]! + 1) % 256;
    const forged = join(dir, 'forged.json');
    writeFileSync(forged, JSON.stringify(bytes));
    const { code, stdout } = await walletCommand('address', '--keypair', forged);
    expect(code).toBe(1);
    expect(stdout).toBe('');
  });

  test('no command, an unknown one, or extra arguments: exit 2 and a pointer to --help', async () => {
    for (const args of [[], ['steal'], ['address', 'extra'], ['sign', 'ab'.repeat(32), 'extra']]) {
      const { code, stderr } = await walletCommand(...args, '--keypair', keyFile);
      expect(code).toBe(2);
      expect(stderr).toContain('--help');
    }
    const help = await walletCommand('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('deposit <lamports>');
  });
});

describe('bun run sandbox', () => {
  /** Starts the sandbox in `cwd`, waits for its instructions, reads the demo wallet, stops it. */
  async function sandboxRun(cwd: string, walletFile: string, env: Record<string, string> = {}) {
    const port = String(sandboxPorts().sandbox);
    const p = Bun.spawn(['bun', SANDBOX_MAIN], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SANDBOX_PORT: port, ...env }, stdout: 'pipe', stderr: 'pipe' });
    let out = '';
    const reader = p.stdout.getReader();
    while (!out.includes('Ctrl-C to stop')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the sandbox ended: ${out}${await new Response(p.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
    const demo = await readKeypairFile(walletFile);
    const funded: bigint = (await createSolanaRpc(`http://127.0.0.1:${port}`).getBalance(demo.address).send()).value;
    p.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    return { out, port, demo, funded };
  }

  test('funds a new demo wallet on each start, its throwaway key in data/sandbox-wallet.json (Solana CLI format, mode 0600), and prints the gateway command line', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cig-sandbox-'));
    try {
      const walletFile = join(cwd, 'data', 'sandbox-wallet.json');
      const first = await sandboxRun(cwd, walletFile);
      expect(first.out).toContain(`demo wallet (100 SOL): ${first.demo.address}`);
      expect(first.out).toContain(walletFile);
      expect(first.out).toContain('throwaway');
      expect(first.out).toContain(`GATEWAY_ADDRESS=${SANDBOX_GATEWAY_ADDRESS} MAINNET_RPC_URLS=http://127.0.0.1:${first.port} DEVNET_RPC_URLS=http://127.0.0.1:${first.port}`);
      expect(first.out).toContain('bun run wallet -- deposit');
      expect(first.funded).toBe(100_000_000_000n);
      expect((await Bun.file(walletFile).stat()).mode & 0o777).toBe(0o600);
      // A new chain, a new wallet: the old one's first deposit would repeat an old transaction.
      const second = await sandboxRun(cwd, walletFile);
      expect(second.demo.address).not.toBe(first.demo.address);
      expect(second.funded).toBe(100_000_000_000n);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);

  test('a keypair file named by SANDBOX_WALLET that exists is used as it is, never replaced', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cig-sandbox-'));
    try {
      const mine = join(cwd, 'my-key.json');
      const own = await keypairFile(mine);
      const bytes = await Bun.file(mine).text();
      const run = await sandboxRun(cwd, mine, { SANDBOX_WALLET: mine });
      expect(run.demo.address).toBe(own.address);
      expect(run.out).toContain(`demo wallet (100 SOL): ${own.address}`);
      expect(await Bun.file(mine).text()).toBe(bytes);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the wallet command for x402 (docs/x402.md, "Offline: pay per call on the sandbox chain")', () => {
  test('keygen writes a Solana CLI keypair file (mode 0600) and prints its address; an existing file is kept', async () => {
    const path = join(dir, 'fee-payer.json');
    const first = await walletCommand('keygen', path);
    expect(first.code, first.stderr).toBe(0);
    const made = await readKeypairFile(path);
    expect(first.stdout).toBe(made.address + '\n');
    expect((await Bun.file(path).stat()).mode & 0o777).toBe(0o600);
    expect((await walletCommand('keygen', path)).stdout).toBe(made.address + '\n');
    expect((await walletCommand('keygen')).code).toBe(2);
  });

  test('usdc mints atomic units to the wallet or --to (0 only creates the account), and balances prints SOL and USDC', async () => {
    const owner = (await chain.newWallet(0n)).address;
    const before = await walletCommand('balances', '--of', owner, '--rpc', chain.url);
    expect(before.stdout).toBe(`${owner}  0 lamports (0 SOL)  0 USDC units (0.000000 USDC)\n`);
    expect((await walletCommand('usdc', '0', '--to', owner, '--rpc', chain.url)).code).toBe(0);
    expect((await createSolanaRpc(chain.url).getTokenAccountsByOwner(owner, { mint: USDC_MINT as Address }, { encoding: 'base64' }).send()).value).toHaveLength(1);
    const minted = await walletCommand('usdc', '1500000', '--keypair', keyFile, '--rpc', chain.url);
    expect(minted.code, minted.stderr).toBe(0);
    const mine = await walletCommand('balances', '--keypair', keyFile, '--rpc', chain.url);
    expect(mine.stdout).toMatch(new RegExp(`^${wallet.address}  \\d+ lamports \\([\\d.]+ SOL\\)  1500000 USDC units \\(1\\.500000 USDC\\)\\n$`));
    for (const bad of ['-1', '1.5', 'x', '18446744073709551616']) expect((await walletCommand('usdc', bad, '--keypair', keyFile, '--rpc', chain.url)).code).toBe(2);
    expect((await walletCommand('balances', '--of', 'nobody', '--rpc', chain.url)).code).toBe(2);
  });

  test.each(['https://gateway.example/api/chain/find-ata', 'http://localhost.example:3000/x'])('pay refuses a gateway off this machine (%p) before anything is signed', async (url) => {
    const { code, stderr } = await walletCommand('pay', url, '--keypair', keyFile, '--rpc', chain.url);
    expect(code).toBe(2);
    expect(stderr).toContain('on this machine');
  });

  test('balances without a sandbox says so in one line', async () => {
    const { code, stderr } = await walletCommand('balances', '--keypair', keyFile, '--rpc', `http://127.0.0.1:${freePort()}`);
    expect(code).toBe(1);
    expect(stderr).toContain('is bun run sandbox running?');
  });
});
