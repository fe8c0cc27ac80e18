// A route a face answers straight from Bun's own router, past Elysia's per-request machinery
// (its router, context object and response mapping: about 3 µs of a 25 µs cached call on the
// wire). Only for the hot calls; each one is also an Elysia route with the same handler, so
// in-process requests (app.handle), other methods and the trailing-slash form are answered alike.
import type { MaybePromise } from './maybe.ts';

export interface DirectRoute {
  readonly method: 'GET' | 'POST';
  /** A static path, matched exactly. */
  readonly path: string;
  /** The answer, at once when nothing needs waiting for (maybe.ts). */
  handle(request: Request, server: unknown): MaybePromise<Response>;
}
