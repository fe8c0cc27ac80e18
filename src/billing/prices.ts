// What one call of a capability costs: PRICE_LAMPORTS (with a key) and X402_PRICE (x402) for every
// paid capability, unless PRICES or X402_PRICES prices it apart. Pure: the settings and a name in,
// a price out; the call pipeline charges it and every description of the gateway states it.
import type { Config } from '../config.ts';

export type PriceSettings = Pick<Config, 'priceLamports' | 'prices' | 'x402Price' | 'x402Prices'>;

/** Lamports a key-paid call of `capability` costs. */
export const lamportsFor = (c: Pick<PriceSettings, 'priceLamports' | 'prices'>, capability: string): number => c.prices[capability] ?? c.priceLamports;

/** Atomic units of the x402 asset an x402-paid call of `capability` costs; undefined when x402 is off. */
export const x402UnitsFor = (c: Pick<PriceSettings, 'x402Price' | 'x402Prices'>, capability: string): number | undefined => (c.x402Price === undefined ? undefined : (c.x402Prices[capability] ?? c.x402Price));

/** The capabilities whose price differs from the flat one, with theirs, in lamports (empty: one price for all). */
export function lamportsApart(c: Pick<PriceSettings, 'priceLamports' | 'prices'>): Record<string, number> {
  return Object.fromEntries(Object.entries(c.prices).filter(([, price]) => price !== c.priceLamports));
}

/** " after N free calls" for a price sentence; nothing when the gateway grants none. */
export const afterFreeCalls = (n: number): string => (n === 0 ? '' : ` after ${n} free ${n === 1 ? 'call' : 'calls'}`);
