// Priority-fee tiers from getRecentPrioritizationFees (pure).
//
// Each sample is one recent slot and the lowest priority fee (micro-lamports per compute unit)
// that landed in it for the given accounts (or the whole block without accounts). A zero means a
// fee-less transaction happened to land in that slot, which says little about the fee that will.
//
// Method, in order:
//   1. Validate and normalize (slot and fee: non-negative integers, number or bigint).
//   2. Sort by slot; a slot listed twice keeps its HIGHER fee (conservative when merging replies).
//   3. Keep the newest 150 slots (the node's own cache depth).
//   4. Percentiles use the nearest-rank definition over the ascending fees v[1..N]:
//      P(p) = v[ceil(p/100 × N)], always an observed value (no interpolation).
//   5. Zero-slot policy: when at least MIN_NONZERO_SLOTS slots have a non-zero fee, percentiles are
//      taken over those slots only (so an account that is often idle still gets a fee that lands
//      when it is contested); otherwise over all slots, zeros included. Either way each tier is at
//      least FEE_FLOOR micro-lamports/CU, so the transaction always carries some priority.
//   6. Congestion = share of slots in the window with a non-zero fee (how often paying was needed):
//      < 25% 'low', 25% to < 75% 'moderate', ≥ 75% 'high'.

export const MAX_WINDOW_SLOTS = 150;
export const MIN_NONZERO_SLOTS = 10;
/** Micro-lamports per CU: 200 lamports for a 200k-CU transaction; above any zero-fee competitor. */
export const FEE_FLOOR = 1_000;
export const TIER_PERCENTILES = { low: 25, medium: 50, high: 75 } as const;
/** A Solana transaction can request at most this many compute units. */
export const MAX_COMPUTE_UNITS = 1_400_000;

export const FEES_UNAVAILABLE_MESSAGE = 'Could not fetch prioritization fees from cluster';

/** The cluster gave no usable fee samples; the caller answers 500 with this message. */
export class PrioritizationFeesUnavailableError extends Error {
  override readonly name = 'PrioritizationFeesUnavailableError';
  /** Why, for logs (the HTTP body uses `message`). */
  readonly detail: string;
  constructor(detail: string) {
    super(FEES_UNAVAILABLE_MESSAGE);
    this.detail = detail;
  }
}

export interface FeeSample {
  readonly slot: number | bigint;
  readonly prioritizationFee: number | bigint;
}

export type Congestion = 'low' | 'moderate' | 'high';

export interface FeeTier {
  readonly microLamportsPerComputeUnit: number;
  readonly percentile: number;
  /** The percentile before the floor was applied. */
  readonly observedMicroLamportsPerComputeUnit: number;
  /** True when the floor raised this tier. */
  readonly floored: boolean;
  /** ceil(price × computeUnits / 1e6), present when computeUnits was given. */
  readonly totalLamports?: number;
}

export interface FeeTiers {
  readonly unit: 'microLamportsPerComputeUnit';
  readonly tiers: { readonly low: FeeTier; readonly medium: FeeTier; readonly high: FeeTier };
  readonly congestion: Congestion;
  readonly congestionRule: string;
  /** Number of fees the percentiles were taken over. */
  readonly sampleSize: number;
  readonly basis: 'nonZeroSlots' | 'allSlots';
  readonly window: { readonly fromSlot: number; readonly toSlot: number; readonly slots: number };
  readonly zeroFeeSlots: number;
  readonly computeUnits?: number;
  readonly policy: string;
}

export interface FeeTierOptions {
  readonly computeUnits?: number | bigint;
}

const CONGESTION_RULE =
  'share of slots in the window with a non-zero fee: under 25% low, 25% to under 75% moderate, 75% or more high';

function toBig(value: unknown, what: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new PrioritizationFeesUnavailableError(`${what} is not a non-negative integer: ${String(value)}`);
}

function safeNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} ${value} exceeds 2^53`);
  return Number(value);
}

/** Nearest-rank percentile of an ascending, non-empty list: v[ceil(p/100 × N)] (1-based). */
export function nearestRank(sortedAscending: readonly bigint[], percentile: number): bigint {
  const n = sortedAscending.length;
  if (n === 0) throw new RangeError('nearestRank of an empty list');
  if (!Number.isInteger(percentile) || percentile <= 0 || percentile > 100) {
    throw new RangeError(`percentile must be an integer in 1..100, got ${percentile}`);
  }
  const rank = Math.ceil((percentile * n) / 100); // exact: small integers
  return sortedAscending[rank - 1] as bigint;
}

function normalizeComputeUnits(cu: number | bigint | undefined): bigint | undefined {
  if (cu === undefined) return undefined;
  const value = typeof cu === 'bigint' ? cu : Number.isSafeInteger(cu) ? BigInt(cu) : -1n;
  if (value < 1n || value > BigInt(MAX_COMPUTE_UNITS)) {
    throw new RangeError(`computeUnits must be an integer in 1..${MAX_COMPUTE_UNITS}, got ${String(cu)}`);
  }
  return value;
}

/** low / medium / high priority fees (25th / 50th / 75th nearest-rank percentiles) from recent slots. */
export function computeFeeTiers(samples: readonly FeeSample[], opts: FeeTierOptions = {}): FeeTiers {
  const computeUnits = normalizeComputeUnits(opts.computeUnits);
  if (!Array.isArray(samples) || samples.length === 0) {
    throw new PrioritizationFeesUnavailableError('getRecentPrioritizationFees returned no slots');
  }

  const bySlot = new Map<bigint, bigint>();
  for (const sample of samples) {
    if (typeof sample !== 'object' || sample === null) {
      throw new PrioritizationFeesUnavailableError('fee sample is not an object');
    }
    const slot = toBig(sample.slot, 'slot');
    const fee = toBig(sample.prioritizationFee, 'prioritizationFee');
    const seen = bySlot.get(slot);
    if (seen === undefined || fee > seen) bySlot.set(slot, fee);
  }
  const window = [...bySlot.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(-MAX_WINDOW_SLOTS);

  const fees = window.map(([, fee]) => fee);
  const nonZero = fees.filter((f) => f > 0n);
  const zeroFeeSlots = fees.length - nonZero.length;
  const basis: FeeTiers['basis'] = nonZero.length >= MIN_NONZERO_SLOTS ? 'nonZeroSlots' : 'allSlots';
  const sorted = [...(basis === 'nonZeroSlots' ? nonZero : fees)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const floor = BigInt(FEE_FLOOR);
  const tier = (percentile: number): FeeTier => {
    const observed = nearestRank(sorted, percentile);
    const price = observed < floor ? floor : observed;
    const base = {
      microLamportsPerComputeUnit: safeNumber(price, 'fee'),
      percentile,
      observedMicroLamportsPerComputeUnit: safeNumber(observed, 'fee'),
      floored: price !== observed,
    };
    if (computeUnits === undefined) return base;
    const total = (price * computeUnits + 999_999n) / 1_000_000n; // ceil(price × CU / 1e6)
    return { ...base, totalLamports: safeNumber(total, 'totalLamports') };
  };

  // Share of non-zero slots, compared in integers: 4 × nonZero vs N (25%) and 4 × nonZero vs 3N (75%).
  const n = fees.length;
  const congestion: Congestion = 4 * nonZero.length >= 3 * n ? 'high' : 4 * nonZero.length >= n ? 'moderate' : 'low';

  const first = window[0] as [bigint, bigint];
  const last = window[window.length - 1] as [bigint, bigint];
  const policy =
    basis === 'nonZeroSlots'
      ? `Nearest-rank percentiles over the ${nonZero.length} slots with a non-zero fee among the newest ${n}; ` +
        `the ${zeroFeeSlots} zero-fee slots are left out because a zero only means a fee-less transaction happened to land, ` +
        `not that one will. Each tier is at least ${FEE_FLOOR} micro-lamports per compute unit.`
      : `Only ${nonZero.length} of the newest ${n} slots had a non-zero fee (fewer than ${MIN_NONZERO_SLOTS}), ` +
        `so nearest-rank percentiles are taken over all ${n} slots, zeros included, and each tier is raised to at least ` +
        `${FEE_FLOOR} micro-lamports per compute unit so the transaction still carries a priority fee.`;

  return {
    unit: 'microLamportsPerComputeUnit',
    tiers: { low: tier(TIER_PERCENTILES.low), medium: tier(TIER_PERCENTILES.medium), high: tier(TIER_PERCENTILES.high) },
    congestion,
    congestionRule: CONGESTION_RULE,
    sampleSize: sorted.length,
    basis,
    window: { fromSlot: safeNumber(first[0], 'slot'), toSlot: safeNumber(last[0], 'slot'), slots: n },
    zeroFeeSlots,
    ...(computeUnits === undefined ? {} : { computeUnits: Number(computeUnits) }),
    policy,
  };
}

// The upstream cache hands every call within its time-to-live the same sample array, so tiers
// are computed once per sample (and compute-unit count) instead of once per call. Keyed weakly by
// the array: a sample the cache has let go of takes its tiers with it.
const tiersBySample = new WeakMap<readonly FeeSample[], Map<number | bigint, FeeTiers>>();
/** Compute-unit counts remembered per sample; a client sweeping through them starts it afresh. */
const MAX_MEMO_PER_SAMPLE = 64;

/** computeFeeTiers, remembered per sample array; the result is shared, so it is frozen. */
export function feeTiersOf(samples: readonly FeeSample[], opts: FeeTierOptions = {}): FeeTiers {
  let memo = tiersBySample.get(samples);
  const key = opts.computeUnits ?? -1;
  const known = memo?.get(key);
  if (known) return known;
  const tiers = deepFreeze(computeFeeTiers(samples, opts));
  if (!memo || memo.size >= MAX_MEMO_PER_SAMPLE) tiersBySample.set(samples, (memo = new Map()));
  memo.set(key, tiers);
  return tiers;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
