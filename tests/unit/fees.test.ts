import { describe, expect, test } from 'bun:test';
import { parseJson } from '../../src/json.ts';
import {
  computeFeeTiers,
  feeTiersOf,
  FEE_FLOOR,
  FEES_UNAVAILABLE_MESSAGE,
  nearestRank,
  PrioritizationFeesUnavailableError,
  type FeeSample,
} from '../../src/chain/fees.ts';

const FIX = `${import.meta.dir}/../fixtures/mainnet`;
const fixture = async (): Promise<FeeSample[]> =>
  parseJson(await Bun.file(`${FIX}/getRecentPrioritizationFees/usdc-mint-150-slots-solrpc-canister.json`).text()) as FeeSample[];

const slots = (fees: number[], firstSlot = 1000): FeeSample[] => fees.map((prioritizationFee, i) => ({ slot: firstSlot + i, prioritizationFee }));
const prices = (r: ReturnType<typeof computeFeeTiers>) => [r.tiers.low, r.tiers.medium, r.tiers.high].map((t) => t.microLamportsPerComputeUnit);

describe('computeFeeTiers on the recorded USDC-mint fees (150 slots)', () => {
  test('tiers are the 25/50/75th nearest-rank percentiles of the non-zero slots', async () => {
    const samples = await fixture();
    // Independent expectation: plain sort of the non-zero fees, index ceil(p·N/100) − 1.
    const nonZero = samples.map((s) => Number(s.prioritizationFee)).filter((f) => f > 0).sort((a, b) => a - b);
    const pick = (p: number) => nonZero[Math.ceil((p * nonZero.length) / 100) - 1];
    expect(nonZero.length).toBe(62);
    expect([pick(25), pick(50), pick(75)]).toEqual([84168, 183582, 395962]);

    const r = computeFeeTiers(samples);
    expect(r.unit).toBe('microLamportsPerComputeUnit');
    expect(prices(r)).toEqual([84168, 183582, 395962]);
    expect([r.tiers.low.percentile, r.tiers.medium.percentile, r.tiers.high.percentile]).toEqual([25, 50, 75]);
    expect(r.tiers.low.floored).toBe(false);
    expect(r.basis).toBe('nonZeroSlots');
    expect(r.sampleSize).toBe(62);
    expect(r.zeroFeeSlots).toBe(88);
    expect(r.window).toEqual({ fromSlot: 338225766, toSlot: 338225915, slots: 150 });
    expect(r.congestion).toBe('moderate'); // 62/150 ≈ 41% of slots needed a fee
    expect(r.policy).toContain('62 slots with a non-zero fee');
    expect(r.policy).toContain('88 zero-fee slots are left out');
    expect(r.policy).toContain(`${FEE_FLOOR} micro-lamports`);
    expect(r.tiers.low.totalLamports).toBeUndefined();
  });

  test('with computeUnits: totalLamports = ceil(price × CU / 1e6)', async () => {
    const r = computeFeeTiers(await fixture(), { computeUnits: 200_000 });
    // 84168 × 0.2 = 16833.6 → 16834; 183582 × 0.2 = 36716.4 → 36717; 395962 × 0.2 = 79192.4 → 79193
    expect([r.tiers.low.totalLamports, r.tiers.medium.totalLamports, r.tiers.high.totalLamports]).toEqual([16834, 36717, 79193]);
    expect(r.computeUnits).toBe(200_000);
  });

  test('order and duplicates in the input do not matter', async () => {
    const samples = await fixture();
    const shuffled = [...samples].reverse().concat(samples.slice(0, 30));
    expect(computeFeeTiers(shuffled)).toEqual(computeFeeTiers(samples));
  });
});

