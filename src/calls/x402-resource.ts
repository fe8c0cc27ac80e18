// What an x402 offer names as the thing paid for: one capability, at an absolute URL (PUBLIC_URL,
// else the origin the request names), over REST its route and over MCP the endpoint of the
// transport the call came by; with the `bazaar` discovery extension built from the capability's
// own input schema and recorded example, so a facilitator can catalogue it.
import type { Resource } from '../billing/x402/payments.ts';
import type { ServiceMetadata } from '../billing/x402/terms.ts';
import { isValidIconUrl, isValidServiceName, sanitizeTags } from '@x402/extensions/bazaar';
import { discoveryExtensions, type Discovery } from '../billing/x402/discovery.ts';
import { inputSchema, plainSchema, restPath, type Capability } from '../capabilities/capability.ts';
import { EXAMPLES } from '../capabilities/recorded-examples.ts';
import { compactSchema } from '../capabilities/compact-schema.ts';
import type { Caller } from './caller.ts';

/** The icon catalogues show for this gateway, served by the gateway itself. */
export const ICON_PATH = '/icon.svg';

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

/** The settings that name the service to catalogues, as the capabilities' context holds them. */
export interface ServiceSettings {
  serviceName: string;
  serviceTags: readonly string[];
  serviceIconUrl?: string;
}

// The metadata of one origin: only what the bazaar's own sanitizer keeps (a name of at most 32
// printable characters, 5 tags, an icon on a public host), so that a catalogue lists what is sent.
let lastService: { base: string; config: ServiceSettings; service: ServiceMetadata } | undefined;

/** serviceName, tags and iconUrl for resources under `base` (the icon defaults to the gateway's own /icon.svg). */
export function serviceMetadata(config: ServiceSettings, base: string): ServiceMetadata {
  if (lastService?.base === base && lastService.config === config) return lastService.service;
  const iconUrl = config.serviceIconUrl ?? `${base}${ICON_PATH}`;
  const tags = sanitizeTags([...config.serviceTags]);
  const service: ServiceMetadata = {
    ...(isValidServiceName(config.serviceName) ? { serviceName: config.serviceName } : {}),
    ...(tags ? { tags } : {}),
    ...(isValidIconUrl(iconUrl) ? { iconUrl } : {}),
  };
  lastService = { base, config, service };
  return service;
}

/** The base URL of the gateway for a caller: PUBLIC_URL, else the origin its request named. */
export const baseUrlOf = (config: { publicUrl?: string; port: number }, origin: string | undefined) => config.publicUrl ?? origin ?? `http://localhost:${config.port}`;

/** `config`: PUBLIC_URL, PORT and the service settings, as the capabilities' context holds them. */
export function x402Resource(cap: Capability, caller: Pick<Caller, 'mcp' | 'origin'>, config: { publicUrl?: string; port: number } & ServiceSettings): Resource {
  const key = `${cap.name} ${caller.mcp?.transport ?? 'rest'}`;
  let ext = extensions.get(key);
  if (!ext) extensions.set(key, (ext = discoveryExtensions(discoveryOf(cap, caller.mcp))));
  // Every caller of the faces comes from an HTTP request and knows its origin; one that does not (made in code) is local.
  const base = baseUrlOf(config, caller.origin);
  return { url: `${base}${caller.mcp ? caller.mcp.path : restPath(cap)}`, description: cap.title, extensions: ext, service: serviceMetadata(config, base) };
}
