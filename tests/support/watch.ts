// Shared setup for the watch tests: a key with known credit (through the real deposit and claim
// path of the store), a webhook receiver on loopback that records what it is sent and answers as
// told, and activities shaped as the ingester hands them to the sink.
import { generateKeyPairSigner } from '@solana/kit';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { TestGateway } from './gateway.ts';
import type { Activity } from '../../src/watch/sink.ts';

export async function keyWithCredit(gw: TestGateway, lamports: bigint, freeCalls = 0): Promise<{ key: string; wallet: string }> {
  const wallet = (await generateKeyPairSigner()).address;
  const store = gw.services.store;
  await store.recordDeposit({ signature: base58.encode(randomBytes(64)), network: 'mainnet-beta', wallet, lamports, source: 'webhook' }, 0n);
  const claimed = await store.claim(wallet, freeCalls, Date.now());
  return { key: claimed!.apiKey, wallet };
}

export const newWallet = async () => (await generateKeyPairSigner()).address as string;

let slot = 1000;
/** One transaction as the ingester would record it for a wallet (its decoded item included). */
export function activity(over: Partial<Activity> = {}): Activity {
  const signature = base58.encode(randomBytes(64));
  const s = slot++;
  return {
    signature,
    slot: s,
    blockTime: Math.floor(Date.now() / 1000),
    commitment: 'confirmed',
    item: { signature, slot: s, blockTime: null, err: null, error: null, memo: null, confirmationStatus: 'confirmed', foundVia: 'wallet', summary: 'Received 1 SOL', kind: 'transfer' },
    ...over,
  };
}

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A webhook receiver on loopback; `answer` decides each status (default 200). */
export function receiver(answer: (n: number, r: Received) => number = () => 200) {
  const got: Received[] = [];
  let n = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const r = { headers: Object.fromEntries(req.headers), body: await req.text(), at: Date.now() };
      got.push(r);
      return new Response('', { status: answer(n++, r) });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, got, stop: () => server.stop(true) };
}
