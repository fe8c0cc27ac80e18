// POST /api/payments/webhook: a payment-detection provider (Helius enhanced transactions) pushes
// deposits. The Authorization header must equal the configured secret (constant-time compare).
// Each reported deposit is confirmed on chain before it is credited, so a leaked secret cannot
// mint credit; what the chain does not confirm is left for the watcher or dropped.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Network } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Upstream } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { recordDeposit, transfersTo, type DepositOutcome } from './deposits.ts';

export function authorized(header: string | null, secret: string): boolean {
  // Hashing first gives equal lengths, so the comparison leaks neither content nor length.
  const a = createHash('sha256').update(header ?? '').digest();
  const b = createHash('sha256').update(secret).digest();
  return header !== null && timingSafeEqual(a, b);
}

interface ReportedTransfer {
  signature: string;
  from: string;
  lamports: bigint;
}

/** Native transfers to the gateway in a Helius enhanced-transaction array, summed per (signature, sender). */
export function reportedDeposits(payload: unknown, gateway: string): ReportedTransfer[] {
  if (!Array.isArray(payload)) throw badRequest('Invalid webhook payload', 'Expected a JSON array of enhanced transactions with signature and nativeTransfers.');
  const sums = new Map<string, ReportedTransfer>();
  for (const tx of payload) {
    const signature = (tx as { signature?: unknown })?.signature;
    const transfers = (tx as { nativeTransfers?: unknown })?.nativeTransfers;
    if (typeof signature !== 'string' || !Array.isArray(transfers)) continue;
    for (const t of transfers as { fromUserAccount?: unknown; toUserAccount?: unknown; amount?: unknown }[]) {
      if (t?.toUserAccount !== gateway || typeof t.fromUserAccount !== 'string') continue;
      const amount = t.amount;
      if (!((typeof amount === 'number' && Number.isSafeInteger(amount) && amount > 0) || (typeof amount === 'bigint' && amount > 0n))) continue;
      const key = `${signature}:${t.fromUserAccount}`;
      const prev = sums.get(key);
      sums.set(key, { signature, from: t.fromUserAccount, lamports: (prev?.lamports ?? 0n) + BigInt(amount) });
    }
  }
  return [...sums.values()];
}

export interface WebhookDeps {
  db: Db;
  rpc: Upstream;
  network: Network;
  gateway: string;
  secret: string;
  verify: boolean;
  minDepositLamports: number;
  log: Logger;
}

export interface WebhookResult {
  deposits: { signature: string; wallet: string; lamports: string; outcome: DepositOutcome | 'unconfirmed' }[];
}

export async function handleWebhook(deps: WebhookDeps, authorization: string | null, payload: unknown): Promise<WebhookResult> {
  if (!authorized(authorization, deps.secret)) throw new GatewayError(401, { error: 'Invalid authorization header' });
  const reported = reportedDeposits(payload, deps.gateway);
  const out: WebhookResult['deposits'] = [];
  for (const r of reported) {
    let confirmed = !deps.verify;
    if (deps.verify) {
      const tx = await deps.rpc.call('getTransaction', [r.signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
      confirmed = transfersTo(tx, deps.gateway).some((t) => t.from === r.from && t.lamports === r.lamports);
    }
    if (!confirmed) {
      deps.log.warn('webhook deposit not confirmed on chain; not credited', { signature: r.signature });
      out.push({ signature: r.signature, wallet: r.from, lamports: r.lamports.toString(), outcome: 'unconfirmed' });
      continue;
    }
    const outcome = recordDeposit(deps.db, { signature: r.signature, network: deps.network, wallet: r.from, lamports: r.lamports, source: 'webhook' }, BigInt(deps.minDepositLamports));
    if (outcome !== 'duplicate') deps.log.info('deposit recorded', { source: 'webhook', signature: r.signature, wallet: r.from, lamports: r.lamports, outcome });
    out.push({ signature: r.signature, wallet: r.from, lamports: r.lamports.toString(), outcome });
  }
  return { deposits: out };
}
