// startSandbox: a LiteSVM-backed chain behind a loopback JSON-RPC server, plus helpers that build real state.

import { LiteSVM } from 'litesvm';
import { address, generateKeyPairSigner, type Address, type KeyPairSigner, type Lamports, type Signature, type Transaction } from '@solana/kit';
import { Builders, LAMPORTS_PER_SOL, type CreateMintOptions, type TransferTokenOptions } from './builders.ts';
import { Ledger } from './ledger.ts';
import { RpcMethods } from './rpc.ts';
import { RpcServer, type Fault, type FaultOptions } from './server.ts';
import { USDC_MINT } from './constants.ts';
import { PubSubServer } from './pubsub.ts';

export interface Sandbox {
  /** 'http://127.0.0.1:<port>' */
  readonly url: string;
  /** 'ws://127.0.0.1:<port + 1>': the node's WebSocket API (logsSubscribe, slotSubscribe) */
  readonly wsUrl: string;
  /** The WebSocket server: cut() drops every connection and refuses new ones until restore(). */
  readonly pubsub: Pick<PubSubServer, 'cut' | 'restore' | 'open'>;
  readonly svm: LiteSVM;
  /** a well-funded wallet (1,000 SOL, topped up from the faucet when newWallet needs more) */
  readonly payer: KeyPairSigner;
  /** closes the server (and any hung requests) */
  stop(): Promise<void>;
  /** JSON-RPC requests received (each batch element counts), for one method or all */
  calls(method?: string): number;
  resetCalls(): void;
  fault(fault: Fault | null, opts?: FaultOptions): void;
  /** random keypair, funded by a real transfer from payer (default 10 SOL) */
  newWallet(lamports?: bigint): Promise<KeyPairSigner>;
  transferSol(from: KeyPairSigner, to: Address, lamports: bigint, opts?: { memo?: string; computeUnitPrice?: bigint; skipPreflight?: boolean }): Promise<Signature>;
  createMint(opts: CreateMintOptions): Promise<Address>;
  /** idempotent; uses the mint's own token program */
  createAta(owner: Address, mint: Address): Promise<Address>;
  /** mintToChecked into the owner's ATA, creating it if needed (USDC_MINT: minted by `payer`, its authority) */
  mintTo(mint: Address, authority: KeyPairSigner, owner: Address, amount: bigint): Promise<Signature>;
  /** transferChecked between the owners' ATAs, creating the destination ATA unless told it exists */
  transferToken(mint: Address, from: KeyPairSigner, to: Address, amount: bigint, opts?: TransferTokenOptions): Promise<Signature>;
  /** a real SetAuthority(MintTokens) */
  setMintAuthority(mint: Address, authority: KeyPairSigner, newAuthority: Address | null): Promise<Signature>;
  /**
   * Executes through the same path as RPC sendTransaction. Resolves when the transaction landed (err is its
   * TransactionError or null); rejects with SandboxSendError when preflight rejects it or it is dropped.
   */
  send(tx: Transaction, opts?: { skipPreflight?: boolean }): Promise<{ signature: Signature; err: unknown | null }>;
  /** lands a real FAILED transaction (a transfer of more lamports than the wallet has, with skipPreflight) */
  failingTransaction(from: KeyPairSigner): Promise<Signature>;
  /** writes an account as it would stand on mainnet (rent-exempt unless `lamports` says otherwise) */
  placeAccount(at: Address, account: { owner: Address; data: Uint8Array; lamports?: bigint }): void;
}

/** Lamports of the genesis faucet that funds the payer and requestAirdrop. */
const FAUCET_LAMPORTS = 500_000_000n * LAMPORTS_PER_SOL;

export async function startSandbox(opts: { port?: number; host?: string } = {}): Promise<Sandbox> {
  const svm = new LiteSVM();
  const ledger = new Ledger(svm);
  const faucet = await generateKeyPairSigner();
  ledger.mintGenesis(faucet.address, FAUCET_LAMPORTS);
  const payer = await generateKeyPairSigner();
  const b = new Builders(ledger, faucet, payer);
  await b.transferSol(faucet, payer.address, 1000n * LAMPORTS_PER_SOL);

  // USDC at its mainnet address, minted by the payer: what x402 payments are made in.
  b.placeMint(address(USDC_MINT), payer.address, 6);
  const server = new RpcServer(
    new RpcMethods(ledger, {
      airdrop: (to, lamports) => b.airdrop(to, lamports),
      mintTo: (owner, mint, amount) => b.mintTo(address(mint), payer, address(owner), amount),
    }),
  );
  const pubsub = new PubSubServer(ledger);
  const { url, wsUrl } = await listen(server, pubsub, opts.port ?? 0, opts.host ?? '127.0.0.1');

  return {
    url,
    wsUrl,
    pubsub,
    svm,
    payer,
    stop: async () => {
      await pubsub.stop();
      await server.stop();
    },
    calls: (method) => server.calls(method),
    resetCalls: () => server.resetCalls(),
    fault: (fault, o) => server.fault(fault, o),
    newWallet: (lamports) => b.newWallet(lamports),
    placeAccount: (at, { owner, data, lamports }) =>
      svm.setAccount({
        address: at,
        data,
        executable: false,
        lamports: (lamports ?? svm.minimumBalanceForRentExemption(BigInt(data.length))) as Lamports,
        programAddress: owner,
        space: BigInt(data.length),
      }),
    transferSol: (from, to, lamports, o) => b.transferSol(from, to, lamports, o),
    createMint: (o) => b.createMint(o),
    createAta: (owner, mint) => b.createAta(owner, mint),
    mintTo: (mint, authority, owner, amount) => b.mintTo(mint, authority, owner, amount),
    transferToken: (mint, from, to, amount, opts) => b.transferToken(mint, from, to, amount, opts),
    setMintAuthority: (mint, authority, newAuthority) => b.setMintAuthority(mint, authority, newAuthority),
    send: (tx, o) => b.send(tx, o),
    failingTransaction: (from) => b.failingTransaction(from),
  };
}

/**
 * The JSON-RPC server on `port` and the WebSocket one on the next port, as clients derive it. With
 * port 0 a free port whose successor is also free is searched for; a given port must have both.
 */
async function listen(server: RpcServer, pubsub: PubSubServer, port: number, host: string): Promise<{ url: string; wsUrl: string }> {
  for (let attempt = 0; ; attempt++) {
    const url = server.start(port, host);
    try {
      return { url, wsUrl: pubsub.start(Number(new URL(url).port) + 1, host) };
    } catch (e) {
      await server.stop();
      if (port !== 0 || attempt >= 20) throw e;
    }
  }
}
