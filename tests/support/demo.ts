// `bun run demo`: the whole agent journey against the sandbox chain, offline and with no real SOL.
// A new wallet is funded, deposits to the gateway address, the watcher sees it, the wallet signs
// a challenge and claims its key, spends free calls and credit, meets 402, tops up and claims a
// rotated key. Last, a second agent with no account pays for one call with x402 (USDC). Every
// step is a real HTTP call to a real gateway on loopback.
import { startSandbox } from './sandbox/index.ts';
import { startGateway } from './gateway.ts';
import { claimWhenSeen, deposit, signChallenge } from './agent.ts';
import { payer, payingFetch, usdcOf, x402World } from './x402.ts';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PRICE = 2_200_000;
/** 0.01 USDC per x402-paid call. */
const X402_PRICE = 10_000;
const sol = (lamports: number | bigint) => `${Number(lamports) / 1e9} SOL`;
const mask = (key: string) => `${key.slice(0, 8)}…${key.slice(-4)}`;
let step = 0;
const say = (text: string) => console.log(`\n${++step}. ${text}`);
const show = (label: string, value: unknown) => console.log(`   ${label}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);

/** The deposit status once the watcher has seen the wallet's deposit. */
async function seen(wallet: string) {
  const until = Date.now() + 10_000;
  for (;;) {
    const { body } = await gw.get(`/api/keys/deposit?wallet=${wallet}`);
    if (body.status === 'claimable' || Date.now() > until) return body;
    await Bun.sleep(100);
  }
}

const chain = await startSandbox();
const x402 = await x402World(chain, mkdtempSync(join(tmpdir(), 'cig-demo-')), X402_PRICE);
const gatewayWallet = { address: x402.payTo };
const gw = await startGateway({
  mainnetRpcUrls: [chain.url],
  devnetRpcUrls: [chain.url],
  ...x402.settings,
  freeCalls: 2,
  priceLamports: PRICE,
  depositPollSeconds: 0.5,
});
gw.services.watcher!.start(0.5);

try {
  console.log(`Sandbox chain at ${chain.url}; gateway at ${gw.url}; deposits go to ${gatewayWallet.address}`);
  console.log(`Price ${PRICE} lamports per paid call, ${gw.config.freeCalls} free calls on the first claim.`);

  say('A new agent wallet is funded on the sandbox chain.');
  const agent = await chain.newWallet(1_000_000_000n);
  show('wallet', agent.address);
  show('GET /api/chain/balance', (await gw.get(`/api/chain/balance?wallet=${agent.address}`)).body.balance_sol + ' SOL (free call)');

  const mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
  const paid = (key?: string) => gw.get(`/api/chain/find-ata?wallet=${agent.address}&mint=${mint}`, key ? { 'x-api-key': key } : {});

  say('It tries a paid endpoint without a key.');
  const refused = await paid();
  show(`GET /api/chain/find-ata -> ${refused.status}`, { error: refused.body.error, priceLamports: refused.body.priceLamports, payTo: refused.body.payTo });

  say(`It deposits ${sol(3 * PRICE)} to the gateway address (a real transfer on the sandbox chain).`);
  show('deposit signature', await deposit(chain, agent, gatewayWallet.address, BigInt(3 * PRICE)));

  say('The watcher sees the deposit: the wallet has a claim waiting.');
  show('GET /api/keys/deposit', await seen(agent.address));

  say('A claim is a challenge bound to the wallet, signed with its Ed25519 key (the private key never leaves the agent).');
  const { body: ch } = await gw.get(`/api/keys/challenge?wallet=${agent.address}`);
  const signature = await signChallenge(agent, ch.challenge);
  show('challenge', ch.challenge);
  show('signature (base58)', signature.slice(0, 24) + '…');

  say('It claims its key with that challenge and signature.');
  const claimed = await gw.post('/api/keys/claim', { wallet: agent.address, challenge: ch.challenge, signature });
  if (claimed.status !== 200) throw new Error(`claim refused: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  const key: string = claimed.body.apiKey;
  show(`POST /api/keys/claim (challenge ${ch.challenge}) -> ${claimed.status}`, mask(key) + ' (returned once; only its SHA-256 is stored)');
  show('GET /api/keys/me', (await gw.get('/api/keys/me', { 'x-api-key': key })).body);

  say('It spends its free calls, then credit, until it meets 402.');
  for (let i = 0; ; i++) {
    const res = await paid(key);
    show(`call ${i + 1} -> ${res.status}`, res.status === 200 ? `ata ${res.body.ataAddress}; free calls left ${res.headers.get('x-free-calls-remaining')}, credit left ${res.headers.get('x-credits-remaining')} lamports` : res.body.error);
    if (res.status !== 200) break;
  }

  say(`It tops up with ${sol(PRICE)} and claims again: a rotated key that carries the credit.`);
  await deposit(chain, agent, gatewayWallet.address, BigInt(PRICE));
  const rotated = await claimWhenSeen(gw, agent);
  show('new apiKey', mask(rotated));
  show('old key now', `${(await paid(key)).status} (revoked)`);
  const again = await paid(rotated);
  show(`new key call -> ${again.status}`, `credit left ${again.headers.get('x-credits-remaining')} lamports`);

  say('Another agent, with no account and no key, pays for one call with x402: 0.01 USDC, signed by its wallet.');
  const visitor = await payer(chain, 1_000_000n);
  const before = await usdcOf(chain, visitor.address);
  const res = await payingFetch(visitor, chain)(`${gw.url}/api/chain/find-ata?wallet=${visitor.address}&mint=${mint}`);
  const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  show(`GET /api/chain/find-ata -> 402, then paid -> ${res.status}`, `ata ${((await res.json()) as { ataAddress: string }).ataAddress}`);
  show('PAYMENT-RESPONSE', { success: settled.success, transaction: settled.transaction, payer: settled.payer, network: settled.network });
  show('its USDC', `${before} -> ${await usdcOf(chain, visitor.address)} (raw units; the gateway's fee payer paid the SOL fee)`);
  console.log('\nDone: the journey above ran against a real gateway, a real SQLite file and a real Solana runtime.');
} finally {
  await gw.stop();
  await chain.stop();
}
