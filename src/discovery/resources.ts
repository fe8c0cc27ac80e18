// GET /discovery/resources in the shape of a facilitator's discovery listing (x402's bazaar: what
// `withBazaar(facilitatorClient).bazaar.listResources()` reads): every paid REST route and every
// paid MCP tool, each with its x402 requirements (when x402 is on), its bazaar extension and the
// service's name, tags and icon, plus the price in lamports for an API key or a signed-in wallet.
// Catalogues harvest resources from a facilitator's /verify and /settle; a gateway that settles
// its own payments is never seen there, so it lists itself here. Pure: the settings in, the page out.
import type { PaymentRequirements } from '@x402/core/types';
import { lamportsFor, x402UnitsFor, type PriceSettings } from '../billing/prices.ts';
import { requirementsV2, type Terms } from '../billing/x402/terms.ts';
import { x402Resource, type ServiceSettings } from '../calls/x402-resource.ts';
import type { Capability } from '../capabilities/capability.ts';
import type { Network } from '../config.ts';

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;

/** One listed resource (@x402/extensions' DiscoveryResource), with the prices of the other ways to pay. */
export interface ListedResource {
  resource: string;
  type: 'http' | 'mcp';
  x402Version: 2;
  accepts: PaymentRequirements[];
  lastUpdated: string;
  description: string;
  mimeType: 'application/json';
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
  extensions: Record<string, unknown>;
  /** The capability, and what one call costs in lamports with an API key or a signed-in wallet. */
  capability: string;
  priceLamports: number;
}

export interface ListingSettings extends PriceSettings, ServiceSettings {
  publicUrl?: string;
  port: number;
  paymentNetwork: Network;
}

/** What x402 asks per call, when it is on: everything of the terms but the price. */
export type X402Terms = Omit<Terms, 'price'>;

/** Every paid resource under `base`: the REST route (its canonical prefix) and the MCP tool at the Streamable HTTP endpoint. */
export function listedResources(capabilities: readonly Capability[], settings: ListingSettings, base: string, x402: X402Terms | undefined, lastUpdated: string, mcpPath: string): ListedResource[] {
  const origin = { origin: base };
  return capabilities
    .filter((cap) => cap.paid)
    .flatMap((cap) => {
      const units = x402UnitsFor(settings, cap.name);
      const accepts = x402 && units !== undefined ? [requirementsV2({ ...x402, price: units })] : [];
      const entry = (type: 'http' | 'mcp', r: ReturnType<typeof x402Resource>): ListedResource => ({
        resource: r.url,
        type,
        x402Version: 2,
        accepts,
        lastUpdated,
        description: r.description,
        mimeType: 'application/json',
        ...r.service,
        extensions: r.extensions ?? {},
        capability: cap.name,
        priceLamports: lamportsFor(settings, cap.name),
      });
      return [
        entry('http', x402Resource(cap, origin, { ...settings, publicUrl: base })),
        entry('mcp', x402Resource(cap, { ...origin, mcp: { path: mcpPath, transport: 'streamable-http' } }, { ...settings, publicUrl: base })),
      ];
    });
}

export interface ListingQuery {
  type?: string;
  payTo?: string;
  scheme?: string;
  network?: string;
  extensions?: string;
  limit?: string;
  offset?: string;
  cursor?: string;
}

/** A page of the listing, or why the query is refused (a 400's error and hint). */
export function listingPage(all: readonly ListedResource[], q: ListingQuery): { page: Record<string, unknown> } | { refused: { error: string; hint: string } } {
  // Whole numbers as digits only: Number() would also take "1e2", "0x10" and " 5".
  const whole = (text: string) => (/^\d{1,9}$/.test(text) ? Number(text) : NaN);
  const limit = q.limit === undefined ? DEFAULT_LIMIT : whole(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return { refused: { error: 'Invalid limit', hint: `limit is a whole number from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` } };
  let offset = 0;
  if (q.cursor !== undefined) {
    const decoded = /^[A-Za-z0-9_-]{1,16}$/.test(q.cursor) ? whole(Buffer.from(q.cursor, 'base64url').toString()) : NaN;
    if (!Number.isInteger(decoded) || decoded < 0) return { refused: { error: 'Invalid cursor', hint: 'Send back the pagination.cursor of the previous page as it came, or leave it out for the first page.' } };
    offset = decoded;
  } else if (q.offset !== undefined) {
    offset = whole(q.offset);
    if (!Number.isInteger(offset) || offset < 0) return { refused: { error: 'Invalid offset', hint: 'offset is a whole number of items to skip (0 or more); or page with cursor.' } };
  }
  if (q.type !== undefined && q.type !== 'http' && q.type !== 'mcp') return { refused: { error: 'Invalid type', hint: 'type is http (REST routes) or mcp (MCP tools).' } };
  const matching = all.filter(
    (r) =>
      (q.type === undefined || r.type === q.type) &&
      (q.extensions === undefined || q.extensions in r.extensions) &&
      (q.payTo === undefined || r.accepts.some((a) => a.payTo === q.payTo)) &&
      (q.scheme === undefined || r.accepts.some((a) => a.scheme === q.scheme)) &&
      (q.network === undefined || r.accepts.some((a) => a.network === q.network)),
  );
  const items = matching.slice(offset, offset + limit);
  const next = offset + items.length < matching.length ? Buffer.from(String(offset + items.length)).toString('base64url') : null;
  return { page: { x402Version: 2, items, pagination: { limit, offset, total: matching.length, cursor: next } } };
}
