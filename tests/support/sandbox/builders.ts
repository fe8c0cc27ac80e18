// Real transactions that set up state: built with @solana/kit and the program clients, signed, and sent through the
// same path as the RPC's sendTransaction (so every one lands in its own slot with full metadata and history).

import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getTransactionEncoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  some,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getAddMemoInstruction } from '@solana-program/memo';
import {
  AccountState,
  AuthorityType,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getPreInitializeInstructionsForMintExtensions,
  getSetAuthorityInstruction,
  getTransferCheckedInstruction,
  type ExtensionArgs,
} from '@solana-program/token-2022';
import { MEMO_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './constants.ts';
import { RpcError, type TxErrorJson } from './errors.ts';
import type { Ledger } from './ledger.ts';
import { decodeMint } from './token.ts';

export const LAMPORTS_PER_SOL = 1_000_000_000n;

/** A builder's transaction was rejected by preflight (code -32002/-32003/...), or dropped before landing. */
export class SandboxSendError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly data: unknown,
    readonly err: TxErrorJson | null,
  ) {
    super(message);
    this.name = 'SandboxSendError';
  }
}

export interface MintExtensions {
  transferFee?: { basisPoints: number; maximumFee: bigint };
  permanentDelegate?: Address;
  mintCloseAuthority?: Address;
  nonTransferable?: true;
  defaultAccountStateFrozen?: true;
  transferHookProgram?: Address;
  pausable?: true;
}

export interface CreateMintOptions {
  authority: KeyPairSigner;
  decimals: number;
  tokenProgram?: 'token' | 'token-2022';
  freezeAuthority?: Address | null;
  mintAuthority?: Address | null;
  extensions?: MintExtensions;
}

/** Fee payers need at least this much to be used instead of the sandbox payer. */
const SELF_PAY_MINIMUM = 10_000_000n;

export interface TransferTokenOptions {
  /** Who pays the fee (a relayer); by default the sender when it can, else the sandbox payer. */
  feePayer?: KeyPairSigner;
  /**
   * false: the destination ATA exists and no create-idempotent instruction is sent, so the transaction names
   * the receiver's token account but not the receiver (as most wallets send to an existing account).
   */
  createDestination?: boolean;
}

