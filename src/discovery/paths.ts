// Where the discovery documents are served, for the pages that link them (manifest, llms.txt).
export const RESOURCES_PATH = '/discovery/resources';
export const JWKS_PATH = '/.well-known/jwks.json';
export const SERVER_CARD_SUFFIX = '/server-card';
export const MCP_CATALOG_PATH = '/.well-known/mcp/catalog.json';
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';
