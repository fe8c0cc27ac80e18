// Who verifies and settles x402 payments. Built in by default: @x402/svm's `exact` facilitator
// (its verification rules and settlement, versions 1 and 2) signing with the fee-payer keypair and
// reaching the chain through the gateway's own upstreams (failover, timeouts, secrets kept out of
// errors). Or an external facilitator by URL (@x402/core's client of /verify, /settle, /supported).
import { address, createKeyPairSignerFromBytes, decompileTransactionMessage, getCompiledTransactionMessageDecoder, type KeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { SettleError, VerifyError, type PaymentPayload, type PaymentRequirements, type SettleResponse, type VerifyResponse } from '@x402/core/types';
import { assertFeePayerIsolated, decodeTransactionFromPayload, SettlementCache, toFacilitatorSvmSigner, TransactionOnchainFailureError, validateComputeBudgetLimits, type FacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/facilitator';
import { ExactSvmSchemeV1 } from '@x402/svm/exact/v1/facilitator';
import type { Upstream } from '../../chain/upstream.ts';
import { ConfigError } from '../../config.ts';
import { TOKEN_2022_PROGRAM } from '../../chain/program-ids.ts';
import { readKeypairFile } from './keypair-file.ts';
import { CAIP2, V1_NETWORK } from './terms.ts';
import type { Network } from '../../config.ts';

/** A payment as either version carries it; the facilitators take both. */
export type AnyPayload = PaymentPayload | { x402Version: 1; scheme: string; network: string; payload: Record<string, unknown> };
export type AnyRequirements = PaymentRequirements | Record<string, unknown>;

export interface Facilitator {
  readonly kind: 'built-in' | 'external';
  /** The fee payer named in the offer. */
  feePayer(): Promise<string>;
  /** Rejects when the facilitator cannot take payments now (an external one's /supported); the built-in one's chain is read with the accounts. */
  probe(): Promise<void>;
  verify(payload: AnyPayload, requirements: AnyRequirements): Promise<VerifyResponse>;
  settle(payload: AnyPayload, requirements: AnyRequirements): Promise<SettleResponse>;
}

const KEY_FILE = 'X402_FEE_PAYER_KEYPAIR / --x402-fee-payer-keypair';

/**
 * The fee payer from a Solana CLI keypair file (a JSON array of 64 numbers). No error repeats the
 * file's contents: they are the key.
 */
export async function loadFeePayer(path: string): Promise<KeyPairSigner> {
  const bytes = readKeypairFile(path, KEY_FILE);
  try {
    return await createKeyPairSignerFromBytes(bytes);
  } catch {
    throw new ConfigError(`${KEY_FILE}: the file's public half does not match its secret half`);
  }
}

export interface BuiltInOptions {
  signer: KeyPairSigner;
  rpc: Upstream;
  network: Network;
  /** The mint paid in: the fee payer's own account of it must not be in a payment. */
  asset: string;
  /** Highest compute-unit price a payment may set (the fee payer pays it). */
  maxComputeUnitPrice: number;
  /** Longest wait for `confirmed`. */
  settleMs: number;
}

/** Compute units a payment may ask for: a TransferChecked and a memo use a few thousand. */
const MAX_COMPUTE_UNITS = 200_000;
const POLL_MS = 250;

/** @x402/svm's facilitator signer with every chain access going through the gateway's upstream. */
function upstreamSigner(o: BuiltInOptions): FacilitatorSvmSigner {
  // Signing only: the RPC-backed methods are replaced below, so no default public RPC is ever reached.
  const signing = toFacilitatorSvmSigner(o.signer, { '*': {} as never });
  return {
    getAddresses: () => [o.signer.address],
    signTransaction: (tx, feePayer, network) => signing.signTransaction(tx, feePayer, network),
    async simulateTransaction(tx) {
      const sim = await o.rpc.call<{ value: { err: unknown } }>('simulateTransaction', [tx, { sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed', encoding: 'base64' }]);
      if (sim.value.err) throw new Error(`Simulation failed: ${JSON.stringify(sim.value.err)}`);
    },
    sendTransaction: (tx) => o.rpc.call<string>('sendTransaction', [tx, { encoding: 'base64', skipPreflight: true, preflightCommitment: 'confirmed' }], { write: true }) as Promise<string>,
    async confirmTransaction(signature) {
      const until = Date.now() + o.settleMs;
      // A node that fails to answer is asked again until the bound: the transaction may be landing meanwhile.
      let failure = '';
      for (;;) {
        try {
          const statuses = await o.rpc.call<{ value: ({ err: unknown; confirmationStatus: string | null } | null)[] }>('getSignatureStatuses', [[signature]]);
          const status = statuses.value[0];
          if (status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')) {
            if (status.err) throw new TransactionOnchainFailureError(`Transaction failed onchain: ${JSON.stringify(status.err)}`);
            return;
          }
        } catch (e) {
          if (e instanceof TransactionOnchainFailureError) throw e;
          failure = `; last status query failed: ${e instanceof Error ? e.message : String(e)}`;
        }
        if (Date.now() + POLL_MS > until) throw new Error(`not confirmed within ${o.settleMs} ms${failure}`);
        await Bun.sleep(POLL_MS);
      }
    },
  };
}

/** The fee payer's associated accounts of the asset (both token programs): a payment spending from them would spend the fee payer's money. */
async function feePayerTokenAccounts(o: BuiltInOptions): Promise<Set<string>> {
  const programs = [TOKEN_PROGRAM_ADDRESS, address(TOKEN_2022_PROGRAM)];
  const found = await Promise.all(programs.map((tokenProgram) => findAssociatedTokenPda({ owner: o.signer.address, mint: address(o.asset), tokenProgram })));
  return new Set(found.map(([ata]) => ata as string));
}

export function builtInFacilitator(o: BuiltInOptions): Facilitator {
  const signer = upstreamSigner(o);
  const ownAccounts = feePayerTokenAccounts(o);
  const cache = new SettlementCache();
  const limits = { maxComputeUnits: MAX_COMPUTE_UNITS, maxPriorityFeeMicroLamports: o.maxComputeUnitPrice };
  const facilitator = new x402Facilitator()
    .register(CAIP2[o.network] as PaymentRequirements['network'], new ExactSvmScheme(signer, cache, limits))
    .registerV1(V1_NETWORK[o.network] as PaymentRequirements['network'], new ExactSvmSchemeV1(signer, cache))
    // Beyond the scheme's own rules, for both versions: neither the fee payer nor its own token
    // account appears in any instruction (so it is neither authority nor source of the transfer),
    // and the compute budget stays within bounds.
    .onBeforeVerify(async ({ paymentPayload }) => {
      try {
        const tx = decodeTransactionFromPayload(paymentPayload.payload as { transaction: string });
        await assertFeePayerIsolated(tx, o.signer.address);
        const own = await ownAccounts;
        const { instructions } = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes));
        if (instructions.some((ix) => ix.accounts?.some((a) => own.has(a.address)))) {
          return { abort: true, reason: "fee_payer_token_account: the fee payer's own token account is in the transaction" };
        }
        validateComputeBudgetLimits(tx, limits);
      } catch (e) {
        return { abort: true, reason: e instanceof Error ? e.message : String(e) };
      }
    });
  return {
    kind: 'built-in',
    feePayer: async () => o.signer.address,
    probe: async () => {},
    verify: (p, r) => facilitator.verify(p as PaymentPayload, r as PaymentRequirements),
    settle: (p, r) => facilitator.settle(p as PaymentPayload, r as PaymentRequirements),
  };
}

/** An external facilitator: its fee payer is read from /supported when first needed, and again by each probe. */
export function externalFacilitator(url: string, network: Network): Facilitator {
  const client = new HTTPFacilitatorClient({ url });
  let feePayer: Promise<string> | undefined;
  const readFeePayer = async () => {
    const supported = await client.getSupported();
    const kind = supported.kinds.find((k) => k.scheme === 'exact' && k.network === CAIP2[network] && typeof k.extra?.feePayer === 'string');
    if (!kind) throw new Error(`the facilitator supports no exact payments on ${network}`);
    return kind.extra!.feePayer as string;
  };
  return {
    kind: 'external',
    feePayer: () => (feePayer ??= readFeePayer().catch((e) => ((feePayer = undefined), Promise.reject(e)))),
    probe: async () => {
      const read = await readFeePayer();
      feePayer = Promise.resolve(read);
    },
    // A refusal the facilitator answers with an HTTP error status is still a refusal, not an outage.
    verify: (p, r) =>
      client.verify(p as PaymentPayload, r as PaymentRequirements).catch((e) => {
        if (e instanceof VerifyError) return { isValid: false, invalidReason: e.invalidReason, invalidMessage: e.invalidMessage, payer: e.payer };
        throw e;
      }),
    settle: (p, r) =>
      client.settle(p as PaymentPayload, r as PaymentRequirements).catch((e) => {
        if (e instanceof SettleError) return { success: false, errorReason: e.errorReason, errorMessage: e.errorMessage, payer: e.payer, transaction: e.transaction, network: e.network };
        throw e;
      }),
  };
}
