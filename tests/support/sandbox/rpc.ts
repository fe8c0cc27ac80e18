// JSON-RPC methods with mainnet's params, result shapes and error messages.

import { base58 } from '@scure/base';
import {
  API_VERSION,
  FEATURE_SET,
  GENESIS_HASH,
  STATUS_CACHE_SLOTS,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  TOKEN_PROGRAMS,
  USDC_MINT,
} from './constants.ts';
import { RpcError, invalidParams } from './errors.ts';
import { accountEncoding, dataSlice, encodeAccount, renderParsedInner, renderTokenBalances, renderTransaction, txEncoding, type AccountEncoding, type DataSlice } from './encode.ts';
import { renderReturnData, type Ledger } from './ledger.ts';
import { decodeMint, decodeTokenAccount, mintDecimals, tokenAccountHeader, tokenStateKind, uiTokenAmount, type RawAccount } from './token.ts';
import { decodeWire, parsePubkey, parseSignature, parseWireTx, sanitize, verifySignatures } from './wire.ts';

type Params = unknown[];
type Config = Record<string, unknown>;
type Handler = (params: Params) => unknown;

const COMMITMENTS = ['processed', 'confirmed', 'finalized', 'recent', 'single', 'singleGossip', 'root', 'max'];

function arg(params: Params, i: number): unknown {
  if (params.length <= i || params[i] === undefined) throw invalidParams(`Invalid params: invalid length ${params.length}, expected at least ${i + 1} element${i ? 's' : ''}.`);
  return params[i];
}

function config(params: Params, i: number): Config {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw invalidParams('Invalid params: invalid type: expected a map.');
  const cfg = c as Config;
  if (cfg.commitment !== undefined && !COMMITMENTS.includes(cfg.commitment as string))
    throw invalidParams(`Invalid params: unknown variant \`${String(cfg.commitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`);
  return cfg;
}

function u64(value: unknown, what = 'u64'): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw invalidParams(`Invalid params: invalid type: expected ${what}.`);
}

function atLeastConfirmed(cfg: Config): void {
  if (cfg.commitment === 'processed' || cfg.commitment === 'recent')
    throw invalidParams('Method does not support commitment below `confirmed`');
}

function stringArray(value: unknown, max: number): string[] {
  if (!Array.isArray(value)) throw invalidParams('Invalid params: invalid type: expected a sequence.');
  if (value.length > max) throw invalidParams(`Too many inputs provided; max ${max}`);
  return value as string[];
}

/** What the RPC methods ask of the sandbox's builders: the faucet, and minting a sandbox-held mint (USDC). */
export interface Faucets {
  airdrop(to: string, lamports: bigint): Promise<string>;
  mintTo(owner: string, mint: string, amount: bigint): Promise<string>;
}

export class RpcMethods {
  private readonly handlers: Record<string, Handler>;

