// MCP face of the registry: one tool per capability, named cap.tool, with the capability's own JSON
// Schema as its input schema and its success body's schema (the one OpenAPI documents) as the
// output schema, served as is, no second schema. Every call goes through the call pipeline, like REST, so the
// paid guard (402), refunds and rate limits (429) are the REST ones, and a tool's result text is
// exactly the JSON body the REST call would have answered (a 402 with an x402 offer carries it as
// x402's MCP transport says: see x402Refusal).
//
// Errors as the MCP spec puts them: an unknown tool or invalid arguments (extra ones included) is
// a JSON-RPC -32602 with one clear message and the 400 body as data; what the call itself
// answers (402, 429, upstream failures) is a tool result with isError, its HTTP status and
// headers under this gateway's own `_meta` key, payment details under another.
import { ProtocolError, ProtocolErrorCode, Server, type AuthInfo, type CallToolResult, type ReadResourceResult, type Tool } from '@modelcontextprotocol/server';
import { inputSchema, successSchema, type Capability } from '../capabilities/capability.ts';
import { withPayment, type Caller } from '../calls/caller.ts';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { admitCaller, call, type CallDeps } from '../calls/pipeline.ts';
import { afterFreeCalls, lamportsFor, x402Brief, type PriceSettings, type X402Pricing } from '../calls/ways-to-pay.ts';
import type { Config } from '../config.ts';
import type { Outcome } from '../calls/outcome.ts';
import { CAPABILITIES } from '../capabilities/registry.ts';
import { VERSION } from '../version.ts';
import { plainJson as bigintFreeJson, toJson } from '../json.ts';
import { andThen, type MaybePromise } from '../maybe.ts';
import { guides } from './guides.ts';
import { compactSchema } from '../capabilities/compact-schema.ts';

export const SERVER_NAME = 'chain-intelligence-gateway';
/** The implementation this server names on initialize, and on every 2026-07-28 result. */
export const SERVER_INFO = { name: SERVER_NAME, version: VERSION } as const;

/** Reverse-DNS prefix of this gateway's `_meta` keys (the spec reserves unprefixed names). */
export const META_PREFIX = 'io.github.chain-intelligence-gateway';
/** `_meta` key of a tool result's HTTP view: `{ status, headers }` as REST would have answered. */
export const META_HTTP = `${META_PREFIX}/http`;
/** `_meta` key of a 402 result's machine-readable payment details. */
export const META_PAYMENT = `${META_PREFIX}/payment`;

/** x402's MCP transport: the payment a call carries, and the settlement its result carries. */
export const META_X402_PAYMENT = 'x402/payment';
/**
 * `_meta` key of sign-in-with-x: on a 402 result, the challenge (the extension as the REST offer
 * carries it); on a call, the proof (the proof object, or its SIGN-IN-WITH-X header's base64 text).
 */
export const META_SIGN_IN = 'x402/sign-in-with-x';
const SIGN_IN = 'sign-in-with-x';
export const META_X402_RESPONSE = 'x402/payment-response';
/** Why a payment was refused (the offer's `error`), beside the offer in the text. */
export const META_X402_ERROR = 'x402/error';

/** Response headers worth showing an agent: its remaining credit and rate-limit state. */
const META_HEADERS = /^(x-credits-remaining|x-free-calls-remaining|retry-after|ratelimit-.*)$/i;

/** The price in a tool's listing, in a sentence: the pricing guide says the rest (how to pay, what a refusal carries). */
export function priceBrief(cap: Capability, priceLamports: number, freeCalls: number, x402 = ''): string {
  return cap.paid ? `Paid: ${priceLamports} lamports a call${afterFreeCalls(freeCalls)} (API key)${x402 ? ` or ${x402} (params._meta["${META_X402_PAYMENT}"])` : ''}.` : 'Free.';
}

/** What describes a tool's price: the settings of both ways to pay. */
export type ToolPricing = PriceSettings & X402Pricing & Pick<Config, 'freeCalls'>;

/**
 * The MCP tool listing, generated from the registry, each tool with its own price. An agent host
 * keeps it in the model's context on every turn: each tool says in a few sentences what it is for
 * (cap.summary), and its schemas are compact (compact-schema.ts); the long texts are in its guide.
 */
export function toolList(pricing: ToolPricing, capabilities: readonly Capability[] = CAPABILITIES): Tool[] {
  return capabilities.map((cap) => {
    return {
      name: cap.tool,
      title: cap.title,
      description: `${cap.summary} ${priceBrief(cap, lamportsFor(pricing, cap.name), pricing.freeCalls, x402Brief(pricing, cap.name))}`,
      inputSchema: compactSchema(inputSchema(cap), true) as Tool['inputSchema'],
      outputSchema: compactSchema(successSchema(cap)) as NonNullable<Tool['outputSchema']>,
      // openWorldHint is true by default: every tool reads the chain
      annotations: { readOnlyHint: true },
    };
  });
}

