// The chain: executes transactions on LiteSVM one slot each, keeps mainnet's bookkeeping that LiteSVM lacks
// (slots, block times, recent blockhashes, fees, balances, token balances, history, prioritization fees).

import { Clock, EpochSchedule, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import { address, lamports as toLamports, type Address } from '@solana/kit';
import { base58 } from '@scure/base';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  BLOCK_HEIGHT_GAP,
  BPF_UPGRADEABLE_LOADER,
  COMPUTE_BUDGET_PROGRAM,
  DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT,
  ED25519_PROGRAM,
  LAMPORTS_PER_SIGNATURE,
  MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT,
  MAX_COMPUTE_UNIT_LIMIT,
  MAX_PROCESSING_AGE,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  MS_PER_SLOT,
  NATIVE_BUILTINS,
  RESERVED_ACCOUNTS,
  SECP256K1_PROGRAM,
  SECP256R1_PROGRAM,
  SLOTS_PER_EPOCH,
  SYSTEM_PROGRAM,
  TRANSACTION_ACCOUNT_BASE_SIZE,
  VOTE_PROGRAM,
} from './constants.ts';
import { RpcError, txErrorFromLiteSvm, txErrorText, type TxErrorJson } from './errors.ts';
import { collectTokenBalances, type AccountLookup, type RawAccount, type TokenBalance } from './token.ts';
import { b64, isStaticWritable, parseWireTx, readU32, readU64, sanitize, verifySignatures, type WireTx } from './wire.ts';

/** The raw-bytes side of LiteSVM's napi class (the public wrapper only takes kit Transactions and asserts signatures). */
interface NativeSvm {
  sendLegacyTransaction(txBytes: Uint8Array): TransactionMetadata | FailedTransactionMetadata;
  sendVersionedTransaction(txBytes: Uint8Array): TransactionMetadata | FailedTransactionMetadata;
  simulateLegacyTransaction(txBytes: Uint8Array): NativeSimulated | FailedTransactionMetadata;
  simulateVersionedTransaction(txBytes: Uint8Array): NativeSimulated | FailedTransactionMetadata;
  getTransaction(signature: Uint8Array): TransactionMetadata | FailedTransactionMetadata | null;
  setSigverify(sigverify: boolean): void;
  getSigverify(): boolean;
}
interface NativeSimulated {
  meta(): TransactionMetadata;
  postAccounts(): { address: Uint8Array; account(): { lamports(): bigint; data(): Uint8Array; owner(): Uint8Array; executable(): boolean } }[];
}

export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

export interface InnerIx {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number;
}

export interface ReturnData {
  programId: string;
  data: Uint8Array;
}

/** Everything the RPC renders as `meta` (numbers stay bigint until toJson). */
export interface ExecMeta {
  err: TxErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: { index: number; instructions: InnerIx[] }[];
  logMessages: string[];
  computeUnitsConsumed: bigint;
  returnData: ReturnData | null;
  loadedAccountsDataSize: number;
}

export interface TxRecord {
  signature: string;
  slot: bigint;
  blockTime: number;
  tx: WireTx;
  loaded: LoadedAddresses;
  /** static keys, then loaded writable, then loaded readonly */
  accountKeys: string[];
  writable: boolean[];
  meta: ExecMeta;
  memo: string | null;
  computeUnitPrice: bigint;
}

export interface SimulationOutcome {
  err: TxErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: ReturnData | null;
  innerInstructions: { index: number; instructions: InnerIx[] }[] | null;
  /** null when the transaction never got as far as paying its fee (blockhash, status cache, fee payer, ...) */
  processed: {
    fee: bigint;
    preBalances: bigint[];
    postBalances: bigint[];
    preTokenBalances: TokenBalance[];
    postTokenBalances: TokenBalance[];
  } | null;
  loadedAddresses: LoadedAddresses | null;
  loadedAccountsDataSize: number;
  accountKeys: string[];
  /** the account state after the simulation (overlay on the current state) */
  lookup: AccountLookup;
}

export interface SubmitResult {
  signature: string;
  /** true when the transaction was committed to a slot (successfully or not) */
  landed: boolean;
  err: TxErrorJson | null;
  record?: TxRecord;
}

