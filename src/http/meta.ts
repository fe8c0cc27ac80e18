// Health and the MCP discovery manifest, both generated from what the process actually holds.
import { Elysia } from 'elysia';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { toolList } from '../mcp/tools.ts';
import type { Services } from '../services.ts';
import { VERSION } from '../version.ts';
import { json } from './respond.ts';

export function manifest(priceLamports: number) {
  return {
    name: 'chain-intelligence-gateway',
    version: VERSION,
    description:
      'Processed Solana data for AI agents: balances, blockhash, token holdings, transaction history, ATA derivation, token security profiles, priority-fee tiers, transaction decoding and simulation, on mainnet-beta and devnet.',
    capabilities: {
      tools: {
        description: `${CAPABILITIES.length} tools mirroring the REST API. Free tools need no key; paid tools cost ${priceLamports} lamports per call after a free allowance and need an API key (x-api-key or Authorization: Bearer header).`,
      },
    },
    mcp_sse_endpoint: '/mcp/sse',
    mcp_streamable_http_endpoint: '/mcp',
    // The same listing MCP clients get from tools/list, plus whether each tool is paid.
    tools: toolList(priceLamports).map((t, i) => ({ name: t.name, description: t.description, paid: CAPABILITIES[i]!.paid, inputSchema: t.inputSchema })),
  };
}

export function metaRoutes(s: Services) {
  return new Elysia({ name: 'meta' })
    .get('/.well-known/mcp.json', () => json(200, manifest(s.config.priceLamports)), { detail: { summary: 'MCP discovery manifest', tags: ['MCP'] } })
    .get(
      '/healthz',
      () => {
        s.db.$client.query('SELECT 1').get();
        return json(200, {
          status: 'ok',
          version: VERSION,
          uptimeSeconds: Math.round((Date.now() - s.startedAt) / 1000),
          depositsConfigured: Boolean(s.config.gatewayAddress),
          paymentNetwork: s.config.paymentNetwork,
        });
      },
      { detail: { summary: 'Liveness and database check', tags: ['Meta'] } },
    );
}
