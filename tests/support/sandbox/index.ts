// Public API of the sandbox Solana cluster used by the tests.
//
// A loopback JSON-RPC 2.0 server backed by a real LiteSVM (real System / SPL Token / Token-2022 / ATA / Memo
// programs, real transactions and logs) that answers in mainnet's shapes (Agave 2.3, see API_VERSION):
//
//   const sb = await startSandbox();              // free port on 127.0.0.1
//   const rpc = createSolanaRpc(sb.url);
//   const alice = await sb.newWallet();           // 10 SOL, funded by a real transfer
//   const mint = await sb.createMint({ authority: alice, decimals: 6 });
//   await sb.mintTo(mint, alice, alice.address, 1_000_000n);
//   JSON-RPC sandboxMintTo [owner, mint, rawAmount]: USDC (EPjFWdd5..., 6 decimals, at its mainnet address) into the
//   owner's ATA, created if needed; the only non-mainnet method.
//   sb.fault({ mode: 'http429' }, { methods: ['getBalance'], times: 1 });
//   await sb.stop();
//
// Behaviour worth knowing:
// - One transaction per slot. Slots only advance when a transaction lands (airdrops and failed-but-landed ones
//   included); blockTime = start time + 0.4 s per slot; blockHeight = slot - a fixed gap; every answer is
//   'finalized'. Epochs follow mainnet's schedule (432,000 slots).
// - Blockhashes: each landed slot produces a new one; any of the last 150 is accepted (lastValidBlockHeight =
//   blockHeight + 150), durable nonces too. sendTransaction with preflight rejects stale blockhashes (-32002
//   "Blockhash not found"), duplicates (-32002 "...already been processed") and bad signatures (-32003). With
//   skipPreflight it returns the signature like mainnet and such a transaction is silently dropped (never lands).
// - Fees are mainnet's: 5,000 lamports per signature + ceil(cuPrice * cuLimit / 1e6), charged on failure too;
//   sum(preBalances) - sum(postBalances) == fee for every recorded transaction.
// - Builders sign v0 transactions; signers pay their own fees when they hold >= 0.01 SOL (plus rent when they
//   create accounts), otherwise the sandbox payer pays. They reject with SandboxSendError when preflight fails.
// - Memos use SPL Memo v2 (MemoSq...). Beware: @solana-program/memo 0.15's default program id is a different
//   program (Memo4c2p...) that does not exist in the sandbox (InvalidProgramForExecution).
export { startSandbox, type Sandbox } from './sandbox.ts';
export type { Fault, FaultOptions } from './server.ts';
export { SandboxSendError, LAMPORTS_PER_SOL, type CreateMintOptions, type MintExtensions } from './builders.ts';
export { API_VERSION, GENESIS_HASH } from './constants.ts';
export type { TxErrorJson } from './errors.ts';
