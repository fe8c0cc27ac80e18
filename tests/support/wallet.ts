// `bun run wallet -- <command>`: act as the sandbox's demo wallet to buy a key by hand with curl
// (README, "Offline: buy a key on the sandbox chain") or to pay per call with x402 (docs/x402.md,
// "Offline: pay per call on the sandbox chain"). Its key is a throwaway one on a throwaway chain,
// so the command talks only to a node and a gateway on this machine, never across the network.
import { parseArgs } from 'node:util';
import { createSolanaRpc, isAddress, type Address } from '@solana/kit';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { extractReceiptFromResponse, verifyReceiptSignatureJWS, type JWSSignedReceipt } from '@x402/extensions/offer-receipt';
import { appendPaymentIdentifierToExtensions, isValidPaymentId } from '@x402/extensions/payment-identifier';
import { createSIWxClientHook, type SolanaSigner } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';
import { deposit, signChallenge } from './agent.ts';
import { demoWalletPath, keypairFile, readKeypairFile, SANDBOX_GATEWAY_ADDRESS, sandboxPort } from './sandbox/offline.ts';
import { transfersOverRpc } from './sandbox/testing.ts';
import { mintUsdc, solOf, usdcOf, x402ClientOf } from './x402.ts';

const USAGE = `usage: bun run wallet -- <command> [options]

  address               print the wallet's address
  deposit <lamports>    send that many lamports to the gateway's deposit address (--to); prints the transaction signature
  sign <challenge>      sign a challenge from GET /api/keys/challenge (base58 Ed25519 of its UTF-8 bytes);
                        prints the JSON body for POST /api/keys/claim
  keygen <path>         write a new Solana CLI keypair file (mode 0600; an existing file is kept); prints its address
  usdc <units>          mint that many USDC atomic units (1000000 = 1 USDC) to --to (default: this wallet); the sandbox
                        creates the owner's USDC account if needed, so 0 only creates it
  balances              print the SOL and USDC of --of (default: this wallet)
  pay <url>             a paid GET on a gateway on this machine, paid with x402 by @x402/fetch; prints the answer's
                        body, then the settlement (PAYMENT-RESPONSE) and, when the gateway signs receipts, the receipt
                        checked against its published key; fails unless the answer is 2xx
  signin <url>          a paid GET signed in with this wallet (sign-in-with-x, @x402/extensions' client hook): the call
                        is debited from the wallet's credit, no key sent; prints the answer; fails unless it is 2xx

  --id <id>             pay: name the payment (payment-identifier, 16-128 letters, digits, - or _)
  --resend              pay: send the same signed payment once more, as a client that lost the answer would

  --keypair <path>      Solana CLI keypair file (default data/sandbox-wallet.json, new on each bun run sandbox; SANDBOX_WALLET)
  --rpc <url>           the sandbox chain, on this machine only (default http://127.0.0.1:$SANDBOX_PORT, else :8899)
  --to <address>        deposit: the deposit address (default ${SANDBOX_GATEWAY_ADDRESS}, the sandbox gateway's); usdc: the owner
  --of <address>        balances: whose
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

function loopbackUrl(text: string, what = '--rpc'): string {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//.test(text) ? text : `http://${text}`);
  } catch {
    throw new UsageError(`${what}: not a URL: ${JSON.stringify(text)}`);
  }
  if (!/^https?:$/.test(url.protocol) || !LOOPBACK.test(url.hostname)) {
    throw new UsageError(`${what}: this throwaway wallet talks only to a sandbox chain and a gateway on this machine (localhost, 127.x.x.x or [::1])`);
  }
  return url.href;
}

function addressArg(flag: string, text: string): Address {
  if (!isAddress(text)) throw new UsageError(`${flag}: not a Solana address: ${JSON.stringify(text)}`);
  return text;
}

/** The sandbox's answer, or a line saying that no sandbox answers. */
async function onChain<T>(rpc: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof TypeError || (e as NodeJS.ErrnoException).code === 'ConnectionRefused') throw new Error(`no sandbox chain answers at ${rpc}: is bun run sandbox running?`);
    throw e;
  }
}

/** USDC's atomic units as the person reads them: 1000000 -> 1.000000. */
const usdc = (units: bigint) => `${units / 1_000_000n}.${String(units % 1_000_000n).padStart(6, '0')}`;

