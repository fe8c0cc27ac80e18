// The MCP Server Card (the experimental server-card extension, SEP-2127) at the Streamable HTTP
// endpoint's `/server-card`, and the catalogs that point at it (`/.well-known/mcp/catalog.json`,
// and the AI Catalog at `/.well-known/ai-catalog.json` that the extension's newer drafts name).
// A card says who the server is and how to reach it, not what its tools are (tools/list does).
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { VERSION } from '../version.ts';
import { SERVER_CARD_SUFFIX } from './paths.ts';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';

const DESCRIPTION = 'Processed Solana data for agents: balances, tokens, history, fees, decoded transactions.';

export interface CardSettings {
  serviceName: string;
  iconUrl?: string;
}

export interface CardPaths {
  streamableHttp: string;
  sse: string;
  docs: string;
}

/** The host of `base`, reversed (gateway.example.com -> com.example.gateway): the card's namespace. */
function namespaceOf(base: string): string {
  const host = new URL(base).hostname.replace(/^\[|\]$/g, '').replace(/[^a-zA-Z0-9.-]/g, '-');
  return host.split('.').reverse().join('.');
}

/** The card's reverse-DNS name: the host's namespace and the server's own name. */
export const cardName = (base: string) => `${namespaceOf(base)}/chain-intelligence-gateway`;

const KEY_HEADER = { name: 'x-api-key', description: 'API key bought with a SOL deposit (paid tools; free tools and x402 or sign-in-with-x payments need none).', isRequired: false, isSecret: true };

export function serverCard(settings: CardSettings, base: string, paths: CardPaths): Record<string, unknown> {
  const remote = (type: 'streamable-http' | 'sse', path: string) => ({ type, url: `${base}${path}`, supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS], headers: [KEY_HEADER] });
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(base),
    title: settings.serviceName.slice(0, 100),
    description: DESCRIPTION,
    version: VERSION,
    websiteUrl: `${base}${paths.docs}`,
    ...(settings.iconUrl ? { icons: [{ src: settings.iconUrl, mimeType: 'image/svg+xml', sizes: ['any'] }] } : {}),
    remotes: [remote('streamable-http', paths.streamableHttp), remote('sse', paths.sse)],
  };
}

/** The catalog entry of this gateway's one server; `specVersion` as each catalog format names its own. */
export function catalog(settings: CardSettings, base: string, paths: CardPaths, specVersion: 'draft' | '1.0'): Record<string, unknown> {
  const publisher = new URL(base).hostname.replace(/^\[|\]$/g, '');
  return {
    specVersion,
    entries: [{ identifier: `urn:air:${publisher}:mcp:chain-intelligence-gateway`, displayName: settings.serviceName, type: SERVER_CARD_TYPE, url: `${base}${paths.streamableHttp}${SERVER_CARD_SUFFIX}` }],
  };
}