class LoadError extends Error {
  constructor(readonly txError: TxErrorJson) {
    super(String(txError));
  }
}

const NONCE_ACCOUNT_LEN = 80;

export class Ledger {
  readonly svm: LiteSVM;
  private readonly native: NativeSvm;
  readonly startSlot: bigint;
  private readonly startUnix: number;
  private current: bigint;
  private readonly blockhashSlot = new Map<string, bigint>();
  private readonly recentHashes: { slot: bigint; hash: string }[] = [];
  private readonly records: TxRecord[] = [];
  private readonly bySignature = new Map<string, TxRecord>();
  private readonly byAddress = new Map<string, TxRecord[]>();
  private readonly bySlot = new Map<bigint, TxRecord>();
  /** Told of each transaction as it lands (the WebSocket server's notifications). */
  readonly landed = new Set<(record: TxRecord) => void>();

  constructor(svm: LiteSVM, startUnixMs = Date.now()) {
    this.svm = svm;
    this.native = (svm as unknown as { inner: NativeSvm }).inner;
    // LiteSVM's own blockhash check only knows its latest hash; mainnet accepts the last 150: checked here instead.
    svm.withBlockhashCheck(false).withSigverify(true).withNativeMints();
    svm.setEpochSchedule(new EpochSchedule(SLOTS_PER_EPOCH, SLOTS_PER_EPOCH, false, 0n, 0n));
    this.startSlot = svm.getClock().slot;
    this.startUnix = startUnixMs / 1000;
    this.current = this.startSlot;
    this.setClock(this.current);
    this.rememberBlockhash(this.current, svm.latestBlockhash());
  }

  // ---- time ----

  get slot(): bigint {
    return this.current;
  }
  blockHeight(slot: bigint = this.current): bigint {
    return slot - BLOCK_HEIGHT_GAP;
  }
  /** Integer unix seconds of a slot: real "now" at start, +0.4 s per slot. */
  blockTime(slot: bigint): number {
    return Math.floor(this.startUnix + (Number(slot - this.startSlot) * MS_PER_SLOT) / 1000);
  }
  get transactionCount(): number {
    return this.records.length;
  }
  epochInfo() {
    const slot = this.current;
    return {
      absoluteSlot: slot,
      blockHeight: this.blockHeight(slot),
      epoch: slot / SLOTS_PER_EPOCH,
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: BigInt(this.records.length),
    };
  }

  private setClock(slot: bigint): void {
    const epoch = slot / SLOTS_PER_EPOCH;
    const epochStart = BigInt(this.blockTime(epoch * SLOTS_PER_EPOCH));
    this.svm.setClock(new Clock(slot, epochStart, epoch, epoch + 1n, BigInt(this.blockTime(slot))));
  }

  private rememberBlockhash(slot: bigint, hash: string): void {
    this.blockhashSlot.set(hash, slot);
    this.recentHashes.push({ slot, hash });
    while (this.recentHashes.length > 300) this.blockhashSlot.delete(this.recentHashes.shift()!.hash);
    // SlotHashes sysvar (newest first) so programs such as the lookup-table program see recent slots.
    this.svm.setSlotHashes(this.recentHashes.slice(-150).reverse().map((h) => ({ slot: h.slot, hash: h.hash })));
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    const latest = this.recentHashes[this.recentHashes.length - 1]!;
    return { blockhash: latest.hash, lastValidBlockHeight: this.blockHeight(latest.slot) + MAX_PROCESSING_AGE };
  }

  isBlockhashValid(hash: string): boolean {
    const slot = this.blockhashSlot.get(hash);
    return slot !== undefined && this.current - slot <= MAX_PROCESSING_AGE;
  }

  // ---- accounts ----

  /** An account as the RPC sees it: zero-lamport accounts do not exist. */
  account = (addr: string): RawAccount | null => {
    const a = this.svm.getAccount(addr as Address);
    if (!a.exists || a.lamports === 0n) return null;
    return { lamports: a.lamports, data: a.data as Uint8Array, owner: a.programAddress, executable: a.executable };
  };