async function run(argv: string[], out: (s: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      keypair: { type: 'string' },
      rpc: { type: 'string' },
      to: { type: 'string' },
      of: { type: 'string' },
      id: { type: 'string' },
      resend: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  const [command, arg, ...extra] = positionals;
  if (values.help) return out(USAGE);
  if (!command) throw new UsageError('no command given');
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const keypair = values.keypair ?? demoWalletPath();
  const rpcUrl = () => loopbackUrl(values.rpc ?? `http://127.0.0.1:${sandboxPort()}`);
  switch (command) {
    case 'keygen': {
      if (arg === undefined) throw new UsageError('keygen: <path> of the keypair file to write, e.g. data/fee-payer.json');
      return out((await keypairFile(arg)).address + '\n');
    }
    case 'usdc': {
      if (arg === undefined || !/^\d{1,20}$/.test(arg) || BigInt(arg) > U64_MAX) throw new UsageError(`usdc: <units> must be a whole number of USDC atomic units (1000000 = 1 USDC), got ${JSON.stringify(arg ?? '')}`);
      const rpc = rpcUrl();
      const owner = values.to !== undefined ? addressArg('--to', values.to) : (await readKeypairFile(keypair)).address;
      return out((await onChain(rpc, () => mintUsdc({ url: rpc }, owner, BigInt(arg)))) + '\n');
    }
    case 'balances': {
      if (arg !== undefined) throw new UsageError(`unexpected argument: ${arg}`);
      const rpc = rpcUrl();
      const owner = values.of !== undefined ? addressArg('--of', values.of) : (await readKeypairFile(keypair)).address;
      const [lamports, units] = await onChain(rpc, () => Promise.all([solOf({ url: rpc }, owner), usdcOf({ url: rpc }, owner)]));
      return out(`${owner}  ${lamports} lamports (${Number(lamports) / 1e9} SOL)  ${units} USDC units (${usdc(units)} USDC)\n`);
    }
    case 'pay': {
      if (arg === undefined) throw new UsageError('pay: <url> of a paid GET on the gateway, e.g. "localhost:3000/api/chain/find-ata?wallet=...&mint=..."');
      const url = loopbackUrl(arg, 'pay');
      const rpc = rpcUrl();
      if (values.id !== undefined && !isValidPaymentId(values.id)) throw new UsageError(`--id: 16 to 128 letters, digits, - or _, got ${JSON.stringify(values.id)}`);
      const client = x402ClientOf(await readKeypairFile(keypair), { url: rpc });
      if (values.id !== undefined) client.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions ?? {}, values.id));
      // The payment as it went out, to send it once more.
      let sent: Request | undefined;
      const keeping = (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (request.headers.has('payment-signature')) sent = request.clone();
        return fetch(request);
      }) as typeof fetch;
      const pay = wrapFetchWithPayment(keeping, client);
      const answers = [await onChain(rpc, () => pay(url))];
      if (values.resend && sent) answers.push(await fetch(sent));
      for (const res of answers) {
        out((await res.text()) + '\n');
        const settled = res.headers.get('payment-response');
        if (settled) out(JSON.stringify(decodePaymentResponseHeader(settled)) + '\n');
        const receipt = extractReceiptFromResponse(res);
        if (receipt) {
          const { keys } = (await (await fetch(new URL('/.well-known/jwks.json', url))).json()) as { keys: Parameters<typeof verifyReceiptSignatureJWS>[1][] };
          const checked = await verifyReceiptSignatureJWS(receipt as JWSSignedReceipt, keys[0]);
          out(`receipt verified with the gateway's published key: ${JSON.stringify(checked)}\n`);
        }
        if (!res.ok) throw new Error(`the gateway answered ${res.status}`);
      }
      return;
    }
    case 'signin': {
      if (arg === undefined) throw new UsageError('signin: <url> of a paid GET on the gateway, e.g. "localhost:3000/api/chain/find-ata?wallet=...&mint=..."');
      const url = loopbackUrl(arg, 'signin');
      const wallet = await readKeypairFile(keypair);
      const http = new x402HTTPClient(new x402Client()).onPaymentRequired(createSIWxClientHook(wallet as unknown as SolanaSigner));
      let res: Response;
      try {
        res = await wrapFetchWithPayment(fetch, http)(url);
      } catch (e) {
        // Signed in and still refused: the client then tries to pay, which this command does not.
        throw new Error(`signing in did not buy the call (no credit? see the 402 of a plain GET): ${e instanceof Error ? e.message : String(e)}`);
      }
      out((await res.text()) + '\n');
      if (!res.ok) throw new Error(`the gateway answered ${res.status}`);
      return;
    }
    case 'address': {
      if (arg !== undefined) throw new UsageError(`unexpected argument: ${arg}`);
      return out((await readKeypairFile(keypair)).address + '\n');
    }
    case 'deposit': {
      const lamports = lamportsArg(arg);
      const rpc = rpcUrl();
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
