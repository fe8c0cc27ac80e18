// The common MCP messages answered without the SDK's machinery: one well-formed tools/call POSTed
// on an open Streamable HTTP session (2025-era), or sent stateless on the 2026-07-28 revision; the
// plain initialize that opens a session (either transport), with the answer a Server gave for its
// revision; and the notifications/initialized that follows it. So a session opened the way every
// client opens one never makes an SDK Server, nor the garbage of one.
// Through the SDK such a call costs several times the REST call it wraps (per session request a
// ReadableStream and an SSE event, per stateless request a new Server, and zod validating the
// message in, the request again, and the result); here it costs the REST call plus one JSON
// envelope, the answer the spec allows for a POSTed request and the SDK itself gives in JSON mode.
//
// It runs after every check routes.ts makes (Origin/Host, session lookup and owner, batch cap,
// rate limit) and only for the plain case: jsonrpc 2.0, a string or integer id, params
// {name, arguments?} of a known tool, an Accept of both types and a JSON content type; on a
// session, an initialized one and a supported mcp-protocol-version; stateless, exactly the
// envelope and headers the 2026-07-28 revision requires and no session id. Other headers cannot
// change the SDK's answer: of the `mcp-` ones it reads only those, and `Mcp-Param-*` for tools
// that declare `x-mcp-header`, which none of ours does (tests hold both). Anything else (a batch,
// a notification, other `_meta`, an unknown tool) returns undefined and goes to the SDK as
// before, so every transport-level error stays the SDK's own. The tool runs through the
// ToolRunner the SDK's handler uses, and an error it throws is answered as the SDK answers it.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Caller } from '../calls/caller.ts';
import { attempt, type MaybePromise } from '../maybe.ts';
import type { HttpSession } from './sessions.ts';
import { resultJsonOf, SERVER_INFO, type ToolRunner } from './tools.ts';

interface PlainToolCall {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPlainObject = (v: unknown): v is Record<string, unknown> => isObject(v) && Object.getPrototypeOf(v) === Object.prototype;
const only = (o: Record<string, unknown>, keys: readonly string[]) => {
  for (const k in o) if (!keys.includes(k)) return false;
  return true;
};

const CALL_KEYS = ['jsonrpc', 'id', 'method', 'params'];

/** A JSON-RPC id this path answers: a string or a safe integer. */
const isRequestId = (id: unknown): id is string | number => typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
const SESSION_PARAMS = ['name', 'arguments'];
const STATELESS_PARAMS = ['name', 'arguments', '_meta'];

/** A single tools/call request whose params hold `paramKeys` at most. */
function isPlainToolCall(body: unknown, paramKeys: readonly string[]): body is PlainToolCall {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call' || !only(body, CALL_KEYS)) return false;
  if (!isRequestId(body.id)) return false;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== 'string' || !only(params, paramKeys)) return false;
  // An own `__proto__` key (JSON.parse makes one) the SDK's schema would turn into a prototype: its answer, not ours.
  return params.arguments === undefined || (isPlainObject(params.arguments) && !Object.hasOwn(params.arguments, '__proto__'));
}

const acceptsBoth = (headers: Headers) => {
  const accept = headers.get('accept');
  return accept !== null && accept.includes('application/json') && accept.includes('text/event-stream');
};

/** The JSON-RPC error the SDK's Protocol sends for what a request handler throws. */
function rpcErrorOf(e: unknown) {
  const { code, message, data } = (e ?? {}) as { code?: unknown; message?: string; data?: unknown };
  return { code: Number.isSafeInteger(code) ? (code as number) : -32603, message: message ?? 'Internal error', ...(data !== undefined && { data }) };
}

// A session's answer headers, built once: a Headers object is copied into a Response at half the cost of a plain object.
const answerHeaders = new WeakMap<HttpSession, Headers>();
function headersOf(session: HttpSession): Headers {
  let headers = answerHeaders.get(session);
  if (!headers) answerHeaders.set(session, (headers = new Headers({ 'content-type': 'application/json', 'mcp-session-id': session.id })));
  return headers;
}

