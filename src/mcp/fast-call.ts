// The common MCP message answered without the SDK's machinery: one well-formed tools/call POSTed
// on an open Streamable HTTP session. Through the SDK's transport and Server such a call costs
// several times the REST call it wraps (a ReadableStream and an SSE event per request, zod
// validating the message in, the request again, and the result); here it costs the REST call
// plus one JSON envelope, which the spec allows as the answer to a POSTed request.
//
// It runs after every check routes.ts makes on a session request (Origin/Host, session lookup,
// owner, batch cap, rate limit) and only for the plain case: jsonrpc 2.0, a string or integer
// id, params {name, arguments?} of a known tool, an initialized session, a supported
// mcp-protocol-version, an Accept of both types and a JSON content type. Anything else (a batch,
// a notification, `_meta`, an unknown tool, another header) returns undefined and goes to the
// SDK as before, so every transport-level error stays the SDK's own. The tool runs through the
// ToolRunner the SDK's handler uses, and an error it throws is answered as the SDK answers it.
import { isJsonContentType, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/server';
import type { Caller } from '../calls/caller.ts';
import type { HttpSession } from './sessions.ts';
import type { ToolRunner } from './tools.ts';

interface PlainToolCall {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params: { name: string; arguments?: Record<string, unknown> };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isPlainToolCall(body: unknown): body is PlainToolCall {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return false;
  for (const k in body) if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params') return false;
  const id = body.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== 'string') return false;
  for (const k in params) if (k !== 'name' && k !== 'arguments') return false;
  return params.arguments === undefined || (isObject(params.arguments) && Object.getPrototypeOf(params.arguments) === Object.prototype);
}

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
export function fastToolCall(session: HttpSession, request: Request, body: unknown, caller: Caller, runner: ToolRunner): Promise<Response> | undefined {
  if (!isPlainToolCall(body) || !runner.has(body.params.name)) return undefined;
  const headers = request.headers;
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version === null || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  // Initialized (the transport sets its id only once initialize went through), and this very session.
  if (session.transport.sessionId !== session.id) return undefined;
  const { id, params } = body;
  const answer = (message: { result: CallToolResult } | { error: ReturnType<typeof rpcErrorOf> }) =>
    new Response(JSON.stringify('result' in message ? { result: message.result, jsonrpc: '2.0', id } : { jsonrpc: '2.0', id, error: message.error }), {
      status: 200,
      headers: headersOf(session),
    });
  return runner.run(params.name, params.arguments ?? {}, caller).then(
    (result) => answer({ result }),
    (e: unknown) => answer({ error: rpcErrorOf(e) }),
  );
}
