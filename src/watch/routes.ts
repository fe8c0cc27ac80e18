// REST face of watches: /api/watches and below. Each request is admitted by the caller's rate-limit
// bucket (the same as a paid call's), and needs a key: without one, the 402 says what a watch costs
// and that x402 cannot pay for it (a push has no request to carry a payment).
import { Elysia } from 'elysia';
import { httpCaller } from '../calls/caller.ts';
import { watchOwner } from './owner.ts';
import { errorOutcome } from '../calls/outcome.ts';
import { badRequest } from '../errors.ts';
import type { HttpDeps } from '../http/deps.ts';
import { jsonResponse as json } from '../json.ts';
import type { KeyOwner } from '../billing/keys.ts';
import { MAX_PULL, MAX_WAIT_SECONDS, type Watches } from './watches.ts';

/** A whole number in min..max from a query parameter, its default when absent, else a 400 naming it. */
function wholeParam(raw: string | undefined, name: string, fallback: number, min: number, max: number, example: string): number {
  if (raw === undefined || raw === '') return fallback;
  if (/^\d{1,16}$/.test(raw)) {
    const n = Number(raw);
    if (n >= min && n <= max) return n;
  }
  throw badRequest(`Invalid ${name}`, `${name} must be a whole number from ${min} to ${max}. Example: ${example}`);
}

const PULL_EXAMPLE = '/api/watches/{id}/events?after=<nextCursor>&limit=50&wait=20';

export function watchRoutes(s: HttpDeps & { watches: Watches }) {
  const w = s.watches;
  const handle = async (request: Request, server: unknown, where: string, fn: (owner: KeyOwner) => Promise<unknown>, status = 200): Promise<Response> => {
    const caller = httpCaller(request, server, 'rest', s.config.trustedProxies);
    let headers: Record<string, string> = {};
    try {
      const admitted = await watchOwner(caller, s, w.price);
      headers = admitted.headers;
      const body = await fn(admitted.owner);
      return body === undefined ? new Response(null, { status: 204, headers }) : json(status, body, headers);
    } catch (e) {
      const out = errorOutcome(e, s.log, where);
      return json(out.status, out.body, { ...headers, ...out.headers });
    }
  };

  return new Elysia({ name: 'watches' })
    .post('/api/watches', ({ request, server, body }) => handle(request, server, 'watch_create', async (owner) => w.create(owner.wallet, await w.parseInput(body)), 201))
    .get('/api/watches', ({ request, server }) => handle(request, server, 'watch_list', async (owner) => ({ watches: await w.list(owner.wallet) })))
    .get('/api/watches/:id', ({ request, server, params }) => handle(request, server, 'watch_get', (owner) => w.get(owner.wallet, params.id)))
    .delete('/api/watches/:id', ({ request, server, params }) =>
      handle(request, server, 'watch_delete', async (owner) => {
        await w.remove(owner.wallet, params.id);
        return undefined;
      }),
    )
    .get('/api/watches/:id/events', ({ request, server, params, query }) =>
      handle(request, server, 'watch_events', (owner) => {
        const after = wholeParam(query.after, 'after', 0, 0, Number.MAX_SAFE_INTEGER, PULL_EXAMPLE);
        const limit = wholeParam(query.limit, 'limit', 50, 1, MAX_PULL, PULL_EXAMPLE);
        const wait = wholeParam(query.wait, 'wait', 0, 0, MAX_WAIT_SECONDS, PULL_EXAMPLE);
        return w.events(owner.wallet, params.id, after, limit, wait, request.signal);
      }),
    )
    .post('/api/watches/:id/replay', ({ request, server, params, body }) =>
      handle(request, server, 'watch_replay', (owner) => {
        const raw = (body as { after?: unknown } | undefined)?.after ?? new URL(request.url).searchParams.get('after') ?? undefined;
        const after = wholeParam(raw === undefined ? undefined : String(raw), 'after', 0, 0, Number.MAX_SAFE_INTEGER, 'POST /api/watches/{id}/replay {"after":"0"} re-sends every kept event');
        return w.replay(owner.wallet, params.id, after);
      }),
    );
}
