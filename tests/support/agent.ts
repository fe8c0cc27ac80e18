// What an agent does to buy access, written once for the tests and the demo: deposit SOL with a
// real transfer, ask for a challenge, sign it with the wallet's Ed25519 key, claim the key.
import { base58 } from '@scure/base';
import { signBytes, type Address, type KeyPairSigner } from '@solana/kit';
import type { TestGateway } from './gateway.ts';
import type { Sandbox } from './sandbox/index.ts';

export interface HttpClient {
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
}

/** An HttpClient over `fetch` for a gateway at `base` (a non-JSON body reads as null). */
export function httpClient(base: string, send: (url: string, init?: RequestInit) => Promise<Response> = fetch): HttpClient {
  const read = async (res: Response) => ({ status: res.status, body: await res.json().catch(() => null), headers: res.headers });
  return {
    get: async (path, headers = {}) => read(await send(base + path, { headers })),
    post: async (path, body, headers = {}) =>
      read(await send(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })),
  };
}

export async function signChallenge(wallet: KeyPairSigner, challenge: string): Promise<string> {
  return base58.encode(new Uint8Array(await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(challenge))));
}

/** GET a challenge bound to the wallet, sign it, POST the claim. Returns the claim response. */
export async function claim(http: HttpClient, wallet: KeyPairSigner) {
  const { status, body } = await http.get(`/api/keys/challenge?wallet=${wallet.address}`);
  if (status !== 200) throw new Error(`challenge refused: ${status} ${JSON.stringify(body)}`);
  const signature = await signChallenge(wallet, body.challenge);
  return http.post('/api/keys/claim', { wallet: wallet.address, signature, challenge: body.challenge });
}

/** Claims as soon as the deposit has been seen (the watcher may need a poll or two). */
export async function claimWhenSeen(http: HttpClient, wallet: KeyPairSigner, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await claim(http, wallet);
    if (res.status === 200) return res.body.apiKey as string;
    if (res.status !== 404 || Date.now() > until) throw new Error(`claim failed: ${res.status} ${JSON.stringify(res.body)}`);
    await Bun.sleep(100);
  }
}

/** What a deposit needs of a chain: the sandbox in process, or any node over JSON-RPC (sandbox/testing.ts). */
export interface Transfers {
  transferSol(from: KeyPairSigner, to: Address, lamports: bigint): Promise<string>;
}

export async function deposit(chain: Transfers, wallet: KeyPairSigner, gateway: Address, lamports: bigint): Promise<string> {
  return chain.transferSol(wallet, gateway, lamports);
}

/** The body a Helius enhanced-transaction webhook posts for one native transfer. */
export function heliusPayload(signature: string, from: string, to: string, amount: number | bigint) {
  return [
    {
      signature,
      type: 'TRANSFER',
      source: 'SYSTEM_PROGRAM',
      fee: 5000,
      feePayer: from,
      timestamp: Math.floor(Date.now() / 1000),
      nativeTransfers: [{ fromUserAccount: from, toUserAccount: to, amount: Number(amount) }],
      tokenTransfers: [],
      accountData: [],
    },
  ];
}

/** A key holding exactly `lamports` of credit (plus the gateway's free calls, if any). */
export async function fundedKey(gw: TestGateway, chain: Sandbox, lamports: number): Promise<{ key: string; wallet: Address; signer: KeyPairSigner }> {
  const gateway = gw.config.gatewayAddress as Address;
  const secret = gw.config.webhookSecret!;
  const agent = await chain.newWallet(BigInt(lamports) + 1_000_000_000n);
  const sig = await deposit(chain, agent, gateway, BigInt(lamports));
  const hook = await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gateway, lamports), { authorization: secret });
  if (hook.status !== 200) throw new Error(`webhook failed: ${hook.status} ${JSON.stringify(hook.body)}`);
  return { key: await claimWhenSeen(gw, agent, 0), wallet: agent.address, signer: agent };
}