export class Builders {
  /** The wallet funding under way (see newWallet). */
  private funding: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ledger: Ledger,
    private readonly faucet: KeyPairSigner,
    readonly payer: KeyPairSigner,
  ) {}

  async send(tx: Transaction, opts: { skipPreflight?: boolean } = {}): Promise<{ signature: Signature; err: TxErrorJson | null }> {
    const bytes = new Uint8Array(getTransactionEncoder().encode(tx));
    let result;
    try {
      result = this.ledger.submit(bytes, opts);
    } catch (e) {
      if (e instanceof RpcError) {
        const err = (e.data as { err?: TxErrorJson } | undefined)?.err ?? null;
        throw new SandboxSendError(e.message, e.code, e.data, err);
      }
      throw e;
    }
    if (!result.landed) throw new SandboxSendError(`transaction dropped without landing: ${JSON.stringify(result.err)}`, null, null, result.err);
    return { signature: result.signature as Signature, err: result.err };
  }

  /** Sign a v0 transaction with a recent blockhash and send it. */
  async run(feePayer: KeyPairSigner, instructions: Instruction[], opts: { skipPreflight?: boolean } = {}) {
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    return this.send(await signTransactionMessageWithSigners(message), opts);
  }

  /** The signer pays its own fees when it can, like a real wallet; otherwise the sandbox payer pays. */
  private feePayerFor(signer: KeyPairSigner, extra = 0n): KeyPairSigner {
    return this.ledger.balance(signer.address) >= SELF_PAY_MINIMUM + extra ? signer : this.payer;
  }

  private tokenProgramOf(mint: Address): Address {
    const acc = this.ledger.account(mint);
    if (!acc || (acc.owner !== TOKEN_PROGRAM && acc.owner !== TOKEN_2022_PROGRAM)) throw new Error(`${mint} is not a token mint`);
    return address(acc.owner);
  }

  private decimalsOf(mint: Address): number {
    const acc = this.ledger.account(mint);
    const m = acc && decodeMint(acc);
    if (!m) throw new Error(`${mint} is not an initialized mint`);
    return m.decimals;
  }

  async ata(owner: Address, mint: Address): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: this.tokenProgramOf(mint) });
    return ata;
  }

  private async ataInstruction(payer: KeyPairSigner, owner: Address, mint: Address): Promise<{ ata: Address; ix: Instruction }> {
    const tokenProgram = this.tokenProgramOf(mint);
    const ata = await this.ata(owner, mint);
    return { ata, ix: getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner, mint, tokenProgram }) };
  }

  async airdrop(to: string, lamports: bigint): Promise<string> {
    try {
      return (await this.run(this.faucet, [getTransferSolInstruction({ source: this.faucet, destination: address(to), amount: lamports })])).signature;
    } catch (e) {
      if (e instanceof SandboxSendError) throw new RpcError(-32603, 'Internal error');
      throw e;
    }
  }

  async newWallet(lamports: bigint = 10n * LAMPORTS_PER_SOL): Promise<KeyPairSigner> {
    const wallet = await generateKeyPairSigner();
    const needed = lamports + LAMPORTS_PER_SOL;
    // One wallet funded at a time: concurrent calls would all see the payer's balance before any
    // spends it (and two top-ups of one amount under one blockhash are one transaction).
    const fund = async () => {
      if (this.ledger.balance(this.payer.address) < needed) {
        const topUp = needed > 1000n * LAMPORTS_PER_SOL ? needed : 1000n * LAMPORTS_PER_SOL;
        await this.transferSol(this.faucet, this.payer.address, topUp);
      }
      if (lamports > 0n) await this.transferSol(this.payer, wallet.address, lamports);
    };
    const funded = this.funding.then(fund);
    this.funding = funded.catch(() => {});
    await funded;
    return wallet;
  }

  async transferSol(from: KeyPairSigner, to: Address, lamports: bigint, opts: { memo?: string; computeUnitPrice?: bigint; skipPreflight?: boolean } = {}): Promise<Signature> {
    const ixs: Instruction[] = [];
    if (opts.computeUnitPrice !== undefined) ixs.push(getSetComputeUnitPriceInstruction({ microLamports: opts.computeUnitPrice }));
    ixs.push(getTransferSolInstruction({ source: from, destination: to, amount: lamports }));
    // @solana-program/memo 0.15 defaults to a new program id (Memo4c2p...); wallets use SPL Memo v2 (MemoSq...).
    if (opts.memo !== undefined) ixs.push(getAddMemoInstruction({ memo: opts.memo }, { programAddress: address(MEMO_PROGRAM) }));
    return (await this.run(from, ixs, { skipPreflight: opts.skipPreflight })).signature;
  }

  async createMint(opts: CreateMintOptions): Promise<Address> {
    const program = address(opts.tokenProgram === 'token-2022' ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM);
    const x = opts.extensions ?? {};
    const authority = opts.authority;
    const extensions: ExtensionArgs[] = [];
    if (x.transferFee) {
      const fee = { epoch: this.ledger.epochInfo().epoch, maximumFee: x.transferFee.maximumFee, transferFeeBasisPoints: x.transferFee.basisPoints };
      extensions.push({
        __kind: 'TransferFeeConfig',
        transferFeeConfigAuthority: authority.address,
        withdrawWithheldAuthority: authority.address,
        withheldAmount: 0n,
        olderTransferFee: fee,
        newerTransferFee: fee,
      });
    }
    if (x.mintCloseAuthority) extensions.push({ __kind: 'MintCloseAuthority', closeAuthority: x.mintCloseAuthority });
    if (x.permanentDelegate) extensions.push({ __kind: 'PermanentDelegate', delegate: x.permanentDelegate });
    if (x.nonTransferable) extensions.push({ __kind: 'NonTransferable' });
    if (x.defaultAccountStateFrozen) extensions.push({ __kind: 'DefaultAccountState', state: AccountState.Frozen });
    if (x.transferHookProgram) extensions.push({ __kind: 'TransferHook', authority: authority.address, programId: x.transferHookProgram });
    if (x.pausable) extensions.push({ __kind: 'PausableConfig', authority: some(authority.address), paused: false });
    if (extensions.length && program === TOKEN_PROGRAM) throw new Error('mint extensions need tokenProgram: "token-2022"');

    const mint = await generateKeyPairSigner();
    const space = extensions.length ? getMintSize(extensions) : 82;
    const rent = this.ledger.svm.minimumBalanceForRentExemption(BigInt(space));
    const payer = this.feePayerFor(authority, rent);
    // Token-2022 refuses a default-frozen mint without a freeze authority: default it to the authority then.
    const freezeAuthority = opts.freezeAuthority !== undefined ? opts.freezeAuthority : x.defaultAccountStateFrozen ? authority.address : null;
    const ixs: Instruction[] = [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space, programAddress: program }),
      ...getPreInitializeInstructionsForMintExtensions(mint.address, extensions),
      getInitializeMint2Instruction(
        { mint: mint.address, decimals: opts.decimals, mintAuthority: opts.mintAuthority ?? authority.address, freezeAuthority },
        { programAddress: program },
      ),
    ];
    if (opts.mintAuthority === null) {
      ixs.push(getSetAuthorityInstruction({ owned: mint.address, owner: authority, authorityType: AuthorityType.MintTokens, newAuthority: null }, { programAddress: program }));
    }
    await this.run(payer, ixs);
    return mint.address;
  }

  async createAta(owner: Address, mint: Address): Promise<Address> {
    const { ata, ix } = await this.ataInstruction(this.payer, owner, mint);
    if (!this.ledger.account(ata)) await this.run(this.payer, [ix]);
    return ata;
  }

  /**
   * A classic SPL mint placed at a fixed address (genesis state, no transaction), with `authority`
   * as its mint authority and no freeze authority: USDC at its mainnet address.
   */
  placeMint(mint: Address, authority: Address, decimals: number): void {
    const data = new Uint8Array(82);
    const view = new DataView(data.buffer);
    view.setUint32(0, 1, true);
    data.set(getAddressEncoder().encode(authority), 4);
    data[44] = decimals;
    data[45] = 1;
    this.ledger.svm.setAccount({
      address: mint,
      data,
      executable: false,
      lamports: lamports(this.ledger.svm.minimumBalanceForRentExemption(82n)),
      programAddress: address(TOKEN_PROGRAM),
      space: 82n,
    });
  }

  async mintTo(mint: Address, authority: KeyPairSigner, owner: Address, amount: bigint): Promise<Signature> {
    const payer = this.feePayerFor(authority, 2_039_280n);
    const program = this.tokenProgramOf(mint);
    const { ata, ix } = await this.ataInstruction(payer, owner, mint);
    const mintIx = getMintToCheckedInstruction({ mint, token: ata, mintAuthority: authority, amount, decimals: this.decimalsOf(mint) }, { programAddress: program });
    return (await this.run(payer, [ix, mintIx])).signature;
  }

  async transferToken(mint: Address, from: KeyPairSigner, to: Address, amount: bigint, opts: TransferTokenOptions = {}): Promise<Signature> {
    const payer = opts.feePayer ?? this.feePayerFor(from, 2_039_280n);
    const program = this.tokenProgramOf(mint);
    const source = await this.ata(from.address, mint);
    const { ata: destination, ix } = await this.ataInstruction(payer, to, mint);
    const transfer = getTransferCheckedInstruction(
      { source, mint, destination, authority: from, amount, decimals: this.decimalsOf(mint) },
      { programAddress: program },
    );
    return (await this.run(payer, opts.createDestination === false ? [transfer] : [ix, transfer])).signature;
  }

  async setMintAuthority(mint: Address, authority: KeyPairSigner, newAuthority: Address | null): Promise<Signature> {
    const ix = getSetAuthorityInstruction(
      { owned: mint, owner: authority, authorityType: AuthorityType.MintTokens, newAuthority },
      { programAddress: this.tokenProgramOf(mint) },
    );
    return (await this.run(this.feePayerFor(authority), [ix])).signature;
  }

  /** A real failed transaction: transfer more lamports than `from` has, sent with skipPreflight so it lands. */
  async failingTransaction(from: KeyPairSigner): Promise<Signature> {
    const sink = await generateKeyPairSigner();
    const tooMuch = this.ledger.balance(from.address) + LAMPORTS_PER_SOL;
    const { signature, err } = await this.run(from, [getTransferSolInstruction({ source: from, destination: sink.address, amount: tooMuch })], { skipPreflight: true });
    if (err === null) throw new Error('failingTransaction unexpectedly succeeded');
    return signature;
  }
}