  balance(addr: string): bigint {
    return this.account(addr)?.lamports ?? 0n;
  }

  private setLamports(addr: string, lamports: bigint): void {
    const a = this.svm.getAccount(addr as Address);
    if (!a.exists) return;
    this.svm.setAccount({ ...a, lamports: toLamports(lamports) });
  }

  /** Create/overwrite a system account with lamports (genesis funding only). */
  mintGenesis(addr: string, lamports: bigint): void {
    this.svm.setAccount({
      address: address(addr),
      data: new Uint8Array(0),
      executable: false,
      lamports: toLamports(lamports),
      programAddress: address(SYSTEM_PROGRAM),
      space: 0n,
    });
  }

  // ---- transaction analysis ----

  private loadAddresses(tx: WireTx): LoadedAddresses {
    const loaded: LoadedAddresses = { writable: [], readonly: [] };
    for (const l of tx.lookups) {
      const acc = this.account(l.accountKey);
      if (!acc) throw new LoadError('AddressLookupTableNotFound');
      if (acc.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) throw new LoadError('InvalidAddressLookupTableOwner');
      if (acc.data.length < 56 || readU32(acc.data, 0) !== 1 || (acc.data.length - 56) % 32 !== 0)
        throw new LoadError('InvalidAddressLookupTableData');
      const count = (acc.data.length - 56) / 32;
      const pick = (i: number) => {
        if (i >= count) throw new LoadError('InvalidAddressLookupTableIndex');
        return base58.encode(acc.data.subarray(56 + i * 32, 88 + i * 32));
      };
      loaded.writable.push(...l.writableIndexes.map(pick));
      loaded.readonly.push(...l.readonlyIndexes.map(pick));
    }
    return loaded;
  }

  /** Agave's SanitizedMessage::is_writable: header/lookup writability, minus invoked programs and reserved accounts. */
  writableFlags(tx: WireTx, keys: string[], loaded: LoadedAddresses): boolean[] {
    const programIdx = new Set(tx.instructions.map((ix) => ix.programIdIndex));
    const upgradeableLoaderPresent = keys.includes(BPF_UPGRADEABLE_LOADER);
    const nStatic = tx.staticKeys.length;
    return keys.map((key, i) => {
      let w = i < nStatic ? isStaticWritable(tx, i) : i < nStatic + loaded.writable.length;
      if (RESERVED_ACCOUNTS.has(key)) w = false;
      if (programIdx.has(i) && !upgradeableLoaderPresent) w = false;
      return w;
    });
  }

  /** Compute-unit price and limit as the runtime derives them (SIMD-0170 builtin reservations). */
  computeBudget(tx: WireTx, keys: string[]): { price: bigint; limit: bigint } {
    let price = 0n;
    let limit: bigint | null = null;
    let builtins = 0n;
    let others = 0n;
    for (const ix of tx.instructions) {
      const pid = keys[ix.programIdIndex]!;
      if (pid === COMPUTE_BUDGET_PROGRAM) {
        if (ix.data[0] === 2 && ix.data.length >= 5) limit = BigInt(readU32(ix.data, 1));
        if (ix.data[0] === 3 && ix.data.length >= 9) price = readU64(ix.data, 1);
      }
      if (NATIVE_BUILTINS.has(pid)) builtins++;
      else others++;
    }
    const dflt = builtins * MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT + others * DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
    const l = limit ?? dflt;
    return { price, limit: l > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : l };
  }

  /** Mainnet's fee: 5,000 lamports per signature (incl. precompile signatures) + ceil(price * limit / 1e6). */
  fee(tx: WireTx, keys: string[]): bigint {
    let sigs = BigInt(tx.header.numRequiredSignatures);
    for (const ix of tx.instructions) {
      const pid = keys[ix.programIdIndex];
      if (pid === ED25519_PROGRAM || pid === SECP256K1_PROGRAM || pid === SECP256R1_PROGRAM) sigs += BigInt(ix.data[0] ?? 0);
    }
    const { price, limit } = this.computeBudget(tx, keys);
    return sigs * LAMPORTS_PER_SIGNATURE + (price * limit + 999_999n) / 1_000_000n;
  }