/** The direct answer to a plain tools/call on `session`, or undefined for the SDK to answer. */
export function fastToolCall(session: HttpSession, request: Request, body: unknown, caller: Caller, runner: ToolRunner): MaybePromise<Response> | undefined {
  if (!isPlainToolCall(body, SESSION_PARAMS) || !runner.has(body.params.name)) return undefined;
  const headers = request.headers;
  if (!acceptsBoth(headers) || !isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version === null || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  // Initialized: a session remembers its initialize only once the transport accepted it.
  if (session.hello === undefined) return undefined;
  const { id, params } = body;
  const answer = (json: string) => new Response(json, { status: 200, headers: headersOf(session) });
  return attempt(
    () => runner.run(params.name, params.arguments ?? {}, caller),
    (a) => answer(`{"result":${resultJsonOf(a)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`),
    (e) => answer(JSON.stringify({ jsonrpc: '2.0', id, error: rpcErrorOf(e) })),
  );
}

export interface PlainInitialize {
  jsonrpc: '2.0';
  id: string | number;
  method: 'initialize';
  params: { protocolVersion: string; capabilities: Record<string, never>; clientInfo: { name: string; version: string } };
}

const INIT_PARAMS = ['protocolVersion', 'capabilities', 'clientInfo'];
const SSE_ANSWER = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

/**
 * A single initialize of a revision the SDK serves by that name, asking for nothing unusual (no
 * client capabilities, a bare client name and version), with the headers the transport requires.
 */
export function isPlainInitialize(request: Request, body: unknown): body is PlainInitialize {
  if (!isPlainInitializeMessage(body)) return false;
  const headers = request.headers;
  return acceptsBoth(headers) && isJsonContentType(headers.get('content-type')) && !headers.has('mcp-session-id');
}

/** isPlainInitialize() without the headers: a legacy SSE session's messages are POSTed without any the SDK reads. */
export function isPlainInitializeMessage(body: unknown): body is PlainInitialize {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'initialize' || !only(body, CALL_KEYS)) return false;
  if (!isRequestId(body.id)) return false;
  const params = body.params;
  if (!isPlainObject(params) || !only(params, INIT_PARAMS) || typeof params.protocolVersion !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion)) return false;
  const { capabilities, clientInfo } = params;
  if (!isPlainObject(capabilities) || Object.keys(capabilities).length > 0) return false;
  return isPlainObject(clientInfo) && only(clientInfo, ['name', 'version']) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string';
}

/** Distinct plain initializes kept, and the longest one kept (in characters of its fields): a client cannot grow them. */
export const SHARED_HELLOS = 256;
const SHARED_HELLO_CHARS = 256;
const sharedHellos = new Map<string, PlainInitialize>();

/**
 * One frozen copy of each plain initialize: clients of one kind all send the same one, and every
 * session keeps its initialize for as long as it lives (session-servers.ts), four objects and
 * their strings each. An unusually long one, or one beyond SHARED_HELLOS kinds, is kept as sent.
 */
export function sharedHello(body: PlainInitialize): PlainInitialize {
  const { protocolVersion, clientInfo } = body.params;
  const key = `${JSON.stringify(body.id)} ${protocolVersion} ${JSON.stringify(clientInfo.name)} ${JSON.stringify(clientInfo.version)}`;
  const known = sharedHellos.get(key);
  if (known) return known;
  if (key.length > SHARED_HELLO_CHARS || sharedHellos.size >= SHARED_HELLOS) return body;
  const hello: PlainInitialize = Object.freeze({
    jsonrpc: '2.0',
    id: body.id,
    method: 'initialize',
    params: Object.freeze({ protocolVersion, capabilities: Object.freeze({}), clientInfo: Object.freeze({ name: clientInfo.name, version: clientInfo.version }) }),
  });
  sharedHellos.set(key, hello);
  return hello;
}

/** The JSON-RPC answer to a plain initialize, given the result for its revision. */
export const initializeAnswerJson = (body: PlainInitialize, result: string) => `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(body.id)}}`;

/**
 * A lone notifications/initialized with no params beyond an empty object: what every client
 * sends after initialize. A Server of this gateway does nothing with it (it has no oninitialized
 * and sends clients no requests), so it needs none.
 */
