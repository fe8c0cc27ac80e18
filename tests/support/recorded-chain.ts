// A mainnet-shaped JSON-RPC node that holds only some recorded mainnet transactions (tests/fixtures/mainnet):
// getTransaction answers the recorded result; getSignaturesForAddress and getTokenAccountsByOwner answer what a
// node holding just those transactions would (an address's transactions newest first, `before` standing for
// its signature's slot as on Agave; the token accounts their balances name for an owner, as they stood after
// the newest of them). Memos are not rebuilt (null). Anything else is a JSON-RPC "method not found".
import { address, getAddressEncoder } from '@solana/kit';
import { normalizeTransaction, type NormalizedTransaction } from '../../src/chain/tx/normalize';
import { parseJson, toJson } from '../../src/json';
import { loadRecorded } from './recorded-transactions';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

interface Held {
  raw: unknown;
  tx: NormalizedTransaction;
  signature: string;
}

export interface RecordedChain {
  url: string;
  /** JSON-RPC requests received, for one method or all. */
  calls(method?: string): number;
  stop(): void;
}

/** Token account -> its mint, owner, program and amount after the newest transaction naming it. */
function tokenAccounts(held: readonly Held[]) {
  const out = new Map<string, { owner: string | null; mint: string; programId: string; amount: bigint }>();
  for (const { tx } of [...held].sort((a, b) => a.tx.slot - b.tx.slot)) {
    // balances recorded before the node reported programId (early 2022) were all SPL Token's
    for (const b of tx.postTokenBalances) out.set(tx.accountKeys[b.accountIndex]!, { owner: b.owner, mint: b.mint, programId: b.programId ?? TOKEN_PROGRAM, amount: b.amount });
  }
  return out;
}

/** Bytes 0..72 of a token account (mint, owner, amount), the rest zero: what a dataSlice of it reads. */
function accountData(mint: string, owner: string, amount: bigint, slice?: { offset: number; length: number }): string {
  const data = new Uint8Array(165);
  const addresses = getAddressEncoder();
  data.set(addresses.encode(address(mint)), 0);
  data.set(addresses.encode(address(owner)), 32);
  new DataView(data.buffer).setBigUint64(64, amount, true);
  const part = slice ? data.subarray(slice.offset, slice.offset + slice.length) : data;
  return Buffer.from(part).toString('base64');
}

export async function startRecordedChain(files: readonly string[]): Promise<RecordedChain> {
  const held: Held[] = [];
  for (const file of files) {
    const raw = await loadRecorded(file);
    const tx = normalizeTransaction(raw);
    held.push({ raw, tx, signature: tx.signatures[0]! });
  }
  const accounts = tokenAccounts(held);
  const counts = new Map<string, number>();
  const answer: Record<string, (params: any[]) => unknown> = {
    getTransaction: ([signature]) => held.find((h) => h.signature === signature)?.raw ?? null,
    getSignaturesForAddress: ([address, config = {}]) => {
      const limit = config.limit ?? 1000;
      const beforeSlot = config.before === undefined ? Infinity : held.find((h) => h.signature === config.before)?.tx.slot;
      if (beforeSlot === undefined) return [];
      return held
        .filter((h) => h.tx.slot < beforeSlot && h.tx.accountKeys.includes(address))
        .sort((a, b) => b.tx.slot - a.tx.slot)
        .slice(0, limit)
        .map((h) => ({ signature: h.signature, slot: h.tx.slot, err: h.tx.err ?? null, memo: null, blockTime: h.tx.blockTime, confirmationStatus: 'finalized' }));
    },
    getTokenAccountsByOwner: ([owner, filter, config = {}]) => ({
      context: { slot: Math.max(...held.map((h) => h.tx.slot)) },
      value: [...accounts]
        .filter(([, a]) => a.owner === owner && (filter.programId === undefined || filter.programId === a.programId) && (filter.mint === undefined || filter.mint === a.mint))
        .map(([pubkey, a]) => ({
          pubkey,
          account: { data: [accountData(a.mint, owner, a.amount, config.dataSlice), 'base64'], executable: false, lamports: 2039280, owner: a.programId, rentEpoch: 18446744073709551615n, space: 165 },
        })),
    }),
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const { id, method, params } = parseJson(await req.text()) as { id: number; method: string; params: any[] };
      counts.set(method, (counts.get(method) ?? 0) + 1);
      const reply = method in answer ? { result: answer[method]!(params ?? []) } : { error: { code: -32601, message: 'Method not found' } };
      return new Response(toJson({ jsonrpc: '2.0', id, ...reply }), { headers: { 'content-type': 'application/json' } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls: (method) => (method ? (counts.get(method) ?? 0) : [...counts.values()].reduce((a, b) => a + b, 0)),
    stop: () => server.stop(true),
  };
}