/** Told of each charged call's refund, for a transport that may fail to deliver its answer. */
export type OnCharged = (requestId: string | number, refund: () => Promise<void>) => void;

/** The caller of one MCP message (and the transport's OnCharged) travel to the tool handler as the SDK's AuthInfo. */
export function authInfoFor(caller: Caller, onCharged?: OnCharged): AuthInfo {
  // A plain copy: the SDK may hold what it is given longer than the request, and a lazy caller holds the Request.
  // Save the origin, read only by an x402 offer: working it out parses the URL (and behind a trusted
  // proxy asks the socket), so it is read on first use, once, and the caller let go of then. Until
  // then it holds the caller, as the SDK's own extra holds the Request beside this.
  let source: Caller | undefined = caller;
  let origin: string | undefined;
  const plain: Caller = {
    apiKey: caller.apiKey,
    address: caller.address,
    face: caller.face,
    get origin() {
      if (source) [origin, source] = [source.origin, undefined];
      return origin;
    },
    mcp: caller.mcp,
  };
  return { token: plain.apiKey ?? '', clientId: plain.address, scopes: [], extra: { caller: plain, onCharged } };
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

/**
 * A tool's answer from a pipeline outcome, before it is written out: as the SDK's result object
 * (resultOf) or as JSON text (resultJsonOf). A 400 (bad arguments) is the caller's -32602 instead.
 */
export interface ToolAnswer {
  /** The tool that answered. */
  readonly tool: string;
  readonly body: unknown;
  /** The body as exact JSON: the text content, and the JSON of the structured content. */
  readonly text: string;
  /** Whether the body holds no bigint, so that it is valid structured content as it is. */
  readonly plain: boolean;
  readonly isError: boolean;
  readonly meta: Record<string, unknown>;
}

export function answerOf(cap: Pick<Capability, 'tool'>, outcome: Outcome): ToolAnswer {
  if (outcome.status === 400) {
    const { error, hint } = outcome.body as { error?: string; hint?: string };
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for tool ${cap.tool}: ${error}${hint ? `. ${hint}` : ''}`, outcome.body);
  }
  const headers: Record<string, string> = {};
  for (const k in outcome.headers) if (META_HEADERS.test(k)) headers[k] = outcome.headers[k]!;
  const meta: Record<string, unknown> = { [META_HTTP]: { status: outcome.status, headers } };
  let body = outcome.body;
  if (outcome.status === 402) {
    const { priceLamports, payTo, reason } = body as { priceLamports?: number; payTo?: string | null; reason?: string };
    meta[META_PAYMENT] = { priceLamports, payTo, reason, challenge: '/api/keys/challenge?wallet=<your wallet>', claim: 'POST /api/keys/claim', keyHeader: 'x-api-key' };
    const offer = outcome.headers['payment-required'];
    if (offer) {
      const required = decodePaymentRequiredHeader(offer);
      // A sign-in challenge rides in `_meta`; an x402 offer (something to pay) also makes the text a PaymentRequired.
      if (required.extensions?.[SIGN_IN]) meta[META_SIGN_IN] = required.extensions[SIGN_IN];
      if (required.accepts.length > 0) {
        body = x402Refusal(body, required);
        meta[META_X402_ERROR] = required.error;
      }
    }
  }
  const settled = outcome.headers['payment-response'];
  if (settled) meta[META_X402_RESPONSE] = decodePaymentResponseHeader(settled);
  const plain = bigintFreeJson(body);
  return { tool: cap.tool, body, text: plain ?? toJson(body), plain: plain !== undefined, isError: outcome.status >= 400, meta };
}

/**
 * A 402 with an x402 offer as x402's MCP transport puts it: one JSON object that is at once the
 * REST 402 body (`error`, `code`, `priceLamports`, `payTo`, `instructions`: the account way) and
 * version 2's PaymentRequired (`x402Version: 2`, `resource`, `accepts`, `extensions`), which
 * x402 MCP clients read from the text. REST's version 1 fields give way to version 2's; the
 * offer's own `error` (why a payment was refused) stays as `x402Error`.
 */
function x402Refusal(body: Record<string, unknown>, required: PaymentRequired): Record<string, unknown> {
  const { x402Version: _v, accepts: _a, ...account } = body;
  return { ...account, x402Version: 2, resource: required.resource, accepts: required.accepts, ...(required.extensions ? { extensions: required.extensions } : {}), x402Error: required.error };
}

/**
 * The SDK's CallToolResult. Without a bigint inside, the body itself is the structured content: no
 * second walk. An error result carries none: the official clients validate structuredContent
 * against the tool's output schema whenever it is present, isError or not, and an error body
 * (402, 429, 500) is not a success body, so its JSON travels in the text and `_meta` only.
 */
export function resultOf(a: ToolAnswer): CallToolResult {
  if (a.isError) return { content: [{ type: 'text', text: a.text }], isError: true, _meta: a.meta };
  return {
    content: [{ type: 'text', text: a.text }],
    structuredContent: a.plain ? (a.body as Record<string, unknown>) : jsonSafe(a.body),
    isError: false,
    _meta: a.meta,
  };
}

/**
 * The same result as JSON text (what the SDK writes for resultOf), with `_meta` given and, for
 * the 2026-07-28 revision, its resultType. The structured content is written as the text it
 * equals: in the running gateway JSON.stringify of the whole message took 6.8 µs a call against
 * 1.3 µs written this way, a fifth of everything the direct path adds to the REST call.
 */
export function resultJsonOf(a: ToolAnswer, meta: Record<string, unknown> = a.meta, resultType?: 'complete'): string {
  const tail = resultType ? `,"resultType":"${resultType}"` : '';
  const structured = a.isError ? '' : `"structuredContent":${a.text},`;
  return `{"content":[{"type":"text","text":${quoted(a)}}],${structured}"isError":${a.isError},"_meta":${toJson(meta)}${tail}}`;
}

// A tool answering from a cache gives the same text call after call (the fee tiers for two
// seconds): its last text is kept quoted, per tool. Comparing texts costs next to nothing; quoting
// 1 KB of JSON costs 0.8 µs, a tenth of what the direct path adds to the REST call.
const lastQuoted = new Map<string, { text: string; quoted: string }>();
function quoted(a: ToolAnswer): string {
  const last = lastQuoted.get(a.tool);
  if (last?.text === a.text) return last.quoted;
  const q = JSON.stringify(a.text);
  lastQuoted.set(a.tool, { text: a.text, quoted: q });
  return q;
}

/**
 * Runs one tools/call through the call pipeline: the SDK's handler and the direct path
 * (fast-call.ts) share it, so both answer and charge alike. A refusal (unknown tool, unknown or
 * invalid arguments) is thrown as the ProtocolError the SDK turns into a JSON-RPC error.
 */
export interface ToolRunner {
  has(tool: string): boolean;
  /** The answer, at once when the call's outcome is (maybe.ts); a refusal is thrown at once. */
  run(tool: string, args: Record<string, unknown>, caller: Caller, onCharged?: (refund: () => Promise<void>) => void): MaybePromise<ToolAnswer>;
}

/**
 * Tools that are not capabilities (watches: they act on the caller's own account, src/watch/mcp.ts),
 * given by their owner and answered through the same results and refusals.
 */
export interface ExtraTools {
  readonly tools: Tool[];
  /** The outcome of tool `name` for `caller`, or undefined when `name` is not one of these. */
  run(name: string, args: Record<string, unknown>, caller: Caller): Promise<Outcome> | undefined;
  /** The resources these tools make (e.g. a watch's events), read for `caller`; undefined when `uri` is not one of them. */
  read(uri: string, caller: Caller): Promise<ReadResourceResult> | undefined;
  /** Resolves when `caller` may be told of changes to `uri`; rejects with a ProtocolError when not. */
  mayFollow(uri: string, caller: Caller): Promise<void>;
  /** Calls `cb` with the uri of each of these resources that changes; returns an unsubscribe. */
  changes(cb: (uri: string) => void): () => void;
}

/** Where `resources/subscribe` keeps a session's subscriptions (mcp/resource-followers.ts). */
export interface Followers {
  follow(sessionId: string | undefined, uri: string): void;
  unfollow(sessionId: string | undefined, uri: string): void;
}

export function toolRunner(deps: CallDeps, capabilities: readonly Capability[] = CAPABILITIES, others?: ExtraTools): ToolRunner {
  const byTool = new Map(capabilities.map((c) => [c.tool, c]));
  const extraNames = new Set(others?.tools.map((t) => t.name));
  const names = [...byTool.keys(), ...extraNames].join(', ');

  /** A refusal before the pipeline still draws the caller's rate-limit token, as the call would have. */
  const refuse = (caller: Caller, message: string): never => {
    // The token is drawn as the call would have; the refusal does not wait for it.
    Promise.resolve(admitCaller(caller, deps)).catch(() => {});
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  };

  return {
    has: (tool) => byTool.has(tool) || extraNames.has(tool),
    run(name, args, caller, onCharged) {
      const other = others?.run(name, args, caller);
      if (other) return other.then((outcome) => answerOf({ tool: name }, outcome));
      const cap = byTool.get(name);
      if (!cap) return refuse(caller, `Unknown tool ${name}. Tools: ${names}`);
      let extra: string[] | undefined;
      for (const k in args) if (!Object.hasOwn(cap.params, k)) (extra ??= []).push(k);
      if (extra) {
        return refuse(caller, `Invalid arguments for tool ${name}: unknown ${extra.length === 1 ? 'argument' : 'arguments'} ${extra.join(', ')}. It takes: ${Object.keys(cap.params).join(', ')}`);
      }
      return andThen(call(cap, { ...args }, caller, deps), (outcome) => {
        if (outcome.refund) onCharged?.(outcome.refund);
        return answerOf(cap, outcome);
      });
    },
  };
}

export interface ToolServerFactory {
  /** A new Server for one session or one stateless request (an SDK Server serves one transport). */
  (): Server;
  readonly tools: Tool[];
  readonly runner: ToolRunner;
}

const INSTRUCTIONS =
  'Processed Solana data (mainnet-beta by default, or devnet via the network argument). Free tools need no key; paid tools need an API key ' +
  'bought with a SOL deposit, or (where the gateway offers x402) a payment per call in params._meta["x402/payment"] (see the payment instructions a paid tool returns without either; resource gateway://pricing). Every result is JSON text, the same body as the REST API; ' +
  'each tool\'s fields and arguments are described in full in resource gateway://tools/<tool>.';

export function toolServerFactory(deps: CallDeps, capabilities: readonly Capability[] = CAPABILITIES, extra?: ExtraTools, followers?: Followers): ToolServerFactory {
  const tools = [...toolList(deps.ctx.config, capabilities), ...(extra?.tools ?? [])];
  const listing = { tools };
  const runner = toolRunner(deps, capabilities, extra);
  const guide = guides(deps, capabilities);
  const resourceList = { resources: guide.resources };
  const promptList = { prompts: guide.prompts };

  // The handlers are made once and shared by every Server: a function made per Server lives as
  // long as its session (bench/mcp-sessions.ts holds 10,000 of them).
  const serverCapabilities = { tools: { listChanged: false }, resources: { listChanged: false, subscribe: followers !== undefined }, prompts: { listChanged: false } };
  const listTools = () => listing;
  const listResources = () => resourceList;
  type Ctx = { http?: { authInfo?: AuthInfo }; sessionId?: string };
  const readResource = (request: { params: { uri: string } }, ctx: Ctx) => extra?.read(request.params.uri, callerOf(ctx.http?.authInfo)) ?? guide.read(request.params.uri);
  const subscribe = async (request: { params: { uri: string } }, ctx: Ctx) => {
    await extra!.mayFollow(request.params.uri, callerOf(ctx.http?.authInfo));
    followers!.follow(ctx.sessionId, request.params.uri);
    return {};
  };
  const unsubscribe = (request: { params: { uri: string } }, ctx: Ctx) => {
    followers!.unfollow(ctx.sessionId, request.params.uri);
    return {};
  };
  const listPrompts = () => promptList;
  const getPrompt = (request: { params: { name: string; arguments?: Record<string, string> } }) => guide.get(request.params.name, request.params.arguments);
  const callTool = async (
    request: { params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } },
    ctx: { http?: { authInfo?: AuthInfo }; mcpReq: { id: string | number } },
  ): Promise<CallToolResult> => {
    const authInfo = ctx.http?.authInfo;
    const onCharged = authInfo?.extra?.onCharged as OnCharged | undefined;
    const payment = request.params._meta?.[META_X402_PAYMENT];
    const signIn = request.params._meta?.[META_SIGN_IN];
    const caller =
      payment === undefined && signIn === undefined
        ? callerOf(authInfo)
        : withPayment(callerOf(authInfo), payment === undefined ? undefined : { payload: payment }, signIn === undefined ? undefined : { payload: signIn });
    return resultOf(await runner.run(request.params.name, request.params.arguments ?? {}, caller, onCharged && ((refund) => onCharged(ctx.mcpReq.id, refund))));
  };
  const factory = () => {
    const server = new Server({ ...SERVER_INFO }, { capabilities: serverCapabilities, instructions: INSTRUCTIONS });
    server.setRequestHandler('tools/list', listTools);
    server.setRequestHandler('resources/list', listResources);
    server.setRequestHandler('resources/read', readResource);
    server.setRequestHandler('prompts/list', listPrompts);
    server.setRequestHandler('prompts/get', getPrompt);
    server.setRequestHandler('tools/call', callTool);
    if (followers && extra) {
      server.setRequestHandler('resources/subscribe', subscribe);
      server.setRequestHandler('resources/unsubscribe', unsubscribe);
    }
    return server;
  };
  return Object.assign(factory, { tools, runner });
}
