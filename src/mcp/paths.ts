// Where the MCP transports listen (SPEC.md fixes the legacy pair).
export const MCP_SSE_PATH = '/mcp/sse';
export const MCP_MESSAGES_PATH = '/mcp/messages';
export const MCP_HTTP_PATH = '/mcp';