describe('window and de-duplication', () => {
  test('only the newest 150 slots count', () => {
    const old = slots(Array(50).fill(9_000_000), 1); // slots 1..50, expensive
    const recent = slots(Array(150).fill(5_000), 51); // slots 51..200
    const r = computeFeeTiers([...recent, ...old]);
    expect(prices(r)).toEqual([5_000, 5_000, 5_000]);
    expect(r.window).toEqual({ fromSlot: 51, toSlot: 200, slots: 150 });
  });
  test('gaps in slot numbers are fine: the window is the newest 150 entries', () => {
    const samples = Array.from({ length: 160 }, (_, i) => ({ slot: i * 2, prioritizationFee: 10_000 + i }));
    const r = computeFeeTiers(samples);
    expect(r.window).toEqual({ fromSlot: 20, toSlot: 318, slots: 150 });
  });
  test('a slot listed twice keeps its higher fee, whatever the order', () => {
    const samples = [
      ...slots([2_000, 2_000, 2_000, 2_000]), // slots 1000..1003
      { slot: 1001, prioritizationFee: 9_000 },
      { slot: 1002, prioritizationFee: 9_000 },
      { slot: 1003, prioritizationFee: 9_000 },
      { slot: 1000, prioritizationFee: 1_500 }, // lower: ignored
    ];
    const r = computeFeeTiers(samples);
    expect(r.window.slots).toBe(4);
    expect(r.sampleSize).toBe(4);
    expect(prices(r)).toEqual([2_000, 9_000, 9_000]); // [2000, 9000, 9000, 9000]: ranks 1, 2, 3
    expect(prices(computeFeeTiers([...samples].reverse()))).toEqual([2_000, 9_000, 9_000]);
  });
  test('bigint slots and fees (as parseJson may give them) are accepted', () => {
    const r = computeFeeTiers([{ slot: 2n ** 40n, prioritizationFee: 7_000n }]);
    expect(prices(r)).toEqual([7_000, 7_000, 7_000]);
    expect(r.window.fromSlot).toBe(2 ** 40);
  });
});

describe('zero-fee slot policy and floor', () => {
  test('mostly idle account (5 of 150 slots non-zero): all slots count, tiers raised to the floor', () => {
    const fees = Array(150).fill(0);
    for (const i of [3, 40, 80, 120, 149]) fees[i] = 500_000;
    const r = computeFeeTiers(slots(fees));
    expect(r.basis).toBe('allSlots');
    expect(r.sampleSize).toBe(150);
    expect(prices(r)).toEqual([FEE_FLOOR, FEE_FLOOR, FEE_FLOOR]);
    expect(r.tiers.high.observedMicroLamportsPerComputeUnit).toBe(0);
    expect(r.tiers.high.floored).toBe(true);
    expect(r.congestion).toBe('low');
    expect(r.policy).toContain('Only 5 of the newest 150 slots');
  });
  test('boundary: 10 non-zero slots switch to the non-zero basis, 9 do not', () => {
    const make = (n: number) => slots([...Array(100).fill(0), ...Array.from({ length: n }, (_, i) => 10_000 * (i + 1))]);
    const ten = computeFeeTiers(make(10));
    expect(ten.basis).toBe('nonZeroSlots');
    expect(prices(ten)).toEqual([30_000, 50_000, 80_000]); // ranks 3, 5, 8 of 10
    const nine = computeFeeTiers(make(9));
    expect(nine.basis).toBe('allSlots');
    expect(prices(nine)).toEqual([FEE_FLOOR, FEE_FLOOR, FEE_FLOOR]);
  });
  test('every slot zero: floor everywhere, low congestion', () => {
    const r = computeFeeTiers(slots(Array(150).fill(0)));
    expect(prices(r)).toEqual([FEE_FLOOR, FEE_FLOOR, FEE_FLOOR]);
    expect(r.zeroFeeSlots).toBe(150);
    expect(r.congestion).toBe('low');
  });
  test('tiny non-zero fees are raised to the floor, larger ones are not', () => {
    // 20 non-zero fees: 1..12 then 5000..12000; nearest ranks 5, 10, 15 → 5, 10, 7000
    const r = computeFeeTiers(slots([...Array.from({ length: 12 }, (_, i) => i + 1), ...Array.from({ length: 8 }, (_, i) => 5_000 + 1_000 * i)]));
    expect(prices(r)).toEqual([FEE_FLOOR, FEE_FLOOR, 7_000]);
    expect([r.tiers.low.observedMicroLamportsPerComputeUnit, r.tiers.medium.observedMicroLamportsPerComputeUnit]).toEqual([5, 10]);
    expect([r.tiers.low.floored, r.tiers.medium.floored, r.tiers.high.floored]).toEqual([true, true, false]);
  });
});

describe('percentile definition (nearest rank)', () => {
  test('v[ceil(p/100 × N)]', () => {
    const v = [1n, 2n, 3n, 4n];
    expect([nearestRank(v, 25), nearestRank(v, 50), nearestRank(v, 75), nearestRank(v, 100)]).toEqual([1n, 2n, 3n, 4n]);
    expect(nearestRank([7n], 25)).toBe(7n);
    const five = [10n, 20n, 30n, 40n, 50n];
    expect([nearestRank(five, 25), nearestRank(five, 50), nearestRank(five, 75)]).toEqual([20n, 30n, 40n]); // ranks 2, 3, 4
    expect(() => nearestRank([], 50)).toThrow(RangeError);
    expect(() => nearestRank(v, 0)).toThrow(RangeError);
  });
  test('a single slot gives one price for all tiers', () => {
    expect(prices(computeFeeTiers([{ slot: 5, prioritizationFee: 12_345 }]))).toEqual([12_345, 12_345, 12_345]);
  });
});