  private memoOf(tx: WireTx): string | null {
    const memos: string[] = [];
    for (const ix of tx.instructions) {
      const pid = tx.staticKeys[ix.programIdIndex];
      if (pid !== MEMO_PROGRAM && pid !== MEMO_V1_PROGRAM) continue;
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(ix.data);
      } catch {
        text = '(unparseable)';
      }
      memos.push(`[${ix.data.length}] ${text}`);
    }
    return memos.length ? memos.join('; ') : null;
  }

  /** A durable-nonce transaction: first instruction AdvanceNonceAccount on a nonce account holding this blockhash. */
  private nonceMatches(tx: WireTx, keys: string[]): boolean {
    const ix = tx.instructions[0];
    if (!ix || keys[ix.programIdIndex] !== SYSTEM_PROGRAM || ix.data.length < 4 || readU32(ix.data, 0) !== 4) return false;
    const nonce = this.account(keys[ix.accounts[0] ?? 255] ?? '');
    if (!nonce || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length !== NONCE_ACCOUNT_LEN) return false;
    return readU32(nonce.data, 4) === 1 && base58.encode(nonce.data.subarray(40, 72)) === tx.recentBlockhash;
  }

  private blockhashOk(tx: WireTx, keys: string[]): boolean {
    return this.isBlockhashValid(tx.recentBlockhash) || this.nonceMatches(tx, keys);
  }

  private loadedDataSize(keys: string[]): number {
    let size = 0;
    for (const k of keys) {
      const acc = this.account(k);
      size += TRANSACTION_ACCOUNT_BASE_SIZE + (acc?.data.length ?? 0);
      if (acc?.executable && acc.owner === BPF_UPGRADEABLE_LOADER && acc.data.length >= 36) {
        const programData = this.account(base58.encode(acc.data.subarray(4, 36)));
        size += TRANSACTION_ACCOUNT_BASE_SIZE + (programData?.data.length ?? 0);
      }
    }
    return size;
  }

  private static innerOf(meta: TransactionMetadata): { index: number; instructions: InnerIx[] }[] {
    const out: { index: number; instructions: InnerIx[] }[] = [];
    meta.innerInstructions().forEach((list, index) => {
      if (!list.length) return;
      out.push({
        index,
        instructions: list.map((ii) => {
          const ci = ii.instruction();
          return { programIdIndex: ci.programIdIndex(), accounts: [...ci.accounts()], data: new Uint8Array(ci.data()), stackHeight: ii.stackHeight() };
        }),
      });
    });
    return out;
  }

  private static returnDataOf(meta: TransactionMetadata): ReturnData | null {
    const rd = meta.returnData();
    const data = new Uint8Array(rd.data());
    return data.length ? { programId: base58.encode(rd.programId()), data } : null;
  }

  /** Errors after which the fee is still charged and the transaction is committed (fee-only or executed). */
  private static isProcessedError(err: TxErrorJson): boolean {
    if (typeof err !== 'string') return true;
    return ['ProgramAccountNotFound', 'InvalidProgramForExecution', 'MaxLoadedAccountsDataSizeExceeded', 'InvalidLoadedAccountsDataSizeLimit'].includes(err);
  }

  // ---- simulation ----

  simulate(tx: WireTx, opts: { replaceRecentBlockhash?: boolean; withInner?: boolean } = {}): SimulationOutcome {
    const empty = (err: TxErrorJson, accountKeys: string[] = tx.staticKeys): SimulationOutcome => ({
      err,
      logs: [],
      unitsConsumed: 0n,
      returnData: null,
      innerInstructions: null,
      processed: null,
      loadedAddresses: null,
      loadedAccountsDataSize: 0,
      accountKeys,
      lookup: this.account,
    });
    let loaded: LoadedAddresses;
    try {
      loaded = this.loadAddresses(tx);
    } catch (e) {
      if (e instanceof LoadError) return empty(e.txError);
      throw e;
    }
    const keys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly];
    if (!opts.replaceRecentBlockhash && !this.blockhashOk(tx, keys)) return empty('BlockhashNotFound', keys);
    if (this.bySignature.has(tx.signature)) return empty('AlreadyProcessed', keys);

    const preBalances = keys.map((k) => this.balance(k));
    const preTokenBalances = collectTokenBalances(keys, this.account);
    const loadedAccountsDataSize = this.loadedDataSize(keys);
    const fee = this.fee(tx, keys);

    const sigverify = this.native.getSigverify();
    this.native.setSigverify(false);
    let res: NativeSimulated | FailedTransactionMetadata;
    try {
      res = tx.version === 'legacy' ? this.native.simulateLegacyTransaction(tx.bytes) : this.native.simulateVersionedTransaction(tx.bytes);
    } finally {
      this.native.setSigverify(sigverify);
    }

    const meta = res.meta();
    const err = res instanceof FailedTransactionMetadata ? txErrorFromLiteSvm(res.err()) : null;
    const overlay = new Map<string, RawAccount | null>();
    if (!(res instanceof FailedTransactionMetadata)) {
      for (const pa of res.postAccounts()) {
        const a = pa.account();
        overlay.set(base58.encode(pa.address), a.lamports() === 0n ? null : {
          lamports: a.lamports(),
          data: new Uint8Array(a.data()),
          owner: base58.encode(a.owner()),
          executable: a.executable(),
        });
      }
    }
    const processed = err === null || Ledger.isProcessedError(err);
    if (err !== null && processed) {
      const payer = this.account(keys[0]!);
      if (payer) overlay.set(keys[0]!, { ...payer, lamports: payer.lamports - fee });
    }
    const lookup: AccountLookup = (a) => (overlay.has(a) ? overlay.get(a)! : this.account(a));
    return {
      err,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData: Ledger.returnDataOf(meta),
      innerInstructions: opts.withInner ? Ledger.innerOf(meta) : null,
      processed: processed
        ? {
            fee,
            preBalances,
            postBalances: keys.map((k) => lookup(k)?.lamports ?? 0n),
            preTokenBalances,
            postTokenBalances: collectTokenBalances(keys, lookup),
          }
        : null,
      loadedAddresses: loaded,
      loadedAccountsDataSize: processed ? loadedAccountsDataSize : 0,
      accountKeys: keys,
      lookup,
    };
  }

  // ---- execution ----

  /**
   * sendTransaction: preflight (signatures, then a simulation) unless skipped, then "forward to the leader":
   * the transaction lands in a new slot, or is silently dropped as mainnet drops it (stale blockhash, duplicate,
   * unpayable fee, bad signature).
   */
  submit(bytes: Uint8Array, opts: { skipPreflight?: boolean } = {}): SubmitResult {
    const tx = parseWireTx(bytes);
    sanitize(tx);
    if (!opts.skipPreflight) {
      if (!verifySignatures(tx)) throw new RpcError(-32003, 'Transaction signature verification failure');
      const sim = this.simulate(tx);
      if (sim.err !== null) {
        throw new RpcError(-32002, `Transaction simulation failed: ${txErrorText(sim.err)}`, {
          accounts: null,
          err: sim.err,
          innerInstructions: null,
          loadedAccountsDataSize: sim.loadedAccountsDataSize,
          logs: sim.logs,
          replacementBlockhash: null,
          returnData: renderReturnData(sim.returnData),
          unitsConsumed: sim.unitsConsumed,
        });
      }
    }
    return this.execute(tx);
  }

  private execute(tx: WireTx): SubmitResult {
    const signature = tx.signature;
    const dropped = (err: TxErrorJson): SubmitResult => ({ signature, landed: false, err });
    if (this.bySignature.has(signature)) return dropped('AlreadyProcessed');
    let loaded: LoadedAddresses;
    try {
      loaded = this.loadAddresses(tx);
    } catch (e) {
      if (e instanceof LoadError) return dropped(e.txError);
      throw e;
    }
    const keys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly];
    if (!this.blockhashOk(tx, keys)) return dropped('BlockhashNotFound');
    if (!verifySignatures(tx)) return dropped('SignatureFailure');

    const preBalances = keys.map((k) => this.balance(k));
    const preTokenBalances = collectTokenBalances(keys, this.account);
    const loadedAccountsDataSize = this.loadedDataSize(keys);

    const slot = this.current + 1n;
    this.setClock(slot);
    const res = tx.version === 'legacy' ? this.native.sendLegacyTransaction(tx.bytes) : this.native.sendVersionedTransaction(tx.bytes);
    const failed = res instanceof FailedTransactionMetadata;
    const err = failed ? txErrorFromLiteSvm(res.err()) : null;
    if (failed && this.native.getTransaction(base58.decode(signature)) === null) {
      this.setClock(this.current); // nothing was committed: the slot does not happen
      return dropped(err!);
    }
    this.current = slot;
    const meta = failed ? res.meta() : res;

    // Fee: mainnet charges it on success and failure alike. LiteSVM 1.5 does the same; if it ever charged a different
    // amount, the fee payer is corrected so that sum(pre) - sum(post) == fee holds exactly.
    const fee = this.fee(tx, keys);
    const postBalances = keys.map((k) => this.balance(k));
    const burned = preBalances.reduce((s, b) => s + b, 0n) - postBalances.reduce((s, b) => s + b, 0n);
    if (burned !== fee && postBalances[0]! > 0n) {
      const fixed = postBalances[0]! + burned - fee;
      this.setLamports(keys[0]!, fixed);
      postBalances[0] = fixed;
    }

    const record: TxRecord = {
      signature,
      slot,
      blockTime: this.blockTime(slot),
      tx,
      loaded,
      accountKeys: keys,
      writable: this.writableFlags(tx, keys, loaded),
      meta: {
        err,
        fee,
        preBalances,
        postBalances,
        preTokenBalances,
        postTokenBalances: collectTokenBalances(keys, this.account),
        innerInstructions: Ledger.innerOf(meta),
        logMessages: meta.logs(),
        computeUnitsConsumed: meta.computeUnitsConsumed(),
        returnData: Ledger.returnDataOf(meta),
        loadedAccountsDataSize,
      },
      memo: this.memoOf(tx),
      computeUnitPrice: this.computeBudget(tx, keys).price,
    };
    this.records.push(record);
    this.bySignature.set(signature, record);
    this.bySlot.set(slot, record);
    for (const k of new Set(keys)) {
      let list = this.byAddress.get(k);
      if (!list) this.byAddress.set(k, (list = []));
      list.push(record);
    }
    // The block is done: its blockhash becomes the latest one.
    this.svm.expireBlockhash();
    this.rememberBlockhash(slot, this.svm.latestBlockhash());
    for (const listener of this.landed) listener(record);
    return { signature, landed: true, err, record };
  }

  // ---- history ----

  transaction(signature: string): TxRecord | undefined {
    return this.bySignature.get(signature);
  }

  /** Records that include the address among their account keys, oldest first. */
  history(addr: string): readonly TxRecord[] {
    return this.byAddress.get(addr) ?? [];
  }

  /**
   * Agave's prioritization-fee cache: per slot, the minimum compute-unit price of its (non-vote) transactions; with
   * accounts, the max of that and, per account, the minimum price among transactions write-locking it.
   */
  prioritizationFees(accounts: string[]): { slot: bigint; prioritizationFee: bigint }[] {
    const out: { slot: bigint; prioritizationFee: bigint }[] = [];
    for (let s = this.current - 149n; s <= this.current; s++) {
      const r = this.bySlot.get(s);
      let fee = 0n;
      const isVote = r?.tx.instructions.some((ix) => r.accountKeys[ix.programIdIndex] === VOTE_PROGRAM);
      if (r && !isVote) {
        fee = r.computeUnitPrice; // the block's minimum (one transaction per slot here)
        for (const a of accounts) {
          const i = r.accountKeys.indexOf(a);
          if (i >= 0 && r.writable[i] && r.computeUnitPrice > fee) fee = r.computeUnitPrice;
        }
      }
      out.push({ slot: s, prioritizationFee: fee });
    }
    return out;
  }
}

export function renderReturnData(rd: ReturnData | null): { programId: string; data: [string, 'base64'] } | null {
  return rd ? { programId: rd.programId, data: [b64(rd.data), 'base64'] } : null;
}
