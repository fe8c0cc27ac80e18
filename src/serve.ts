// Listens for the app, with the access log and request metrics wrapped once around its fetch
// handler and around each of its direct routes (direct-route.ts), which Bun's router answers
// before the fetch handler sees anything. No Elysia lifecycle hook is involved: a global hook
// would put every route on Elysia's slow path (see bench/observe.ts for the cost of this wrapper
// against none).
import type { Server } from 'bun';
import { unhandled, type App } from './app.ts';
import { hashApiKey } from './billing/keys.ts';
import { clientAddress, requestKey } from './calls/caller.ts';
import { accessLog } from './access-log.ts';
import type { Logger } from './log.ts';
import { httpDuration, httpRequests } from './metrics.ts';
import { openContext, type RequestContext } from './request-context.ts';
import type { DirectRoute } from './direct-route.ts';
import { attempt, type MaybePromise } from './maybe.ts';
import { LATE, within } from './within.ts';

export interface Listening {
  server: Server<unknown>;
  port: number;
  /** Stops accepting, lets requests in flight finish for up to `drainMs`, then closes what is left. */
  stop(drainMs: number): Promise<'drained' | 'timed out'>;
}

type Face = 'rest' | 'mcp' | 'meta';

// Label values come from a closed set, so no client can grow the number of series.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const faceOf = (path: string): Face =>
  path.startsWith('/api/') ? 'rest' : path.startsWith('/mcp') || path.startsWith('/.well-known/mcp') ? 'mcp' : 'meta';

/** Path of a request URL without building a URL object (the hot path). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  let end = url.length;
  const q = url.indexOf('?', start);
  if (q !== -1) end = q;
  const h = url.indexOf('#', start);
  if (h !== -1 && h < end) end = h;
  const path = url.slice(start, end);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

type Series = { add(value?: number): void };

/** What the metrics know of one route template and face: its timer and its counters by status and method. */
interface RouteStats {
  route: string;
  face: Face;
  timer: Series;
  counters: Map<number, Map<string, Series>>;
}

const asIs = (response: Response) => response;

export function serve(app: App, log: Logger, at: { port: number; hostname: string; trustedProxies?: readonly string[] }): Listening {
  let templates: Set<string> | undefined;
  // Routes are all static paths, so the path itself is the template; anything else is one label.
  const templateOf = (path: string) => ((templates ??= new Set(app.routes.map((r) => r.path))).has(path) ? path : 'unmatched');
  const handle = app.fetch;
  const access = log.enabled('info') ? accessLog(log, hashApiKey) : undefined;
  // Series found by the request's path, then status and method, without building a key string per
  // request. Every map is bounded: paths only for real routes (an unmatched path is kept under its
  // face's name, which no path can be), statuses the gateway answers with, methods from a closed set.
  const byPath = new Map<string, RouteStats>();
  const statsOf = (path: string): RouteStats => {
    const known = byPath.get(path);
    if (known) return known;
    const route = templateOf(path);
    const face = faceOf(path);
    const key = route === 'unmatched' ? face : path;
    let stats = byPath.get(key);
    if (!stats) byPath.set(key, (stats = { route, face, timer: httpDuration.series({ route, face }), counters: new Map() }));
    return stats;
  };
  const count = (stats: RouteStats, request: Request, status: number, seconds: number) => {
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    let byMethod = stats.counters.get(status);
    if (!byMethod) stats.counters.set(status, (byMethod = new Map()));
    let counter = byMethod.get(method);
    if (!counter) byMethod.set(method, (counter = httpRequests.series({ route: stats.route, method, status: String(status), face: stats.face })));
    counter.add();
    stats.timer.add(seconds);
    return method;
  };
  const { idleTimeout, maxRequestBodySize } = (app.config.serve ?? {}) as { idleTimeout?: number; maxRequestBodySize?: number };

  type Handle = (request: Request, server: Server<unknown>) => MaybePromise<Response>;
  /** Counts one answered request and, with the access log on, writes its line. */
  const record = (request: Request, srv: Server<unknown>, start: number, fixed: RouteStats | undefined, context: RequestContext | undefined, status: number) => {
    const seconds = (performance.now() - start) / 1000;
    const stats = fixed ?? statsOf(pathOf(request.url));
    const method = count(stats, request, status, seconds);
    if (!context || !access) return;
    access(method, stats.route, status, seconds, stats.face, requestKey(request), clientAddress(request, srv, at.trustedProxies), context.upstreamCalls);
  };
  /** record() once a pending answer (a paid call waiting for its commit, a fetch upstream) settles. */
  const recordLater = async (pending: Promise<Response>, request: Request, srv: Server<unknown>, start: number, fixed: RouteStats | undefined, context: RequestContext | undefined) => {
    let status = 500;
    try {
      const response = await pending;
      status = response.status;
      return response;
    } finally {
      record(request, srv, start, fixed, context, status);
    }
  };
  /**
   * A handler with its metrics and access line. `fixed` are a direct route's series, known before
   * any request; the fetch handler finds them by the request's path. An answer given at once is
   * returned at once: a promise around it would cost the request a microtask turn (maybe.ts).
   */
  const observed =
    (handle: Handle, fixed?: RouteStats): Handle =>
    (request, srv) => {
      const start = performance.now();
      // Without the access line nothing needs the request context, the key's hash or the peer's
      // address (a system call): only the metrics are kept.
      const context = access ? openContext(request) : undefined;
      let response: MaybePromise<Response>;
      try {
        response = handle(request, srv);
      } catch (e) {
        record(request, srv, start, fixed, context, 500);
        throw e;
      }
      if (response instanceof Promise) return recordLater(response, request, srv, start, fixed, context);
      record(request, srv, start, fixed, context, response.status);
      return response;
    };

  // Elysia answers what a handler throws; a direct route has no Elysia around it, so it is answered here alike.
  const guarded =
    (handle: DirectRoute['handle']): Handle =>
    (request, srv) =>
      attempt(() => handle(request, srv), asIs, (e) => unhandled(log, e));
  const routes: Record<string, Partial<Record<DirectRoute['method'], ReturnType<typeof observed>>>> = {};
  // A direct route's path is its Elysia twin's template: its series are the ones that path finds.
  for (const r of app.direct) (routes[r.path] ??= {})[r.method] = observed(guarded(r.handle), statsOf(r.path));

  const server = Bun.serve({
    idleTimeout,
    maxRequestBodySize,
    port: at.port,
    hostname: at.hostname,
    // reusePort would let a second gateway bind the same port silently and steal traffic.
    reusePort: false,
    development: false,
    routes,
    fetch: observed((request) => handle(request)),
  });
  // Handlers read the server from the app (client address, per-request timeouts).
  (app as { server: unknown }).server = server;

  return {
    server,
    port: server.port!,
    async stop(drainMs) {
      if ((await within(server.stop(false), drainMs)) !== LATE) return 'drained';
      await server.stop(true);
      return 'timed out';
    },
  };
}
