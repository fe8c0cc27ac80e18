// What an x402 offer names as the thing paid for: one capability, at an absolute URL (PUBLIC_URL,
// else the origin the request names), over REST its route and over MCP the endpoint of the
// transport the call came by; with the `bazaar` discovery extension built from the capability's
// own input schema and recorded example, so a facilitator can catalogue it.
import type { Resource } from '../billing/x402/payments.ts';
import { discoveryExtensions, type Discovery } from '../billing/x402/discovery.ts';
import { inputSchema, plainSchema, restPath, type Capability } from '../capabilities/capability.ts';
import { EXAMPLES } from '../capabilities/recorded-examples.ts';
import { compactSchema } from '../capabilities/compact-schema.ts';
import type { Caller } from './caller.ts';

/** The recorded request's fields as the input schema types them (a query string's "2" is the integer 2). */
function typedExample(cap: Capability): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(EXAMPLES[cap.name]?.request ?? {})) {
    const type = (cap.params[k]?.schema as { type?: string } | undefined)?.type;
    out[k] = (type === 'integer' || type === 'number') && typeof v === 'string' ? Number(v) : v;
  }
  return out;
}

/**
 * A recorded answer with every list cut to its first item: still an answer of the success schema,
 * and small enough that the offer's PAYMENT-REQUIRED header stays under the 8 KB many proxies and
 * HTTP clients allow (decode-tx's full example alone is 9 KB, its schema 13 KB, so neither the
 * whole example nor the output schema travels).
 */
function shortened(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 1).map(shortened);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortened(v)]));
  return value;
}

function discoveryOf(cap: Capability, mcp: Caller['mcp']): Discovery {
  const output = { example: shortened(EXAMPLES[cap.name]?.response ?? {}) as Record<string, unknown> };
  // over MCP, the tool as its listing shows it: the same summary and input schema as tools/list
  if (mcp) return { kind: 'mcp', toolName: cap.tool, description: cap.summary, transport: mcp.transport, inputSchema: compactSchema(inputSchema(cap), true), example: typedExample(cap), output };
  return { kind: 'http', method: cap.method, input: typedExample(cap), inputSchema: plainSchema(inputSchema(cap)), output };
}

// One extension per capability and way in: it depends on nothing else.
const extensions = new Map<string, Record<string, unknown>>();

/** `config`: PUBLIC_URL and PORT, as the capabilities' context holds them. */
export function x402Resource(cap: Capability, caller: Caller, config: { publicUrl?: string; port: number }): Resource {
  const key = `${cap.name} ${caller.mcp?.transport ?? 'rest'}`;
  let ext = extensions.get(key);
  if (!ext) extensions.set(key, (ext = discoveryExtensions(discoveryOf(cap, caller.mcp))));
  // Every caller of the faces comes from an HTTP request and knows its origin; one that does not (made in code) is local.
  const base = config.publicUrl ?? caller.origin ?? `http://localhost:${config.port}`;
  return { url: `${base}${caller.mcp ? caller.mcp.path : restPath(cap)}`, description: cap.title, extensions: ext };
}
