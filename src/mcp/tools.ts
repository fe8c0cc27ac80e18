// MCP face of the registry: one tool per capability, named cap.tool, with the capability's own JSON
// Schema as its input schema (served as is, no second schema). Every call goes through the call pipeline,
// like REST, so validation (400), the paid guard (402), refunds and rate limits (429) are the REST
// ones, and a tool's result text is exactly the JSON body the REST call would have answered.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { inputSchema, type Capability } from '../capabilities/capability.ts';
import type { Caller } from '../calls/caller.ts';
import { call, type CallDeps } from '../calls/pipeline.ts';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { VERSION } from '../version.ts';
import { toJson } from '../json.ts';
import { formatSol as sol } from '../chain/format.ts';

export const SERVER_NAME = 'chain-intelligence-gateway';

/** Response headers worth showing an agent: its remaining credit and rate-limit state. */
const META_HEADERS = /^(x-credits-remaining|x-free-calls-remaining|retry-after|ratelimit-.*)$/i;

/** What a tool description says about the price, so a model can weigh the call. */
export function priceNote(cap: Capability, priceLamports: number): string {
  return cap.paid
    ? `Paid: ${priceLamports} lamports (${sol(priceLamports)} SOL) per call, after the free-call allowance; needs an API key sent as the x-api-key (or Authorization: Bearer) header on the MCP connection or request. Rejected arguments cost nothing; without a usable key the result is an error carrying payment instructions.`
    : 'Free: no API key needed.';
}

/** The MCP tool listing, generated from the registry. JSON Schema, no TypeBox symbols. */
export function toolList(priceLamports: number, capabilities: readonly Capability[] = CAPABILITIES): Tool[] {
  return capabilities.map((cap) => ({
    name: cap.tool,
    title: cap.title,
    description: `${cap.description} ${priceNote(cap, priceLamports)}`,
    inputSchema: JSON.parse(JSON.stringify(inputSchema(cap))) as Tool['inputSchema'],
    annotations: { title: cap.title, readOnlyHint: true, openWorldHint: true },
  }));
}

/** The caller of one MCP message travels to the tool handler as the SDK's AuthInfo. */
export function authInfoFor(caller: Caller): AuthInfo {
  return { token: caller.apiKey ?? '', clientId: caller.address, scopes: [], extra: { caller } };
}

function callerOf(authInfo: AuthInfo | undefined): Caller {
  const caller = authInfo?.extra?.caller as Caller | undefined;
  return caller ?? { address: 'unknown', face: 'mcp' };
}

/**
 * structuredContent goes through the SDK's JSON.stringify, which throws on bigint: write big
 * integers as raw JSON numbers (exact, like toJson does for the text).
 */
function jsonSafe(value: unknown): Record<string, unknown> {
  const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'bigint') return rawJson(v.toString());
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(value) as Record<string, unknown>;
}

export interface ToolServerFactory {
  /** A new Server for one session (an SDK Server serves exactly one transport). */
  (): Server;
  readonly tools: Tool[];
}

export function toolServerFactory(deps: CallDeps, capabilities: readonly Capability[] = CAPABILITIES): ToolServerFactory {
  const tools = toolList(deps.ctx.config.priceLamports, capabilities);
  const byTool = new Map(capabilities.map((c) => [c.tool, c]));
  const instructions =
    'Processed Solana data (mainnet-beta by default, or devnet via the network argument). Free tools need no key; paid tools need an API key ' +
    'bought with a SOL deposit (see the payment instructions a paid tool returns without one). Every result is JSON text, the same body as the REST API.';

  const factory = () => {
    const server = new Server({ name: SERVER_NAME, version: VERSION }, { capabilities: { tools: { listChanged: false } }, instructions });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const cap = byTool.get(request.params.name);
      if (!cap) {
        throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found; tools: ${[...byTool.keys()].join(', ')}`);
      }
      const outcome = await call(cap, { ...(request.params.arguments ?? {}) }, callerOf(extra.authInfo), deps);
      const headers = Object.fromEntries(Object.entries(outcome.headers).filter(([k]) => META_HEADERS.test(k)));
      return {
        content: [{ type: 'text', text: toJson(outcome.body) }],
        structuredContent: jsonSafe(outcome.body),
        isError: outcome.status >= 400,
        _meta: { httpStatus: outcome.status, ...(Object.keys(headers).length ? { httpHeaders: headers } : {}) },
      };
    });
    return server;
  };
  return Object.assign(factory, { tools });
}
