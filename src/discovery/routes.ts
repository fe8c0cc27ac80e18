// What catalogues and verifiers read without calling anything paid: the key that signs offers and
// receipts, the facilitator-style listing of every paid resource, the MCP server card and the
// catalogs that point at it, and the icon they all name. Each is generated from the capability
// registry and the settings, under PUBLIC_URL (else the origin the request names, as offers are).
import { Elysia } from 'elysia';
import type { Receipts } from '../billing/x402/receipts.ts';
import type { X402 } from '../billing/x402/payments.ts';
import { MAX_TIMEOUT_SECONDS } from '../billing/x402/terms.ts';
import { requestOrigin } from '../calls/caller.ts';
import { baseUrlOf, ICON_PATH, serviceMetadata } from '../calls/x402-resource.ts';
import { CAPABILITIES } from '../capabilities/registry.ts';
import type { Config } from '../config.ts';
import { jsonResponse as json } from '../json.ts';
import { AI_CATALOG_PATH, JWKS_PATH, MCP_CATALOG_PATH, RESOURCES_PATH, SERVER_CARD_SUFFIX } from './paths.ts';
import { listedResources, listingPage, type ListingQuery, type X402Terms } from './resources.ts';
import { catalog, SERVER_CARD_TYPE, serverCard, type CardPaths } from './server-card.ts';


export interface DiscoveryDeps {
  config: Config;
  x402?: X402;
  receipts?: Receipts;
  startedAt: number;
}

// Public, read-only metadata: any origin may read it (the server-card extension asks for CORS), and it changes only with a restart.
const PUBLIC = { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300' };

// A mark of the gateway, drawn here rather than shipped as a file: the binary carries no assets folder.
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#14112b"/><path d="M14 20h30l6 6H20zM14 32h30l6 6H20zM14 44h30l6 6H20z" fill="#9b5cff"/><circle cx="48" cy="16" r="5" fill="#19fb9b"/></svg>`;

export function discoveryRoutes(s: DiscoveryDeps, paths: CardPaths) {
  const lastUpdated = new Date(s.startedAt).toISOString();
  const baseOf = (request: Request, server: unknown) => baseUrlOf(s.config, requestOrigin(request, server, s.config.trustedProxies));
  const cardSettings = (base: string) => ({ serviceName: s.config.serviceName, iconUrl: serviceMetadata(s.config, base).iconUrl });
  const x402Terms = async (): Promise<X402Terms | undefined> =>
    s.x402
      ? { asset: s.config.x402Asset, payTo: (s.config.x402PayTo ?? s.config.gatewayAddress)!, feePayer: await s.x402.facilitator.feePayer(), network: s.config.paymentNetwork, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS }
      : undefined;
  return new Elysia({ name: 'discovery' })
    .get(JWKS_PATH, () => json(200, { keys: s.receipts ? [s.receipts.key.jwk] : [] }, PUBLIC))
    .get(ICON_PATH, () => new Response(ICON, { headers: { 'content-type': 'image/svg+xml', ...PUBLIC } }))
    .get(RESOURCES_PATH, async ({ request, server, query }) => {
      let terms: X402Terms | undefined;
      try {
        terms = await x402Terms();
      } catch {
        // An external facilitator away: the resources are still listed, with no x402 requirements for now.
        terms = undefined;
      }
      const all = listedResources(CAPABILITIES, s.config, baseOf(request, server), terms, lastUpdated, paths.streamableHttp);
      const answer = listingPage(all, query as ListingQuery);
      if ('refused' in answer) return json(400, { ...answer.refused, live_status: 'FAILED' });
      return json(200, answer.page, PUBLIC);
    })
    .get(`${paths.streamableHttp}${SERVER_CARD_SUFFIX}`, ({ request, server }) => {
      const base = baseOf(request, server);
      return json(200, serverCard(cardSettings(base), base, paths), { ...PUBLIC, 'content-type': SERVER_CARD_TYPE });
    })
    .get(MCP_CATALOG_PATH, ({ request, server }) => {
      const base = baseOf(request, server);
      return json(200, catalog(cardSettings(base), base, paths, 'draft'), PUBLIC);
    })
    .get(AI_CATALOG_PATH, ({ request, server }) => {
      const base = baseOf(request, server);
      return json(200, catalog(cardSettings(base), base, paths, '1.0'), { ...PUBLIC, 'content-type': 'application/ai-catalog+json' });
    });
}
