// Records the response examples of the OpenAPI document from real answers of the real gateway:
// - on mainnet-beta, the node is a replay of recorded mainnet replies (tests/fixtures/mainnet), for
//   the capabilities whose every RPC call has a recorded reply matching the example input;
// - on devnet, the node is the sandbox chain (real programs on LiteSVM), for the rest.
// `bun run openapi:examples` writes src/capabilities/recorded-examples.json; tests/integration/openapi-examples.test.ts
// re-records the mainnet ones and expects the committed file to match.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { EXAMPLE_MINT, EXAMPLE_SIGNATURE, EXAMPLE_WALLET } from '../../src/capabilities/examples.ts';
import type { RecordedExample } from '../../src/capabilities/recorded-examples.ts';
import { parseJson, toJson } from '../../src/json.ts';
import { fundedKey } from './agent.ts';
import { startGateway } from './gateway.ts';
import { startSandbox } from './sandbox/index.ts';

const FIXTURES = resolve(import.meta.dir, '../fixtures/mainnet');
const fixture = (path: string) => parseJson(require('node:fs').readFileSync(`${FIXTURES}/${path}`, 'utf8'));

/** The recorded reply for each method the mainnet examples need; anything else is refused. */
const REPLIES: Record<string, unknown> = {
  getBalance: fixture('getBalance/wallet-8wytzy-gem.json'),
  getLatestBlockhash: fixture('getLatestBlockhash/mainnet-aug2025-sava.json'),
  getRecentPrioritizationFees: fixture('getRecentPrioritizationFees/usdc-mint-150-slots-solrpc-canister.json'),
  getTransaction: fixture('getTransaction/jupiter-v6-route-sol-to-pump-token-raydium-jeffro-1.json'),
};

/** The mainnet examples: inputs matching the recorded replies above. */
export const MAINNET_REQUESTS: Record<string, Record<string, string>> = {
  balance: { wallet: EXAMPLE_WALLET },
  blockhash: {},
  'optimal-fee': { accounts: EXAMPLE_MINT, computeUnits: '200000' },
  'decode-tx': { signature: EXAMPLE_SIGNATURE },
};

function startReplay() {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const { id, method } = parseJson(await req.text()) as { id: number; method: string };
      const reply = method in REPLIES ? { result: REPLIES[method] } : { error: { code: -32601, message: `no recorded reply for ${method}` } };
      return new Response(toJson({ jsonrpc: '2.0', id, ...reply }), { headers: { 'content-type': 'application/json' } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export async function recordExamples(opts: { sandbox: boolean }): Promise<Record<string, RecordedExample>> {
  const replay = startReplay();
  const chain = await startSandbox();
  const gatewayAddress = (await generateKeyPairSigner()).address;
  const gw = await startGateway({
    mainnetRpcUrls: [replay.url],
    devnetRpcUrls: [chain.url],
    paymentNetwork: 'devnet',
    gatewayAddress,
    webhookSecret: 'whsec_examples',
    rpcRetries: 0,
  });
  const out: Record<string, RecordedExample> = {};
  try {
    const headers = { 'x-api-key': (await fundedKey(gw, chain, 100_000_000)).key };
    const get = async (name: string, request: Record<string, string>) => {
      const res = await gw.get(`/api/chain/${name}?${new URLSearchParams(request)}`, headers);
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
      out[name] = { request, response: res.body };
    };
    for (const [name, request] of Object.entries(MAINNET_REQUESTS)) await get(name, request);
    if (!opts.sandbox) return out;

    const owner = await chain.newWallet(2_000_000_000n);
    const usd = await chain.createMint({ authority: chain.payer, decimals: 6 });
    const t22 = await chain.createMint({ authority: chain.payer, decimals: 9, tokenProgram: 'token-2022', extensions: { transferFee: { basisPoints: 100, maximumFee: 5_000_000_000n } } });
    await chain.mintTo(usd, chain.payer, owner.address, 1_500_000n);
    await chain.mintTo(t22, chain.payer, owner.address, 25_000_000_000n);
    await chain.mintTo(t22, chain.payer, chain.payer.address, 75_000_000_000n);
    const friend = await generateKeyPairSigner();
    await chain.transferSol(owner, friend.address, 250_000_000n, { memo: 'rent split' });
    const devnet = { network: 'devnet' };
    await get('token-accounts', { wallet: owner.address, ...devnet });
    await get('transactions', { wallet: owner.address, limit: '2', ...devnet });
    await get('find-ata', { wallet: owner.address, mint: t22, ...devnet });
    await get('token-profile', { mint: t22, ...devnet });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(owner.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash('H3asooJct4u6fQmtgTGEKrBhhuSnaHJoYJuB4N1eNG4z'), lastValidBlockHeight: 1n }, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: createNoopSigner(owner.address), destination: friend.address, amount: 1_000_000n }), m),
    );
    const request = { transaction: getBase64EncodedWireTransaction(compileTransaction(message)), ...devnet };
    const sim = await gw.post('/api/chain/simulate', request, headers);
    if (sim.status !== 200) throw new Error(`simulate: ${sim.status} ${JSON.stringify(sim.body)}`);
    out.simulate = { request, response: sim.body };
    return out;
  } finally {
    await gw.stop();
    await chain.stop();
    replay.stop();
  }
}

if (import.meta.main) {
  const examples = await recordExamples({ sandbox: true });
  writeFileSync(resolve(import.meta.dir, '../../src/capabilities/recorded-examples.json'), JSON.stringify(examples, null, 2) + '\n');
  console.log(`recorded ${Object.keys(examples).length} examples`);
}
