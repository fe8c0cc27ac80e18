// Error bodies as SPEC.md's Errors part: JSON with `error`, plus `hint` and `live_status: "FAILED"`
// where the spec shows them. Thrown anywhere, answered by the adapters (REST and MCP alike).

export type ErrorBody = { error: string; hint?: string; live_status?: 'FAILED' } & Record<string, unknown>;

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error);
  }
}

export const badRequest = (error: string, hint: string, extra: Record<string, unknown> = {}) =>
  new GatewayError(400, { error, hint, live_status: 'FAILED', ...extra });

export const notFound = (error: string, extra: Record<string, unknown> = {}) => new GatewayError(404, { error, ...extra });

export const serverError = (error: string) => new GatewayError(500, { error, live_status: 'FAILED' });

/**
 * The gateway's database could not answer (unreachable, full, read-only, locked): SPEC.md's 500 for
 * a failed database operation, with a code and Retry-After so a client can tell "try again" from a bug.
 * What the call was charged is settled before this is answered (docs/operations.md).
 */
export class StorageUnavailable extends GatewayError {
  constructor(readonly reason: string) {
    super(
      500,
      {
        error: `Storage unavailable: the gateway's database is not answering (${reason}). Nothing was charged for this call; retry in 2 s.`,
        code: 'storage_unavailable',
        live_status: 'FAILED',
      },
      { 'retry-after': '2' },
    );
  }
}
