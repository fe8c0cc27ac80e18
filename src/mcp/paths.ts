// Where the MCP transports listen (SPEC.md fixes the legacy pair).
export const MCP_SSE_PATH = '/mcp/sse';
export const MCP_MESSAGES_PATH = '/mcp/messages';
export const MCP_HTTP_PATH = '/mcp';
/** The paths that take JSON-RPC bodies: a body that is not JSON is answered there in JSON-RPC's words. */
export const MCP_JSON_RPC_PATHS: ReadonlySet<string> = new Set([MCP_HTTP_PATH, MCP_MESSAGES_PATH]);
