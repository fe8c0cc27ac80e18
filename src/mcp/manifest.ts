// The MCP discovery manifest (GET /.well-known/mcp.json), generated from the same tool listing
// MCP clients get from tools/list.
import { CAPABILITIES } from '../capabilities/registry.ts';
import { VERSION } from '../version.ts';
import { MCP_HTTP_PATH, MCP_SSE_PATH } from './paths.ts';
import { toolList, type ToolPricing } from './tools.ts';
import { lamportsApart, x402Note } from '../calls/ways-to-pay.ts';
import { AI_CATALOG_PATH, JWKS_PATH, MCP_CATALOG_PATH, RESOURCES_PATH, SERVER_CARD_SUFFIX } from '../discovery/paths.ts';

export function manifest(pricing: ToolPricing) {
  const x402 = x402Note(pricing);
  const apart = Object.entries(lamportsApart(pricing));
  const except = apart.length ? ` (${apart.map(([name, price]) => `${CAPABILITIES.find((c) => c.name === name)!.tool}: ${price}`).join(', ')})` : '';
  return {
    name: 'chain-intelligence-gateway',
    version: VERSION,
    description:
      'Processed Solana data for AI agents: balances, blockhash, token holdings, transaction history, ATA derivation, token security profiles, priority-fee tiers, transaction decoding and simulation, on mainnet-beta and devnet.',
    capabilities: {
      tools: {
        description: `${CAPABILITIES.length} tools mirroring the REST API. Free tools need no key; paid tools cost ${pricing.priceLamports} lamports per call${except} after a free allowance and need an API key (x-api-key or Authorization: Bearer header).${x402 ? ` ${x402}` : ''}`,
      },
    },
    mcp_sse_endpoint: MCP_SSE_PATH,
    mcp_streamable_http_endpoint: MCP_HTTP_PATH,
    // Where catalogues and verifiers read the rest: every paid resource, the server card and its
    // catalog, and the public key that signs x402 offers and receipts.
    discovery: {
      resources: RESOURCES_PATH,
      server_card: `${MCP_HTTP_PATH}${SERVER_CARD_SUFFIX}`,
      mcp_catalog: MCP_CATALOG_PATH,
      ai_catalog: AI_CATALOG_PATH,
      x402_receipt_keys: JWKS_PATH,
    },
    // The same listing MCP clients get from tools/list, plus whether each tool is paid.
    tools: toolList(pricing, CAPABILITIES).map((t, i) => ({ name: t.name, description: t.description, paid: CAPABILITIES[i]!.paid, inputSchema: t.inputSchema })),
  };
}
