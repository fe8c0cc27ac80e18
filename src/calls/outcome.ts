// One outcome type for every call, whatever face asked: a status (HTTP's numbers, which MCP maps
// to tool results and JSON-RPC codes), a JSON body and the headers worth sending.
import { RpcError, UpstreamError, upstreamCode } from '../chain/upstream.ts';
import { GatewayError, type ErrorBody } from '../errors.ts';
import type { Logger } from '../log.ts';

export interface Outcome {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /**
   * Set on a charged success: gives the charge back. For a face that learns only after the call
   * that its answer never reached the caller (an MCP event stream closed before delivering it).
   * Call it at most once.
   */
  refund?: () => Promise<void>;
}

/** Maps anything thrown below the faces to a status and SPEC.md error body; never leaks internals. */
export function errorOutcome(e: unknown, log: Logger, where: string): Outcome {
  if (e instanceof GatewayError) return { status: e.status, body: e.body, headers: e.headers };
  if (e instanceof UpstreamError) {
    const code = upstreamCode(e);
    log.warn('upstream failed', { event: 'upstream_failed', capability: where, code, cause: e.kind, rpcCode: e.rpcCode ?? null, error: quoted(e.message) });
    const out = failed(e instanceof RpcError ? `Upstream RPC error ${e.code}: ${quoted(e.message)}` : `Upstream RPC request failed: ${e.message}`);
    out.body.code = code;
    // Worth retrying: the nodes were down, slow or overloaded, not wrong about this request.
    if (code === 'upstream_unavailable' || code === 'upstream_timeout') out.headers['retry-after'] = code === 'upstream_timeout' ? '2' : '5';
    return out;
  }
  log.error('capability failed', { capability: where, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  return failed('Internal server error');
}

// What a node says reaches agents (and so their context) only as a short line of plain characters.
const MAX_QUOTED = 200;

/** Upstream text cut to MAX_QUOTED characters of letters, digits, spaces and plain punctuation. */
export function quoted(text: string): string {
  const plain = text
    .slice(0, MAX_QUOTED * 4)
    .replace(/[^A-Za-z0-9 .,:;()'"_#=+%/-]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return plain.length > MAX_QUOTED ? `${plain.slice(0, MAX_QUOTED)}...` : plain || 'no message';
}

function failed(error: string): Outcome {
  const body: ErrorBody = { error, live_status: 'FAILED' };
  return { status: 500, body, headers: {} };
}
