// The second way to pay for a paid call, in one sentence for every place that tells agents the
// price: MCP tool descriptions and guides, the manifest, llms.txt and the OpenAPI document.
// The settings arrive as plain fields (Config's, of the same names): an empty string when x402 is off.

export interface X402Pricing {
  x402Price?: number;
  x402Asset: string;
  paymentNetwork: string;
}

export function x402Note(p: X402Pricing): string {
  if (p.x402Price === undefined) return '';
  return (
    `Or pay per call without an account (x402, scheme exact): ${p.x402Price} atomic units of the SPL token ${p.x402Asset} on Solana ${p.paymentNetwork}, ` +
    'signed by the client and settled only when the call succeeds; over REST in the PAYMENT-SIGNATURE (or X-PAYMENT) header, over MCP in params._meta["x402/payment"].'
  );
}
