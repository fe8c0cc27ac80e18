// The accounts every x402 payment depends on, as the chain holds them: the asset's mint and its
// token program, the pay-to owner's token account of it, and the built-in facilitator's fee payer's
// SOL. Read in one getMultipleAccounts at start (a missing mint or pay-to account stops the start),
// and by settleable.ts, which takes the x402 offer out while one of them stops payments. The
// judgement is a pure function.
import { associatedTokenAddresses } from '../../chain/ata.ts';
import type { Upstream } from '../../chain/upstream.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, TOKEN_PROGRAMS } from '../../chain/program-ids.ts';
import { X402_FEE_PAYER_FLOOR_LAMPORTS, X402_SETTLEMENT_FEE_LAMPORTS, type Network } from '../../config.ts';
import { x402FeePayerRead } from '../../metrics.ts';

export interface X402AccountIds {
  network: Network;
  asset: string;
  payTo: string;
  /** The built-in facilitator's fee payer (an external facilitator funds its own). */
  feePayer?: string;
  /** Below this the fee payer is warned of (X402_FEE_PAYER_MIN_LAMPORTS). */
  minFeePayerLamports: number;
  /** The payment network is read on this machine only (the sandbox chain): its own way to create an account is named. */
  local?: boolean;
}

/** What the chain answered for the accounts, per address: the owner program and the lamports, or null (no such account). */
export type AccountsRead = Record<string, { owner: string; lamports: bigint } | null>;

export interface X402AccountsReport {
  asset: string;
  /** The mint's owner: the Token or Token-2022 program (null: no such mint). */
  tokenProgram: string | null;
  payTo: string;
  /** The pay-to owner's associated token account under the mint's program (null: no such mint). */
  payToTokenAccount: string | null;
  payToTokenAccountExists: boolean;
  feePayer?: string;
  feePayerLamports?: number;
  /** Why payments cannot succeed, in words, each naming the account: empty when they can. */
  problems: string[];
  /** What will stop them soon: a fee payer below the threshold. */
  warnings: string[];
}

/** The pay-to owner's associated token account of the asset under each token program. */
export async function payToAccounts(ids: Pick<X402AccountIds, 'asset' | 'payTo'>): Promise<Record<string, string>> {
  const { classic, token2022 } = await associatedTokenAddresses(ids.payTo, ids.asset);
  return { [TOKEN_PROGRAM]: classic, [TOKEN_2022_PROGRAM]: token2022 };
}

/** Judges what was read: which accounts stop payments, and which will soon. */
export function assess(ids: X402AccountIds, atas: Record<string, string>, read: AccountsRead): X402AccountsReport {
  const problems: string[] = [];
  const warnings: string[] = [];
  const mint = read[ids.asset] ?? null;
  const tokenProgram = mint && TOKEN_PROGRAMS.includes(mint.owner) ? mint.owner : null;
  if (!mint) problems.push(`the asset's mint ${ids.asset} (X402_ASSET) does not exist on ${ids.network}`);
  else if (!tokenProgram) problems.push(`the asset ${ids.asset} (X402_ASSET) is not a token mint: its owner is ${mint.owner}, not the Token or Token-2022 program`);
  const payToTokenAccount = tokenProgram ? atas[tokenProgram]! : null;
  const payToTokenAccountExists = payToTokenAccount !== null && read[payToTokenAccount] != null;
  if (payToTokenAccount && !payToTokenAccountExists) {
    problems.push(
      `the pay-to owner ${ids.payTo} (X402_PAY_TO, else GATEWAY_ADDRESS) has no token account for ${ids.asset}: create its associated token account ${payToTokenAccount} ` +
        (ids.local
          ? `(on the sandbox chain, from a source checkout: bun run wallet -- usdc 0 --to ${ids.payTo}; on a real network: spl-token create-account ${ids.asset} --owner ${ids.payTo} --fee-payer <keypair file>)`
          : `(spl-token create-account ${ids.asset} --owner ${ids.payTo} --fee-payer <keypair file>)`),
    );
  }
  const report: X402AccountsReport = { asset: ids.asset, tokenProgram, payTo: ids.payTo, payToTokenAccount, payToTokenAccountExists, problems, warnings };
  if (ids.feePayer) {
    const lamports = read[ids.feePayer]?.lamports ?? 0n;
    report.feePayer = ids.feePayer;
    report.feePayerLamports = Number(lamports);
    const settlements = (lamports - BigInt(X402_FEE_PAYER_FLOOR_LAMPORTS)) / BigInt(X402_SETTLEMENT_FEE_LAMPORTS) + 1n;
    if (lamports < BigInt(X402_FEE_PAYER_FLOOR_LAMPORTS)) problems.push(`the fee payer ${ids.feePayer} holds ${lamports} lamports, less than one settlement needs (${X402_FEE_PAYER_FLOOR_LAMPORTS}): send it SOL`);
    else if (lamports < BigInt(ids.minFeePayerLamports)) {
      warnings.push(`the fee payer ${ids.feePayer} holds ${lamports} lamports, enough for ${settlements} settlements (below X402_FEE_PAYER_MIN_LAMPORTS, ${ids.minFeePayerLamports}): send it SOL`);
    }
  }
  return report;
}

/** Reads the accounts (one RPC call) and keeps the last report for /readyz. */
export class X402Accounts {
  private last: X402AccountsReport | null = null;
  /** The read under way: callers at the same moment share it. */
  private reading: Promise<X402AccountsReport> | undefined;
  private readonly atas: Promise<Record<string, string>>;

  constructor(
    private readonly rpc: Upstream,
    readonly ids: X402AccountIds,
  ) {
    this.atas = payToAccounts(ids);
  }

  /** The report as last read (null: not read yet). */
  get lastReport(): X402AccountsReport | null {
    return this.last;
  }

  read(): Promise<X402AccountsReport> {
    return (this.reading ??= this.readNow().finally(() => (this.reading = undefined)));
  }

  private async readNow(): Promise<X402AccountsReport> {
    const atas = await this.atas;
    const keys = [this.ids.asset, ...Object.values(atas), ...(this.ids.feePayer ? [this.ids.feePayer] : [])];
    const answer = await this.rpc.call<{ value: ({ owner: string; lamports: number | bigint } | null)[] }>('getMultipleAccounts', [keys, { encoding: 'base64', commitment: 'confirmed', dataSlice: { offset: 0, length: 0 } }], {
      quiet: true,
    });
    const read: AccountsRead = Object.fromEntries(keys.map((k, i) => [k, answer.value[i] ? { owner: answer.value[i]!.owner, lamports: BigInt(answer.value[i]!.lamports) } : null]));
    this.last = assess(this.ids, atas, read);
    if (this.last.feePayerLamports !== undefined) x402FeePayerRead(BigInt(this.last.feePayerLamports));
    return this.last;
  }
}
