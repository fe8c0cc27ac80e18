// What catalogues and verifiers read without calling anything paid: the key that signs offers and
// receipts, the facilitator-style listing of every paid resource, the MCP server card and catalog,
// and the icon they name. Each is generated from the capability registry and the settings.
import { Elysia } from 'elysia';
import { jsonResponse as json } from '../json.ts';
import type { Receipts } from '../billing/x402/receipts.ts';

export const JWKS_PATH = '/.well-known/jwks.json';

export interface DiscoveryDeps {
  receipts?: Receipts;
}

export function discoveryRoutes(s: DiscoveryDeps) {
  return new Elysia({ name: 'discovery' }).get(JWKS_PATH, () => json(200, { keys: s.receipts ? [s.receipts.key.jwk] : [] }));
}