  constructor(
    private readonly ledger: Ledger,
    private readonly faucets: Faucets,
  ) {
    const l = ledger;
    this.handlers = {
      getHealth: () => 'ok',
      getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': FEATURE_SET }),
      getGenesisHash: () => GENESIS_HASH,
      getSlot: (p) => (this.check(config(p, 0)), l.slot),
      getBlockHeight: (p) => (this.check(config(p, 0)), l.blockHeight()),
      getTransactionCount: (p) => (this.check(config(p, 0)), BigInt(l.transactionCount)),
      getEpochInfo: (p) => (this.check(config(p, 0)), l.epochInfo()),
      getMinimumBalanceForRentExemption: (p) => l.svm.minimumBalanceForRentExemption(p.length ? u64(p[0], 'usize') : 0n),
      getLatestBlockhash: (p) => (this.check(config(p, 0)), this.ctx(l.latestBlockhash())),
      isBlockhashValid: (p) => {
        const hash = arg(p, 0);
        this.check(config(p, 1));
        if (typeof hash !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
        let ok = false;
        try {
          ok = base58.decode(hash).length === 32;
        } catch {}
        if (!ok) throw invalidParams('Invalid param: Invalid');
        return this.ctx(l.isBlockhashValid(hash));
      },
      getBlockTime: (p) => {
        const slot = u64(arg(p, 0));
        if (slot > l.slot || slot < l.startSlot) throw new RpcError(-32004, `Block not available for slot ${slot}`);
        return l.blockTime(slot);
      },
      getBalance: (p) => {
        const key = parsePubkey(arg(p, 0));
        this.check(config(p, 1));
        return this.ctx(l.balance(key));
      },
      getAccountInfo: (p) => {
        const key = parsePubkey(arg(p, 0));
        const cfg = config(p, 1);
        this.check(cfg);
        const enc = accountEncoding(cfg.encoding, 'binary');
        return this.ctx(this.encoded(key, enc, dataSlice(cfg.dataSlice)));
      },
      getMultipleAccounts: (p) => {
        const keys = stringArray(arg(p, 0), 100).map(parsePubkey);
        const cfg = config(p, 1);
        this.check(cfg);
        const enc = accountEncoding(cfg.encoding, 'base64');
        const ds = dataSlice(cfg.dataSlice);
        return this.ctx(keys.map((k) => this.encoded(k, enc, ds)));
      },
      getProgramAccounts: (p) => this.getProgramAccounts(p),
      getTokenAccountsByOwner: (p) => this.getTokenAccountsByOwner(p),
      getTokenAccountBalance: (p) => {
        const key = parsePubkey(arg(p, 0));
        this.check(config(p, 1));
        const acc = l.account(key);
        if (!acc) throw invalidParams('Invalid param: could not find account');
        const t = decodeTokenAccount(acc);
        if (!t) throw invalidParams('Invalid param: not a Token account');
        const d = mintDecimals(l.account, t.mint);
        if (!d) throw invalidParams('Invalid param: could not find mint');
        return this.ctx(uiTokenAmount(t.amount, d.decimals));
      },
      getTokenSupply: (p) => {
        const key = parsePubkey(arg(p, 0));
        this.check(config(p, 1));
        const acc = l.account(key);
        if (!acc) throw invalidParams('Invalid param: could not find account');
        if (!TOKEN_PROGRAMS.includes(acc.owner)) throw invalidParams('Invalid param: not a Token mint');
        const mint = decodeMint(acc);
        if (!mint) throw invalidParams('Invalid param: mint could not be unpacked');
        return this.ctx(uiTokenAmount(mint.supply, mint.decimals));
      },
      getTokenLargestAccounts: (p) => {
        const key = parsePubkey(arg(p, 0));
        this.check(config(p, 1));
        const acc = l.account(key);
        if (!acc) throw invalidParams('Invalid param: could not find mint');
        if (!TOKEN_PROGRAMS.includes(acc.owner)) throw invalidParams('Invalid param: not a Token mint');
        const mint = decodeMint(acc);
        if (!mint) throw invalidParams('Invalid param: mint could not be unpacked');
        const holders = this.tokenAccounts(acc.owner, (h) => h.mint === key)
          .map(({ address, data }) => ({ address, amount: tokenAccountHeader(data).amount }))
          .sort((a, b) => (a.amount === b.amount ? (a.address < b.address ? -1 : 1) : a.amount > b.amount ? -1 : 1))
          .slice(0, 20);
        return this.ctx(holders.map((h) => ({ address: h.address, ...uiTokenAmount(h.amount, mint.decimals) })));
      },
      getSignaturesForAddress: (p) => this.getSignaturesForAddress(p),
      getSignatureStatuses: (p) => {
        const sigs = stringArray(arg(p, 0), 256).map(parseSignature);
        const cfg = config(p, 1);
        const search = cfg.searchTransactionHistory === true;
        return this.ctx(
          sigs.map((s) => {
            const r = l.transaction(s);
            if (!r || (!search && l.slot - r.slot > STATUS_CACHE_SLOTS)) return null;
            const err = r.meta.err;
            return { slot: r.slot, confirmations: null, status: err === null ? { Ok: null } : { Err: err }, err, confirmationStatus: 'finalized' };
          }),
        );
      },
      getTransaction: (p) => {
        const sig = parseSignature(arg(p, 0));
        const raw = p[1];
        const cfg: Config = typeof raw === 'string' ? { encoding: raw } : config(p, 1);
        atLeastConfirmed(cfg);
        const enc = txEncoding(cfg.encoding);
        const max = cfg.maxSupportedTransactionVersion;
        if (max !== undefined && max !== null && max !== 0) throw invalidParams(`Invalid params: invalid value: integer \`${String(max)}\`, expected a valid transaction version.`);
        const r = l.transaction(sig);
        if (!r) return null;
        if (r.tx.version === 0 && (max === undefined || max === null))
          throw new RpcError(
            -32015,
            'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
          );
        return renderTransaction(r, enc, max !== undefined && max !== null);
      },
      getRecentPrioritizationFees: (p) => {
        const accounts = p.length && p[0] !== null && p[0] !== undefined ? stringArray(p[0], 128).map(parsePubkey) : [];
        return l.prioritizationFees(accounts);
      },
      getFeeForMessage: (p) => {
        const msg = arg(p, 0);
        this.check(config(p, 1));
        if (typeof msg !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
        // A message is a transaction without its signature vector: prefix the count of required signatures.
        const body = decodeWire(msg, 'base64');
        const nsig = body[0]! & 0x80 ? body[1]! : body[0]!;
        const tx = parseWireTx(new Uint8Array([nsig, ...new Uint8Array(64 * nsig), ...body]));
        const keys = tx.staticKeys;
        return this.ctx(l.isBlockhashValid(tx.recentBlockhash) ? l.fee(tx, keys) : null);
      },
      simulateTransaction: (p) => this.simulateTransaction(p),
      sendTransaction: (p) => {
        const cfg = config(p, 1);
        if (cfg.preflightCommitment !== undefined && !COMMITMENTS.includes(cfg.preflightCommitment as string))
          throw invalidParams(`Invalid params: unknown variant \`${String(cfg.preflightCommitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`);
        this.check(cfg);
        const bytes = decodeWire(arg(p, 0), cfg.encoding);
        return l.submit(bytes, { skipPreflight: cfg.skipPreflight === true }).signature;
      },
      requestAirdrop: (p) => {
        const key = parsePubkey(arg(p, 0));
        const amount = u64(arg(p, 1));
        this.check(config(p, 2));
        return this.faucets.airdrop(key, amount);
      },
      // Sandbox only (no mainnet method): [owner, mint, rawAmount] mints into the owner's associated
      // token account, creating it if needed; the mint must be one the sandbox holds the authority of (USDC).
      sandboxMintTo: (p) => {
        const owner = parsePubkey(arg(p, 0));
        const mint = parsePubkey(arg(p, 1));
        const raw = arg(p, 2);
        if (typeof raw !== 'string' || !/^\d{1,20}$/.test(raw) || BigInt(raw) > 18_446_744_073_709_551_615n) throw invalidParams('Invalid params: rawAmount must be a decimal string of a u64.');
        if (mint !== USDC_MINT) throw invalidParams(`Invalid params: the sandbox can mint only ${USDC_MINT} (USDC).`);
        return this.faucets.mintTo(owner, mint, BigInt(raw));
      },
    };
  }

  has(method: string): boolean {
    return Object.hasOwn(this.handlers, method);
  }

  /** Run one method; throws RpcError for JSON-RPC errors. */
  call(method: string, params: unknown): unknown {
    const handler = this.handlers[method];
    if (!handler) throw new RpcError(-32601, 'Method not found');
    if (params !== undefined && params !== null && !Array.isArray(params)) throw invalidParams('Invalid params: invalid type: map, expected a sequence.');
    return handler((params as Params | undefined) ?? []);
  }

  private ctx<T>(value: T) {
    return { context: { slot: this.ledger.slot, apiVersion: API_VERSION }, value };
  }

  /** minContextSlot, as every method with a config checks it. */
  private check(cfg: Config): void {
    if (cfg.minContextSlot === undefined || cfg.minContextSlot === null) return;
    const min = u64(cfg.minContextSlot);
    if (min > this.ledger.slot) throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: this.ledger.slot });
  }

