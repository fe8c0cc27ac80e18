import { feeTiersOf, FEES_UNAVAILABLE_MESSAGE, MAX_COMPUTE_UNITS } from '../chain/fees.ts';
import { UpstreamError } from '../chain/upstream.ts';
import { serverError } from '../errors.ts';
import { Type as t } from '@sinclair/typebox';
import { defineCapability } from './capability.ts';
import { base58Address } from './output.ts';
import { addressList, integer, network } from './params.ts';

const FEE_TIER = t.Object({
  microLamportsPerComputeUnit: t.Integer({ minimum: 0, description: 'Price to set with SetComputeUnitPrice' }),
  percentile: t.Integer({ minimum: 1, maximum: 100 }),
  observedMicroLamportsPerComputeUnit: t.Integer({ minimum: 0, description: 'The percentile before the floor was applied' }),
  floored: t.Boolean({ description: 'True when the floor raised this tier' }),
  totalLamports: t.Optional(t.Integer({ minimum: 0, description: 'ceil(price × computeUnits / 10^6), when computeUnits was given' })),
});

export const optimalFee = defineCapability({
  name: 'optimal-fee',
  tool: 'optimal_fee',
  method: 'GET',
  title: 'Priority-fee tiers',
  summary:
    "Priority-fee tiers (low/medium/high, micro-lamports per compute unit) from recent fees, for SetComputeUnitPrice.",
  description:
    'Low / medium / high priority fees (25th / 50th / 75th percentiles of the last 150 slots) in micro-lamports per compute unit, with congestion and the sample they come from. Pass `accounts` (addresses your transaction will write) for their local fee market, and `computeUnits` to get each tier\'s total priority cost in lamports. Use the tier as SetComputeUnitPrice.',
  paid: true,
  params: {
    accounts: addressList("The transaction's writable accounts: their local fee market", 128),
    computeUnits: integer('Compute units it will use: each tier priced in lamports', { min: 1, max: MAX_COMPUTE_UNITS }),
    network: network(),
  },
  output: t.Object({
    accounts: t.Optional(t.Array(base58Address('Writable account'), { description: 'The accounts the sample was narrowed to, when given' })),
    unit: t.Literal('microLamportsPerComputeUnit'),
    tiers: t.Object({ low: FEE_TIER, medium: FEE_TIER, high: FEE_TIER }),
    congestion: t.Union([t.Literal('low'), t.Literal('moderate'), t.Literal('high')]),
    congestionRule: t.String(),
    sampleSize: t.Integer({ minimum: 1, description: 'Number of fees the percentiles were taken over' }),
    basis: t.Union([t.Literal('nonZeroSlots'), t.Literal('allSlots')]),
    window: t.Object({ fromSlot: t.Integer({ minimum: 0 }), toSlot: t.Integer({ minimum: 0 }), slots: t.Integer({ minimum: 1 }) }),
    zeroFeeSlots: t.Integer({ minimum: 0 }),
    computeUnits: t.Optional(t.Integer({ minimum: 1, description: 'Echo of computeUnits, when given' })),
    policy: t.String({ description: 'How the tiers were computed, in words' }),
  }),
  async run(ctx, { accounts, computeUnits, network }) {
    let samples;
    try {
      // Fees move with every slot (~400 ms), but the sample spans the last 150 slots (~60 s): a couple
      // of seconds of reuse spares the node, and a couple more while it refreshes keeps paid callers
      // from waiting on it.
      samples = await ctx.rpc(network).call<{ slot: number; prioritizationFee: number }[]>('getRecentPrioritizationFees', accounts ? [accounts] : [], {
        cacheMs: 2000,
        staleMs: 2000,
      });
    } catch (e) {
      if (e instanceof UpstreamError) {
        ctx.log.warn('prioritization fees unavailable', { network, error: e.message });
        throw serverError(FEES_UNAVAILABLE_MESSAGE);
      }
      throw e;
    }
    try {
      return { ...(accounts ? { accounts } : {}), ...feeTiersOf(samples, { computeUnits }) };
    } catch (e) {
      ctx.log.warn('prioritization fees unusable', { network, error: e instanceof Error ? e.message : String(e) });
      throw serverError(FEES_UNAVAILABLE_MESSAGE);
    }
  },
});
