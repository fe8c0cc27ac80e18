// The second way to pay for a paid call, in one sentence for every place that tells agents the
// price: MCP tool descriptions and guides, the manifest, llms.txt and the OpenAPI document.
// The settings arrive as plain fields (Config's, of the same names): an empty string when x402 is off.
// The MCP face states prices through this module, beside the pipeline that charges them.
import { x402UnitsFor, type PriceSettings } from '../billing/prices.ts';

export { afterFreeCalls, lamportsApart, lamportsFor, type PriceSettings } from '../billing/prices.ts';

export interface X402Pricing extends Pick<PriceSettings, 'x402Price' | 'x402Prices'> {
  x402Asset: string;
  paymentNetwork: string;
}

/** One capability's x402 price when `capability` is named; else the flat one and those priced apart. */
export function x402Note(p: X402Pricing, capability?: string): string {
  if (p.x402Price === undefined) return '';
  const apart = Object.entries(p.x402Prices).filter(([, units]) => units !== p.x402Price);
  const price =
    capability !== undefined
      ? `${x402UnitsFor(p, capability)} atomic units`
      : `${p.x402Price} atomic units${apart.length ? ` (${apart.map(([name, units]) => `${name}: ${units}`).join(', ')})` : ''}`;
  return (
    `Or pay per call without an account (x402, scheme exact): ${price} of the SPL token ${p.x402Asset} on Solana ${p.paymentNetwork}, ` +
    'signed by the client and settled only when the call succeeds; over REST in the PAYMENT-SIGNATURE (or X-PAYMENT) header, over MCP in params._meta["x402/payment"].'
  );
}

/** One capability's x402 price in a few words, for a tool listing; empty when x402 is off. */
export function x402Brief(p: X402Pricing, capability: string): string {
  return p.x402Price === undefined ? '' : `${x402UnitsFor(p, capability)} atomic units by x402`;
}