export function isPlainInitialized(body: unknown): boolean {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'notifications/initialized' || !only(body, ['jsonrpc', 'method', 'params'])) return false;
  return body.params === undefined || (isPlainObject(body.params) && Object.keys(body.params).length === 0);
}

/**
 * The SDK transport's answer to a notification POSTed on an initialized session with the headers
 * it requires (202, no body), or undefined for the SDK to answer.
 */
export function fastInitialized(session: HttpSession, request: Request, body: unknown): Response | undefined {
  if (!isPlainInitialized(body) || session.hello === undefined) return undefined;
  const headers = request.headers;
  if (!acceptsBoth(headers) || !isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version === null || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return new Response(null, { status: 202 });
}

/**
 * The answer to a plain initialize that opens `session`: the result a Server gave for that
 * revision (`resultOf`, the same for every client asking nothing unusual), as the SDK sends it,
 * one event on an event stream.
 */
export async function initializeAnswer(session: HttpSession, body: PlainInitialize, resultOf: (version: string) => Promise<string>): Promise<Response> {
  const event = `event: message\ndata: ${initializeAnswerJson(body, await resultOf(body.params.protocolVersion))}\n\n`;
  return new Response(event, { status: 200, headers: { ...SSE_ANSWER, 'mcp-session-id': session.id } });
}

const MODERN = '2026-07-28';
const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY];
const STATELESS_ANSWER_HEADERS = new Headers({ 'content-type': 'application/json' });

/** The envelope the 2026-07-28 revision requires, and nothing more: no capabilities, a bare client name and version. */
function isPlainEnvelope(meta: unknown): boolean {
  if (!isPlainObject(meta) || !only(meta, ENVELOPE_KEYS) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN) return false;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (!isPlainObject(capabilities) || Object.keys(capabilities).length > 0) return false;
  const info = meta[CLIENT_INFO_META_KEY];
  if (info === undefined) return true;
  return isPlainObject(info) && only(info, ['name', 'version']) && typeof info.name === 'string' && info.name !== '' && typeof info.version === 'string' && info.version !== '';
}

/**
 * A tools/call whose header and envelope both claim 2026-07-28, with the headers that revision
 * requires: one the SDK's classifier can only call modern (a test holds it to that). Other
 * headers are not looked for: iterating a request's headers cost 0.7-0.9 us on the wire (a
 * handler stubbed past that step), to find none the SDK would read.
 */
export function isPlainStatelessCall(request: Request, body: unknown): body is PlainToolCall {
  if (request.method !== 'POST' || !isPlainToolCall(body, STATELESS_PARAMS) || !isPlainEnvelope(body.params._meta)) return false;
  const headers = request.headers;
  if (!acceptsBoth(headers) || !isJsonContentType(headers.get('content-type'))) return false;
  if (headers.get('mcp-protocol-version') !== MODERN || headers.get('mcp-method') !== 'tools/call' || headers.get('mcp-name') !== body.params.name) return false;
  return !headers.has('mcp-session-id');
}

/**
 * The direct answer to a plain stateless 2026-07-28 tools/call, or undefined for the SDK's
 * handler. The result is encoded as that revision's codec encodes it: `resultType` "complete" and
 * the server's identity under `_meta`; errors are JSON-RPC errors with HTTP 200, as the SDK sends them.
 */
export function fastStatelessToolCall(request: Request, body: unknown, caller: Caller, runner: ToolRunner): MaybePromise<Response> | undefined {
  if (!isPlainStatelessCall(request, body) || !runner.has(body.params.name)) return undefined;
  const { id, params } = body;
  const answer = (json: string) => new Response(json, { status: 200, headers: STATELESS_ANSWER_HEADERS });
  return attempt(
    () => runner.run(params.name, params.arguments ?? {}, caller),
    (a) => answer(`{"result":${resultJsonOf(a, { ...a.meta, [SERVER_INFO_META_KEY]: SERVER_INFO }, 'complete')},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`),
    (e) => answer(JSON.stringify({ jsonrpc: '2.0', id, error: rpcErrorOf(e) })),
  );
}
