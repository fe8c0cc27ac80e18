// What the MCP routes answer when they will not serve a request: in JSON-RPC's words where a
// JSON-RPC client reads the answer (a body that is not JSON, a batch too large, what the SDK's own
// transport would refuse), and as the gateway's error bodies (`error`, `hint`, `live_status`)
// where a session cannot be had or is not the caller's.
import { bodyRefusal, MalformedBody } from '../body.ts';
import { jsonResponse as json } from '../json.ts';
import { MCP_HTTP_PATH } from './paths.ts';
import type { AddResult, McpSessions, SessionOwner } from './sessions.ts';

export function rpcError(status: number, code: number, message: string): Response {
  return json(status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

export const rpcParseError = () => rpcError(400, -32700, 'Parse error: the body is not valid JSON. Send one JSON-RPC 2.0 message (or a batch) as application/json.');

/** What a JSON-RPC path answers a refused body: JSON-RPC's -32700 for one that is not JSON; 413 as elsewhere. */
export function rpcBodyRefusal(e: unknown): Response | undefined {
  return e instanceof MalformedBody ? rpcParseError() : bodyRefusal(e);
}

const CLOSE_SOME = `Close sessions you no longer use (disconnect the SSE stream, or DELETE ${MCP_HTTP_PATH}) or retry later.`;

export interface SessionRefusals {
  /** Why a session could not be added: the table or the owner's share full, or the gateway stopping. */
  unavailable(why: Exclude<AddResult, 'added'>, owner?: SessionOwner): Response;
  /** Why a new session for `owner` cannot be opened right now, if it cannot. */
  refusal(owner: SessionOwner): Response | undefined;
  /** A session id sent with other credentials than the session was opened with. */
  notYours(): Response;
  /** JSON-RPC's -32600 for a batch of more than MCP_MAX_BATCH messages, if the body is one. */
  batchTooLarge(body: unknown): Response | undefined;
}

export function sessionRefusals(sessions: McpSessions, maxBatch: number): SessionRefusals {
  const unavailable = (why: Exclude<AddResult, 'added'>, owner?: SessionOwner) => {
    if (why === 'owner-full') {
      const who = owner?.bucket.wallet !== undefined ? 'one API key' : 'one client address without a valid API key';
      return json(
        429,
        {
          error: 'Too many MCP sessions for this client',
          hint: `${who[0]!.toUpperCase()}${who.slice(1)} may hold at most ${owner ? sessions.capOf(owner.bucket) : sessions.maxPerAddress} open MCP sessions. ${CLOSE_SOME}`,
          live_status: 'FAILED',
        },
        { 'retry-after': '5' },
      );
    }
    return json(
      503,
      why === 'closing'
        ? { error: 'MCP is shutting down', hint: 'The gateway is stopping; reconnect in a moment.', live_status: 'FAILED' }
        : { error: 'Too many MCP sessions', hint: `This gateway holds at most ${sessions.maxSessions} open MCP sessions. ${CLOSE_SOME}`, live_status: 'FAILED' },
      { 'retry-after': '5' },
    );
  };

  return {
    unavailable,
    refusal: (owner) =>
      sessions.isClosing ? unavailable('closing') : !sessions.accepting ? unavailable('full') : !sessions.ownerHasRoom(owner.bucket) ? unavailable('owner-full', owner) : undefined,
    notYours: () =>
      json(403, {
        error: 'This MCP session was opened with other credentials',
        hint: 'Send the same API key (x-api-key or Authorization: Bearer) on every request of a session as on the request that opened it; a session opened without a key takes requests only from the address that opened it. Otherwise open a new session.',
        live_status: 'FAILED',
      }),
    batchTooLarge: (body) =>
      Array.isArray(body) && body.length > maxBatch ? rpcError(400, -32600, `Batch of ${body.length} messages refused: at most ${maxBatch} messages per batch.`) : undefined,
  };
}
