// Deposit quorum: with several RPC nodes on the payment network, a deposit is credited only when
// enough of them, asked one by one, show the same transfer, so one lying node cannot mint credit.
import type { Upstream } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { transfersTo, type Transfer } from './deposits.ts';

export interface DepositQuorum {
  /**
   * The transfers that at least `required` nodes show exactly (sender and amount); null when the
   * answer must wait (a node did not answer, or does not show the transaction yet).
   */
  confirm(signature: string, transfers: Transfer[]): Promise<Transfer[] | null>;
}

export interface QuorumOptions {
  /** One Upstream per node, each with a single URL. */
  witnesses: Upstream[];
  required: number;
  gateway: string;
  log: Logger;
  /** How long a node may lag behind the others before its silence counts as a no. */
  graceMs?: number;
  now?: () => number;
}

const MAX_WAITING = 10_000;

export function depositQuorum(o: QuorumOptions): DepositQuorum {
  const graceMs = o.graceMs ?? 60_000;
  const now = o.now ?? Date.now;
  // Transactions some node does not show yet, by when that was first seen.
  const waiting = new Map<string, number>();
  return {
    async confirm(signature, transfers) {
      const answers = await Promise.allSettled(
        o.witnesses.map((w) => w.call('getTransaction', [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])),
      );
      if (answers.some((a) => a.status === 'rejected')) return null;
      const seen = answers.map((a) => ((a as PromiseFulfilledResult<unknown>).value === null ? null : transfersTo((a as PromiseFulfilledResult<unknown>).value, o.gateway)));
      if (seen.includes(null)) {
        const since = waiting.get(signature) ?? now();
        if (!waiting.has(signature)) {
          if (waiting.size >= MAX_WAITING) waiting.delete(waiting.keys().next().value!);
          waiting.set(signature, since);
        }
        if (now() - since < graceMs) return null;
      }
      waiting.delete(signature);
      const confirmed = transfers.filter((t) => seen.filter((s) => s?.some((x) => x.from === t.from && x.lamports === t.lamports)).length >= o.required);
      if (confirmed.length < transfers.length) o.log.warn('deposit not confirmed by the quorum; not credited', { signature, required: o.required, nodes: o.witnesses.length });
      return confirmed;
    },
  };
}