  private encoded(key: string, enc: AccountEncoding, ds: DataSlice | undefined) {
    const acc = this.ledger.account(key);
    return acc ? encodeAccount(acc, enc, ds, this.ledger.account) : null;
  }

  private programAccounts(program: string): { address: string; acc: RawAccount }[] {
    return this.ledger.svm
      .getProgramAccounts(program as Parameters<Ledger['svm']['getProgramAccounts']>[0])
      .filter((a) => a.lamports > 0n)
      .map((a) => ({ address: a.address, acc: { lamports: a.lamports, data: a.data as Uint8Array, owner: a.programAddress, executable: a.executable } }));
  }

  private tokenAccounts(program: string, pred: (h: ReturnType<typeof tokenAccountHeader>) => boolean) {
    return this.programAccounts(program)
      .filter(({ acc }) => tokenStateKind(acc.owner, acc.data) === 'account' && pred(tokenAccountHeader(acc.data)))
      .map(({ address, acc }) => ({ address, data: acc.data, acc }));
  }

  private getProgramAccounts(p: Params) {
    const program = parsePubkey(arg(p, 0));
    const cfg = config(p, 1);
    this.check(cfg);
    const enc = accountEncoding(cfg.encoding, 'binary');
    const ds = dataSlice(cfg.dataSlice);
    const filters = cfg.filters === undefined || cfg.filters === null ? [] : cfg.filters;
    if (!Array.isArray(filters)) throw invalidParams('Invalid params: invalid type: expected a sequence.');
    if (filters.length > 4) throw invalidParams('Too many filters provided; max 4');
    const preds = filters.map((f: unknown): ((d: Uint8Array) => boolean) => {
      const filter = f as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
      if (filter && filter.dataSize !== undefined) {
        const n = Number(u64(filter.dataSize));
        return (d) => d.length === n;
      }
      if (filter && filter.memcmp && typeof filter.memcmp === 'object') {
        const { offset, bytes, encoding } = filter.memcmp;
        const off = Number(u64(offset));
        if (typeof bytes !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
        let needle: Uint8Array;
        try {
          needle = encoding === 'base64' ? Uint8Array.from(Buffer.from(bytes, 'base64')) : base58.decode(bytes);
        } catch {
          throw invalidParams(`Invalid param: ${encoding === 'base64' ? 'base64' : 'base58'} decode error`);
        }
        if (encoding !== 'base64' && bytes.length > 175) throw invalidParams('Invalid param: base58 data too large');
        return (d) => d.length >= off + needle.length && needle.every((b, i) => d[off + i] === b);
      }
      throw invalidParams('Invalid params: data did not match any variant of untagged enum RpcFilterType.');
    });
    const value = this.programAccounts(program)
      .filter(({ acc }) => preds.every((pr) => pr(acc.data)))
      .map(({ address, acc }) => ({ pubkey: address, account: encodeAccount(acc, enc, ds, this.ledger.account) }));
    return cfg.withContext === true ? this.ctx(value) : value;
  }

  private getTokenAccountsByOwner(p: Params) {
    const owner = parsePubkey(arg(p, 0));
    const filter = arg(p, 1) as { mint?: unknown; programId?: unknown } | null;
    const cfg = config(p, 2);
    this.check(cfg);
    const enc = accountEncoding(cfg.encoding, 'binary');
    const ds = dataSlice(cfg.dataSlice);
    let program: string;
    let mint: string | undefined;
    if (filter && typeof filter === 'object' && typeof filter.mint === 'string') {
      mint = parsePubkey(filter.mint);
      const m = this.ledger.account(mint);
      if (!m) throw invalidParams('Invalid param: could not find mint');
      if (!TOKEN_PROGRAMS.includes(m.owner)) throw invalidParams('Invalid param: not a Token mint');
      program = m.owner;
    } else if (filter && typeof filter === 'object' && typeof filter.programId === 'string') {
      program = parsePubkey(filter.programId);
      if (program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) throw invalidParams('Invalid param: unrecognized Token program id');
    } else {
      throw invalidParams('Invalid params: expected a map with `mint` or `programId`.');
    }
    const value = this.tokenAccounts(program, (h) => h.owner === owner && (mint === undefined || h.mint === mint)).map(({ address, acc }) => ({
      pubkey: address,
      account: encodeAccount(acc, enc, ds, this.ledger.account),
    }));
    return this.ctx(value);
  }

  private getSignaturesForAddress(p: Params) {
    const addr = parsePubkey(arg(p, 0));
    const cfg = config(p, 1);
    atLeastConfirmed(cfg);
    this.check(cfg);
    const limit = cfg.limit === undefined || cfg.limit === null ? 1000 : Number(u64(cfg.limit, 'usize'));
    if (limit < 1 || limit > 1000) throw invalidParams('Invalid limit; max 1000');
    const before = cfg.before === undefined || cfg.before === null ? undefined : parseSignature(cfg.before);
    const until = cfg.until === undefined || cfg.until === null ? undefined : parseSignature(cfg.until);
    const hist = this.ledger.history(addr);
    let end = hist.length;
    if (before !== undefined) {
      // Like Agave's blockstore: `before` is found among all transactions (not only this address's) and
      // stands for its slot, so a signature from another address's history pages this one too; an unknown one gives [].
      const at = this.ledger.transaction(before);
      if (!at) return [];
      end = hist.findIndex((r) => r.slot >= at.slot);
      if (end < 0) end = hist.length;
    }
    const out: unknown[] = [];
    for (let i = end - 1; i >= 0 && out.length < limit; i--) {
      const r = hist[i]!;
      if (r.signature === until) break;
      out.push({ signature: r.signature, slot: r.slot, err: r.meta.err, memo: r.memo, blockTime: r.blockTime, confirmationStatus: 'finalized' });
    }
    return out;
  }

  private simulateTransaction(p: Params) {
    const cfg = config(p, 1);
    this.check(cfg);
    const sigVerify = cfg.sigVerify === true;
    const replace = cfg.replaceRecentBlockhash === true;
    const tx = parseWireTx(decodeWire(arg(p, 0), cfg.encoding));
    if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    sanitize(tx);
    if (sigVerify && !verifySignatures(tx)) throw new RpcError(-32003, 'Transaction signature verification failure');
    let accountsCfg: { addresses: string[]; encoding: AccountEncoding } | undefined;
    if (cfg.accounts !== undefined && cfg.accounts !== null) {
      const a = cfg.accounts as { addresses?: unknown; encoding?: unknown };
      const addresses = stringArray(a.addresses, 256).map(parsePubkey);
      const enc = accountEncoding(a.encoding, 'base64');
      if (enc === 'binary' || enc === 'base58') throw invalidParams('base58 encoding not supported');
      accountsCfg = { addresses, encoding: enc };
    }
    const sim = this.ledger.simulate(tx, { replaceRecentBlockhash: replace, withInner: cfg.innerInstructions === true });
    const processed = sim.processed;
    return this.ctx({
      err: sim.err,
      logs: sim.logs,
      accounts: accountsCfg
        ? accountsCfg.addresses.map((a) => {
            const acc = sim.lookup(a);
            return acc ? encodeAccount(acc, accountsCfg.encoding, undefined, sim.lookup) : null;
          })
        : null,
      unitsConsumed: sim.unitsConsumed,
      loadedAccountsDataSize: sim.loadedAccountsDataSize,
      returnData: renderReturnData(sim.returnData),
      innerInstructions: sim.innerInstructions ? renderParsedInner(sim.innerInstructions, sim.accountKeys) : null,
      replacementBlockhash: replace ? this.ledger.latestBlockhash() : null,
      fee: processed?.fee ?? null,
      preBalances: processed?.preBalances ?? null,
      postBalances: processed?.postBalances ?? null,
      preTokenBalances: processed ? renderTokenBalances(processed.preTokenBalances, false) : null,
      postTokenBalances: processed ? renderTokenBalances(processed.postTokenBalances, false) : null,
      loadedAddresses: sim.loadedAddresses,
    });
  }
}
