// A mainnet-shaped JSON-RPC node that holds only some recorded mainnet transactions (tests/fixtures/mainnet):
// getTransaction answers the recorded result in the json encoding the gateway asks for (json-encoding.ts; a
// jsonParsed recording as recorded when jsonParsed is asked); getSignaturesForAddress, getTokenAccountsByOwner and getMultipleAccounts answer what a
// node holding just those transactions would (an address's transactions newest first, `before` standing for
// its signature's slot as on Agave; the token accounts their balances name an owner for, as they stood after
// the newest of them; any other account, of which nothing was recorded, as absent). Memos are not rebuilt
// (null). Anything else is a JSON-RPC "method not found".
import { address, getAddressEncoder } from '@solana/kit';
import { normalizeTransaction, type NormalizedTransaction } from '../../src/chain/tx/normalize';
import { parseJson, toJson } from '../../src/json';
import { formatUnits } from '../../src/chain/format';
import { loadRecorded } from './recorded-transactions';
import { asJsonEncoding } from './json-encoding';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

interface Held {
  raw: unknown;
  /** The result in the json encoding. */
  json: unknown;
  tx: NormalizedTransaction;
  signature: string;
}

export interface RecordedChain {
  url: string;
  /** JSON-RPC requests received, for one method or all. */
  calls(method?: string): number;
  /** The params of each request for `method`, in order. */
  requests(method: string): unknown[][];
  stop(): void;
}

/** Token account -> its mint, owner, program and amount after the newest transaction naming it. */
function tokenAccounts(held: readonly Held[]) {
  const out = new Map<string, { owner: string | null; mint: string; programId: string; amount: bigint; decimals: number }>();
  for (const { tx } of [...held].sort((a, b) => a.tx.slot - b.tx.slot)) {
    // balances recorded before the node reported programId (early 2022) were all SPL Token's
    for (const b of tx.postTokenBalances) out.set(tx.accountKeys[b.accountIndex]!, { owner: b.owner, mint: b.mint, programId: b.programId ?? TOKEN_PROGRAM, amount: b.amount, decimals: b.decimals });
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

/** A token account as getMultipleAccounts answers it in jsonParsed. */
function parsedTokenAccount(mint: string, owner: string, amount: bigint, decimals: number, programId: string) {
  const ui = formatUnits(amount, decimals);
  const tokenAmount = { amount: amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui };
  const info = { isNative: false, mint, owner, state: 'initialized', tokenAmount };
  const program = programId === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
  return { data: { parsed: { info, type: 'account' }, program, space: 165 }, executable: false, lamports: 2039280, owner: programId, rentEpoch: 18446744073709551615n, space: 165 };
}

export async function startRecordedChain(files: readonly string[]): Promise<RecordedChain> {
  const held: Held[] = [];
  for (const file of files) {
    const raw = await loadRecorded(file);
    const tx = normalizeTransaction(raw);
    held.push({ raw, json: asJsonEncoding(raw), tx, signature: tx.signatures[0]! });
  }
  const accounts = tokenAccounts(held);
  const received: { method: string; params: unknown[] }[] = [];
  const answer: Record<string, (params: any[]) => unknown> = {
    getTransaction: ([signature, config = {}]) => {
      const h = held.find((one) => one.signature === signature);
      return (config.encoding === 'jsonParsed' ? h?.raw : h?.json) ?? null;
    },
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
    getMultipleAccounts: ([addresses]) => ({
      context: { slot: Math.max(...held.map((h) => h.tx.slot)) },
      value: (addresses as string[]).map((pubkey) => {
        const a = accounts.get(pubkey);
        return a?.owner ? parsedTokenAccount(a.mint, a.owner, a.amount, a.decimals, a.programId) : null;
      }),
    }),
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const { id, method, params } = parseJson(await req.text()) as { id: number; method: string; params: any[] };
      received.push({ method, params: params ?? [] });
      const reply = method in answer ? { result: answer[method]!(params ?? []) } : { error: { code: -32601, message: 'Method not found' } };
      return new Response(toJson({ jsonrpc: '2.0', id, ...reply }), { headers: { 'content-type': 'application/json' } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls: (method) => received.filter((r) => method === undefined || r.method === method).length,
    requests: (method) => received.filter((r) => r.method === method).map((r) => r.params),
    stop: () => server.stop(true),
  };
}