describe('congestion rule: share of non-zero slots', () => {
  const share = (nonZero: number, total: number) => computeFeeTiers(slots([...Array(total - nonZero).fill(0), ...Array(nonZero).fill(50_000)])).congestion;
  test('boundaries at 25% and 75%', () => {
    expect(share(24, 100)).toBe('low');
    expect(share(25, 100)).toBe('moderate');
    expect(share(74, 100)).toBe('moderate');
    expect(share(75, 100)).toBe('high');
    expect(share(150, 150)).toBe('high');
  });
});

describe('totalLamports rounding', () => {
  test('exact products are not rounded up; any remainder is', () => {
    const at = (price: number, computeUnits: number | bigint) => computeFeeTiers([{ slot: 1, prioritizationFee: price }], { computeUnits }).tiers.medium.totalLamports;
    expect(at(1_000_000, 1)).toBe(1);
    expect(at(1_000, 1_000)).toBe(1);
    expect(at(1_001, 1_000)).toBe(2);
    expect(at(1_000, 1)).toBe(1); // 0.001 lamports → 1
    expect(at(6_064_097, 1_400_000n)).toBe(8_489_736); // 8489735.8 → 8489736
  });
  test('invalid computeUnits are rejected', () => {
    for (const cu of [0, -5, 1.5, 1_400_001, Number.NaN]) {
      expect(() => computeFeeTiers([{ slot: 1, prioritizationFee: 1 }], { computeUnits: cu })).toThrow(RangeError);
    }
  });
});

describe('errors', () => {
  test('no samples → PrioritizationFeesUnavailableError with the 500 message', () => {
    let caught: unknown;
    try {
      computeFeeTiers([]);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PrioritizationFeesUnavailableError);
    expect((caught as Error).message).toBe('Could not fetch prioritization fees from cluster');
    expect(FEES_UNAVAILABLE_MESSAGE).toBe('Could not fetch prioritization fees from cluster');
  });
  test('malformed samples are the same error, not a wrong answer', () => {
    expect(() => computeFeeTiers([{ slot: 1, prioritizationFee: -1 }])).toThrow(PrioritizationFeesUnavailableError);
    expect(() => computeFeeTiers([{ slot: 1, prioritizationFee: '5' as unknown as number }])).toThrow(PrioritizationFeesUnavailableError);
    expect(() => computeFeeTiers([null as unknown as FeeSample])).toThrow(PrioritizationFeesUnavailableError);
  });
});

describe('feeTiersOf: tiers remembered per sample', () => {
  test('the same answer as computeFeeTiers, computed once per sample and compute-unit count', async () => {
    const samples = await fixture();
    const first = feeTiersOf(samples, { computeUnits: 200_000 });
    expect(first).toEqual(computeFeeTiers(samples, { computeUnits: 200_000 }));
    expect(feeTiersOf(samples, { computeUnits: 200_000 })).toBe(first);
    expect(feeTiersOf(samples)).toEqual(computeFeeTiers(samples));
    expect(feeTiersOf(samples)).not.toBe(first);
  });

  test('a new sample (the next upstream answer) gets its own tiers', async () => {
    const old = slots([5000, 6000, 7000]);
    const fresh = slots([50_000, 60_000, 70_000], 2000);
    expect(prices(feeTiersOf(old))).toEqual([5000, 6000, 7000]);
    expect(prices(feeTiersOf(fresh))).toEqual([50_000, 60_000, 70_000]);
  });

  test('the shared answer cannot be changed by one caller for the next', async () => {
    const r = feeTiersOf(await fixture());
    expect(() => {
      (r.tiers.low as { microLamportsPerComputeUnit: number }).microLamportsPerComputeUnit = 1;
    }).toThrow();
    expect(prices(r)[0]).toBe(84168);
  });

  test('bad samples still fail every time, and nothing is remembered for them', () => {
    const bad = [{ slot: -1, prioritizationFee: 5 }] as FeeSample[];
    expect(() => feeTiersOf(bad)).toThrow(PrioritizationFeesUnavailableError);
    expect(() => feeTiersOf(bad)).toThrow(PrioritizationFeesUnavailableError);
  });
});
