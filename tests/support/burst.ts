// Many real transfers landed on the sandbox as fast as it takes them: what a dust attack on the
// deposit address looks like. Shared by the watcher test and bench/watcher.ts.
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import type { Sandbox } from './sandbox/index.ts';

/**
 * `count` transfers from `from` to `to`, signed ahead in batches within one blockhash's lifetime
 * and sent without preflight. Amounts are 1 to 140 lamports (distinct within a batch, so each
 * transaction is distinct). Resolves to their sum.
 */
export async function burst(chain: Sandbox, from: KeyPairSigner, to: Address, count: number): Promise<number> {
  const rpc = createSolanaRpc(chain.url);
  let total = 0;
  for (let sent = 0; sent < count; ) {
    const n = Math.min(140, count - sent);
    const lifetime = (await rpc.getLatestBlockhash().send()).value;
    const txs = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        signTransactionMessageWithSigners(
          pipe(
            createTransactionMessage({ version: 0 }),
            (m) => setTransactionMessageFeePayerSigner(from, m),
            (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
            (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: from, destination: to, amount: BigInt(i + 1) })], m),
          ),
        ),
      ),
    );
    for (const tx of txs) await chain.send(tx, { skipPreflight: true });
    total += (n * (n + 1)) / 2;
    sent += n;
  }
  return total;
}
