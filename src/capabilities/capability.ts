// A capability is written once: its input fields, its price class and its function. REST routes,
// MCP tools, the manifest and the OpenAPI document are all generated from the registry of these.
import { Type as t, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Rpc } from '../chain/upstream.ts';
import { NETWORKS, type Config, type Network } from '../config.ts';
import type { Logger } from '../log.ts';
import { badRequest } from '../errors.ts';
import type { MaybePromise } from '../maybe.ts';
import { InvalidField, type Input, type Param, type ParamMap } from './params.ts';

export interface CapabilityContext {
  rpc(network: Network): Rpc;
  config: Config;
  log: Logger;
}

export interface Capability<P extends ParamMap = ParamMap, O extends TObject = TObject> {
  /** Path segment under /api/chain/. */
  readonly name: string;
  /** MCP tool name. */
  readonly tool: string;
  readonly method: 'GET' | 'POST';
  readonly title: string;
  /**
   * A few sentences for a model choosing a tool (the MCP tool listing and the manifest, which an
   * agent host keeps in context on every turn): what it is for, when to use it, its key arguments.
   */
  readonly summary: string;
  /** The whole story, for a person or an agent reading the API docs (OpenAPI, llms.txt, the tool's MCP guide). */
  readonly description: string;
  readonly paid: boolean;
  readonly params: P;
  /** JSON Schema of what `run` returns (the success body without `network` and `live_status`). */
  readonly output: O;
  /** A rule across fields (throws InvalidField), checked with the fields, before any charge. */
  refine?(input: Input<P>): void;
  /** The answer, at once when nothing needs waiting for (a cached upstream answer): see maybe.ts. */
  run(ctx: CapabilityContext, input: Input<P>): MaybePromise<Frozen<Static<O>>>;
}

/** A schema's value type with every object and array read-only, so pure cores may return readonly data. */
type Frozen<T> = T extends readonly (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

export function defineCapability<P extends ParamMap, O extends TObject>(cap: Capability<P, O>): Capability<P, O> {
  return cap;
}

const NETWORK_OUT = t.Union(
  NETWORKS.map((n) => t.Literal(n)),
  { description: 'The cluster that was read' },
);

/**
 * The JSON Schema of a capability's whole success body: its output plus the `network` and
 * `live_status` the call pipeline adds. OpenAPI documents it and MCP uses it as outputSchema.
 */
export function successSchema(cap: Capability): TObject {
  const props: TProperties = { ...cap.output.properties };
  if ('network' in cap.params) props.network = NETWORK_OUT;
  props.live_status = t.Literal('SUCCESS');
  return t.Object(props, { title: `${cap.title} result`, ...(cap.output.description ? { description: cap.output.description } : {}) });
}

/** The JSON Schema of a capability's input, for OpenAPI and MCP. */
export function inputSchema(cap: Capability): TObject {
  const props: Record<string, TSchema> = {};
  for (const [k, p] of Object.entries(cap.params)) props[k] = p.schema;
  return t.Object(props, { additionalProperties: false });
}

/** A TypeBox schema as the plain JSON Schema it stands for: its symbol keys dropped, for documents and wire formats. */
export function plainSchema<T = Record<string, unknown>>(schema: unknown): T {
  return JSON.parse(JSON.stringify(schema)) as T;
}

export function restPath(cap: Capability, prefix = '/api/chain'): string {
  return `${prefix}/${cap.name}`;
}

/** How a hint shows a call of `cap` that would work, `field` (the one at fault) included: the caller's face chooses. */
export type ExampleOf = (cap: Capability, field?: string) => string;

/** The example values of a call: every required field's, and the field at fault's. */
function exampleValues(cap: Capability, field?: string): [string, string][] {
  return Object.entries(cap.params)
    .filter(([k, p]) => (p.required || k === field) && p.example !== undefined)
    .map(([k, p]) => [k, p.example!]);
}

/** As a REST request: `/api/chain/balance?wallet=...&network=mainnet-beta`, or a POST and its body. */
export const exampleUrl: ExampleOf = (cap, field) => {
  if (cap.method === 'POST') return `POST ${restPath(cap)} with JSON body {${Object.keys(cap.params).map((k) => `"${k}": ...`).join(', ')}}`;
  const q = exampleValues(cap, field).filter(([k]) => k !== 'network').map(([k, v]) => `${k}=${v}`);
  if ('network' in cap.params) q.push('network=mainnet-beta');
  return `${restPath(cap)}${q.length ? `?${q.join('&')}` : ''}`;
};

/** As MCP tool arguments: `{"wallet": "..."}`, a whole number as a number. */
export const exampleArguments: ExampleOf = (cap, field) => {
  const args = exampleValues(cap, field).map(([k, v]) => `"${k}": ${/^\d+$/.test(v) && cap.params[k]!.schema.type === 'integer' ? v : JSON.stringify(v)}`);
  return `arguments {${args.join(', ')}}`;
};

// Each capability's parameters as a list, made once: this runs on every call.
const paramEntries = new WeakMap<ParamMap, [string, Param<unknown>][]>();

/**
 * Turns raw fields (query string, JSON body or MCP arguments) into the capability's typed input,
 * or throws 400 naming what is missing or malformed. Runs before any charge.
 */
export function parseInput<P extends ParamMap>(cap: Capability<P>, raw: Record<string, unknown>, example: ExampleOf = exampleUrl): Input<P> {
  let entries = paramEntries.get(cap.params);
  if (!entries) paramEntries.set(cap.params, (entries = Object.entries(cap.params)));
  const absent = (k: string) => raw[k] === undefined || raw[k] === null || raw[k] === '';
  if (entries.some(([k, p]) => p.required && absent(k))) {
    const missing = entries.filter(([k, p]) => p.required && absent(k)).map(([k]) => k);
    const list = missing.length === 1 ? `${missing[0]} is` : `${missing.join(' and ')} are`;
    throw badRequest('Missing parameters', `${list} required. Example: ${example(cap as Capability)}`, { missing });
  }
  const out: Record<string, unknown> = {};
  try {
    for (const [k, p] of entries) out[k] = p.parse(raw[k], k);
    cap.refine?.(out as Input<P>);
  } catch (e) {
    if (!(e instanceof InvalidField)) throw e;
    throw badRequest(`Invalid ${e.field}`, `${e.reason}. Example: ${example(cap as Capability, e.field)}`, { field: e.field });
  }
  return out as Input<P>;
}
