import { describeTransactionError } from '../chain/tx/errors.ts';
import { Type as t } from '@sinclair/typebox';
import { defineCapability } from './capability.ts';
import { anyJson, base58Address, nullable, u64 } from './output.ts';
import { base64Transaction, network } from './params.ts';

// An unsigned legacy transfer of 0.001 SOL between two mainnet addresses (the signature is zeros).
const EXAMPLE_TX =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAEDdheBW1o5mpmLum60xlPLO5WkwivTyvoB7aqUo2OcEWDG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA7mR0xSJrpalfBq0I511boL3w/AERVbEygx5T81V4P1sBAgIAAQwCAAAAQEIPAAAAAAA=';

export interface SimulationValue {
  err: unknown;
  logs: string[] | null;
  unitsConsumed?: number;
  returnData?: { programId: string; data: [string, string] } | null;
  fee?: number | null;
  replacementBlockhash?: { blockhash: string; lastValidBlockHeight: number } | null;
}

/** simulateTransaction's value as the gateway answers it (pure). */
export function simulationBody(v: SimulationValue) {
  const logs = v.logs ?? [];
  return {
    success: v.err === null,
    err: v.err,
    error: describeTransactionError(v.err, { logs })?.message ?? null,
    logs,
    unitsConsumed: v.unitsConsumed ?? null,
    returnData: v.returnData ? { programId: v.returnData.programId, data: v.returnData.data[0], encoding: 'base64' as const } : null,
    fee: v.fee ?? null,
    replacementBlockhash: v.replacementBlockhash ?? null,
  };
}

export const simulate = defineCapability({
  name: 'simulate',
  tool: 'simulate_chain_transaction',
  method: 'POST',
  title: 'Simulate a transaction',
  description:
    'Simulates a base64 wire transaction (legacy or v0, at most 1232 bytes) without signature checks and with its blockhash replaced by a current one, so an unsigned or stale transaction can be tested. Returns success, the error (with a readable description), program logs, compute units consumed and return data. Nothing is sent to the chain.',
  paid: true,
  params: { transaction: base64Transaction('Serialized transaction, standard base64', EXAMPLE_TX), network: network() },
  output: t.Object({
    success: t.Boolean(),
    err: anyJson('The node\'s error object; null on success'),
    error: nullable(t.String({ description: 'The error in words; null on success' })),
    logs: t.Array(t.String(), { description: 'Program log lines' }),
    unitsConsumed: nullable(u64('Compute units consumed')),
    returnData: nullable(t.Object({ programId: base58Address('Program that set the data'), data: t.String({ description: 'The data, base64' }), encoding: t.Literal('base64') })),
    fee: nullable(u64('Fee in lamports the transaction would pay, when the node tells')),
    replacementBlockhash: nullable(t.Object({ blockhash: t.String(), lastValidBlockHeight: u64('Last valid block height') })),
    slot: u64('Slot the simulation ran at'),
  }),
  async run(ctx, { transaction, network }) {
    const res = await ctx.rpc(network).call<{ context: { slot: number }; value: SimulationValue }>('simulateTransaction', [
      transaction,
      { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'confirmed' },
    ]);
    return {
      ...simulationBody(res.value),
      slot: res.context.slot,
    };
  },
});
