// The `bazaar` discovery extension of an x402 offer: how a facilitator's catalogue should describe
// calling the thing paid for (an HTTP route with its query or JSON body, or an MCP tool with its
// input schema) and what it answers, as @x402/extensions builds and validates it. Plain data in:
// the call pipeline says what the capability takes and answers.
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';

/** What is declared: `input` and `example` are arguments as the input schema types them, `output.example` an answer. */
export type Discovery =
  | { kind: 'http'; method: 'GET' | 'POST'; input: Record<string, unknown>; inputSchema: Record<string, unknown>; output: { example: Record<string, unknown> } }
  | { kind: 'mcp'; toolName: string; description: string; transport: 'sse' | 'streamable-http'; inputSchema: Record<string, unknown>; example: Record<string, unknown>; output: { example: Record<string, unknown> } };

/** The offer's `extensions`: `{ bazaar: { info, schema } }`. */
export function discoveryExtensions(d: Discovery): Record<string, unknown> {
  if (d.kind === 'mcp') {
    const { kind: _, ...mcp } = d;
    return declareDiscoveryExtension(mcp);
  }
  const declared = declareDiscoveryExtension(
    d.method === 'POST' ? { bodyType: 'json', input: d.input, inputSchema: d.inputSchema, output: d.output } : { input: d.input, inputSchema: d.inputSchema, output: d.output },
  );
  // The method joins the declaration as the library's own server extension adds it for a request.
  const context = { method: d.method, adapter: { getPath: () => '' } };
  return { bazaar: bazaarResourceServerExtension.enrichDeclaration!(declared.bazaar, context) };
}
