// POST /api/payments/webhook: a payment-detection provider (Helius enhanced transactions) pushes
// deposits. The Authorization header must equal the configured secret (constant-time compare).
// Each reported deposit is confirmed on chain before it is credited, so a leaked secret cannot
// mint credit; what the chain does not confirm is left for the watcher or dropped.
// One bad entry never costs the others: it is skipped and named in the answer, which is a 200
// for any authorized JSON array. If a node fails while confirming, the other entries are still
// processed and the answer is then the upstream failure (5xx), so the provider delivers again;
// deposits already credited count once.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Network } from '../config.ts';
import { UpstreamError, type Upstream } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { base58Bytes } from '../chain/base58.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { countDeposit, MAX_LAMPORTS, transfersTo, type DepositOutcome, type DepositRecord, type Transfer } from './deposits.ts';
import type { DepositStore } from './store.ts';

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
  /** False for a JSON number past 2^53: only its rounding is known, the chain says the rest. */
  exact: boolean;
}

export interface SkippedEntry {
  index: number;
  error: string;
}

const isKey = (value: unknown, bytes: number) => typeof value === 'string' && base58Bytes(value, bytes)?.length === bytes;

/** One entry's transfers to the gateway, summed per sender; a string naming what is wrong otherwise. */
function entryTransfers(tx: unknown, gateway: string): ReportedTransfer[] | string {
  if (!tx || typeof tx !== 'object' || Array.isArray(tx)) return 'entry is not an object';
  const { signature, nativeTransfers } = tx as { signature?: unknown; nativeTransfers?: unknown };
  if (!isKey(signature, 64)) return 'signature is not a base58 transaction signature';
  if (!Array.isArray(nativeTransfers)) return 'nativeTransfers is not an array';
  const sums = new Map<string, ReportedTransfer>();
  for (const t of nativeTransfers as unknown[]) {
    const { fromUserAccount: from, toUserAccount: to, amount } = (t ?? {}) as { fromUserAccount?: unknown; toUserAccount?: unknown; amount?: unknown };
    if (to !== gateway) continue;
    if (!isKey(from, 32)) return 'fromUserAccount is not a base58 address';
    const lamports = typeof amount === 'number' && Number.isInteger(amount) ? BigInt(amount) : typeof amount === 'bigint' ? amount : undefined;
    if (lamports === undefined || lamports <= 0n || lamports > MAX_LAMPORTS) return 'amount is not a positive whole number of lamports';
    const exact = typeof amount === 'bigint' || Number.isSafeInteger(amount);
    const prev = sums.get(from as string);
    const sum = (prev?.lamports ?? 0n) + lamports;
    if (sum > MAX_LAMPORTS) return 'amounts add up to more than any lamport supply';
    sums.set(from as string, { signature: signature as string, from: from as string, lamports: sum, exact: exact && (prev?.exact ?? true) });
  }
  return [...sums.values()];
}

/** Native transfers to the gateway in a Helius enhanced-transaction array, and the entries skipped. */
export function reportedDeposits(payload: unknown, gateway: string): { transfers: ReportedTransfer[]; skipped: SkippedEntry[] } {
  if (!Array.isArray(payload)) throw badRequest('Invalid webhook payload', 'Expected a JSON array of enhanced transactions with signature and nativeTransfers.');
  const transfers: ReportedTransfer[] = [];
  const skipped: SkippedEntry[] = [];
  payload.forEach((tx, index) => {
    const found = entryTransfers(tx, gateway);
    if (typeof found === 'string') skipped.push({ index, error: found });
    else transfers.push(...found);
  });
  return { transfers, skipped };
}

export interface WebhookDeps {
  store: Pick<DepositStore, 'recordDeposit'>;
  rpc: Upstream;
  network: Network;
  gateway: string;
  secret: string;
  verify: boolean;
  minDepositLamports: number;
  log: Logger;
  /** Confirms a transaction's transfers with more upstreams (deposit quorum); by default `rpc`'s answer stands. */
  confirm?: (signature: string, transfers: Transfer[]) => Promise<Transfer[] | null>;
}

export interface WebhookResult {
  deposits: { signature: string; wallet: string; lamports: string; outcome: DepositOutcome | 'unconfirmed' }[];
  skipped: SkippedEntry[];
}

export async function handleWebhook(deps: WebhookDeps, authorization: string | null, payload: unknown): Promise<WebhookResult> {
  if (!authorized(authorization, deps.secret)) throw new GatewayError(401, { error: 'Invalid authorization header' });
  const { transfers, skipped } = reportedDeposits(payload, deps.gateway);
  for (const s of skipped) deps.log.warn('webhook entry skipped', { event: 'deposit_ignored', ...s });
  const min = BigInt(deps.minDepositLamports);
  const out: WebhookResult['deposits'] = [];
  let failure: unknown;
  for (const r of transfers) {
    const answer = (lamports: bigint, outcome: WebhookResult['deposits'][number]['outcome']) =>
      out.push({ signature: r.signature, wallet: r.from, lamports: lamports.toString(), outcome });
    // Small transfers are summed by the watcher alone (it counts each exactly once).
    if (r.exact && r.lamports < min) {
      answer(r.lamports, 'below_minimum');
      continue;
    }
    let lamports: bigint | undefined;
    try {
      lamports = deps.verify ? await confirmed(deps, r) : r.exact ? r.lamports : undefined;
    } catch (e) {
      failure ??= e;
      continue;
    }
    if (lamports === undefined) {
      deps.log.warn('webhook deposit not confirmed on chain; not credited', { event: 'deposit_ignored', reason: 'not_on_chain', signature: r.signature });
      answer(r.lamports, 'unconfirmed');
      continue;
    }
    const record: DepositRecord = { signature: r.signature, network: deps.network, wallet: r.from, lamports, source: 'webhook' };
    const outcome = await deps.store.recordDeposit(record, min);
    countDeposit(record, outcome);
    if (outcome !== 'duplicate') deps.log.info('deposit recorded', { event: outcome === 'credited' ? 'deposit_credited' : 'deposit_ignored', source: 'webhook', signature: r.signature, wallet: r.from, lamports, outcome });
    answer(lamports, outcome);
  }
  if (failure) throw failure;
  return { deposits: out, skipped };
}

/** The amount the chain shows for the reported transfer, or undefined when it does not. Throws when a node fails. */
async function confirmed(deps: WebhookDeps, r: ReportedTransfer): Promise<bigint | undefined> {
  const tx = await deps.rpc.call('getTransaction', [r.signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
  let onChain = transfersTo(tx, deps.gateway);
  if (onChain.length && deps.confirm) {
    const agreed = await deps.confirm(r.signature, onChain);
    // The quorum cannot answer yet (a node is down or behind): a 5xx, so the provider delivers again.
    if (!agreed) throw new UpstreamError('the deposit quorum could not be reached yet', 'unreachable');
    onChain = agreed;
  }
  const match = onChain.find((t) => t.from === r.from && (r.exact ? t.lamports === r.lamports : Number(t.lamports) === Number(r.lamports)));
  return match?.lamports;
}
