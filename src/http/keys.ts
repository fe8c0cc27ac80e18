// Key acquisition and account routes: challenge, claim, me. All free; rate limited per client.
import { Elysia } from 'elysia';
import { claimKey } from '../billing/claims.ts';
import { admit, RateLimiter } from '../billing/rate-limit.ts';
import { address } from '../capabilities/params.ts';
import { EXAMPLE_WALLET } from '../capabilities/examples.ts';
import { errorOutcome } from '../calls/outcome.ts';
import type { HttpDeps } from './deps.ts';
import { badRequest, GatewayError } from '../errors.ts';
import { bucketKey } from '../calls/bucket.ts';
import { httpCaller, type Caller } from '../calls/caller.ts';
import { jsonResponse as json } from '../json.ts';
import { andThen, attempt, type MaybePromise } from '../maybe.ts';
import { USAGE_PAGE_MAX } from '../billing/usage-history.ts';
import { parseCursor } from '../billing/usage-pages.ts';
import { lamportsApart } from '../billing/prices.ts';
import { noPendingKey } from '../billing/no-pending-key.ts';
import type { AccountView } from '../billing/credit.ts';
import type { KeyOwner } from '../billing/keys.ts';
import type { DirectRoute } from '../direct-route.ts';

const walletParam = address('Wallet address', EXAMPLE_WALLET);
const PAGING_EXAMPLE = 'Example: /api/keys/me/usage?limit=20&before=<nextCursor>';

/** A whole-number query parameter in 1..max (default when absent), else 400. */
function pageParam(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') {
    if (fallback > 0) return fallback;
  } else if (/^\d{1,16}$/.test(raw)) {
    const n = Number(raw);
    if (n >= 1 && n <= max) return n;
  }
  throw badRequest(`Invalid ${name}`, `${name} must be a whole number from 1 to ${max}. ${PAGING_EXAMPLE}`);
}

/** Rate limit and error mapping shared by the key routes, and the key's owner or a 401. */
function guards(s: HttpDeps) {
  /** Runs `fn` inside the per-client rate limit, mapping thrown errors to SPEC.md bodies; at once when nothing needs waiting for. */
  const guarded = (request: Request, server: unknown, where: string, fn: (caller: Caller) => unknown, extra: Record<string, string> = {}): MaybePromise<Response> => {
    // The caller reads its key and asks the socket for its address only when something needs them.
    const caller = httpCaller(request, server, 'rest', s.config.trustedProxies);
    return andThen(admit(s.limiter, () => bucketKey({ address: caller.address })), ({ headers, refusal }) => {
      if (refusal) {
        s.log.info('rate limited', { event: 'rate_limited', route: where, client: caller.address, retryAfter: headers['retry-after'] });
        return json(429, refusal, headers);
      }
      return attempt(
        () => fn(caller),
        (body) => json(200, body, { ...headers, ...extra }),
        (e) => {
          const out = errorOutcome(e, s.log, where);
          return json(out.status, out.body, { ...headers, ...out.headers });
        },
      );
    });
  };

  /** The 401 for a key that identified nobody: a revoked key says when, by whom and what now. At once when the store need not be asked. */
  const refused = (caller: Caller): MaybePromise<never> =>
    andThen(s.payments.whyRefused(caller.apiKey), ({ code, reason, revokedAt }) => {
      if (revokedAt) throw new GatewayError(401, { error: 'API key revoked', code, reason, revokedAt });
      throw new GatewayError(401, { error: 'Invalid API key', hint: 'Send the key from POST /api/keys/claim in the x-api-key header.' });
    });
  /** The key's owner, or a 401; at once when the store knows without asking the database. */
  const ownerOf = (caller: Caller): MaybePromise<KeyOwner> => andThen(s.payments.identify(caller.apiKey), (owner) => owner ?? refused(caller));

  return { guarded, ownerOf };
}

/** A claim's 404 with what the wallet holds and the way to a new key (billing/no-pending-key.ts); the plain 404 when the account cannot be read now. */
async function noPendingKeyFor(e: GatewayError, wallet: string, s: HttpDeps): Promise<GatewayError> {
  try {
    return noPendingKey(e, wallet, await s.store.account(wallet), s.config);
  } catch {
    // The database stopped answering between the claim and this read: the plain 404 still holds.
    return e;
  }
}

/** What /api/keys/me answers for the key's owner and its account. */
function balanceOf(owner: KeyOwner, account: AccountView | null, price: number, apart: Record<string, number>) {
  const freeCalls = account?.freeCalls ?? 0;
  const creditLamports = account?.creditLamports ?? 0n;
  return {
    wallet: owner.wallet,
    freeCallsRemaining: freeCalls,
    creditLamports,
    priceLamports: price,
    ...(Object.keys(apart).length ? { pricesLamports: apart } : {}),
    callsMade: account?.callsMade ?? 0,
    paidCallsAvailable: BigInt(freeCalls) + (price > 0 ? creditLamports / BigInt(price) : 0n),
  };
}

/** GET /api/keys/me: the key holder's balance, free calls and what they buy. */
function meRoute(s: HttpDeps) {
  const { guarded, ownerOf } = guards(s);
  const price = s.config.priceLamports;
  const apart = lamportsApart(s.config);
  const answer = (owner: KeyOwner) =>
    andThen(s.store.account(owner.wallet), (account) => {
      const paused = s.watches.pausedOf(owner.wallet);
      return { ...balanceOf(owner, account, price, apart), ...(paused.length ? { watchesPausedNoCredit: paused } : {}) };
    });
  return (request: Request, server: unknown) => guarded(request, server, 'me', (caller) => andThen(ownerOf(caller), answer));
}

/** The routes Bun's router answers directly (see direct-route.ts): the balance an agent polls. */
export function keyDirectRoutes(s: HttpDeps): DirectRoute[] {
  return [{ method: 'GET', path: '/api/keys/me', handle: meRoute(s) }];
}

export function keyRoutes(s: HttpDeps) {
  // Each challenge is a row until it expires: issuance has its own, tighter budget per client.
  const perMinute = s.config.challengesPerMinute;
  const challengeLimiter = new RateLimiter(perMinute / 60, Math.max(1, perMinute));

  const { guarded, ownerOf } = guards(s);
  const me = meRoute(s);

  return new Elysia({ name: 'keys' })
    .get(
      '/api/keys/challenge',
      ({ request, query, server }) =>
        guarded(request, server, 'challenge', async (caller) => {
          const issuance = await admit(challengeLimiter, () => caller.address);
          if (issuance.refusal) throw new GatewayError(429, issuance.refusal, issuance.headers);
          let wallet: string | undefined;
          if (query.wallet !== undefined && query.wallet !== '') {
            try {
              wallet = walletParam.parse(query.wallet, 'wallet');
            } catch {
              throw badRequest('Invalid wallet', `wallet must be a base58 Solana address. Example: /api/keys/challenge?wallet=${EXAMPLE_WALLET}`);
            }
          }
          const { challenge, expiresAt } = await s.store.issueChallenge(s.config.challengeTtlSeconds, caller.address, wallet, Date.now());
          return { challenge, wallet: wallet ?? null, expiresAt: Math.floor(expiresAt / 1000) };
        }),
    )
    .get(
      '/api/keys/deposit',
      ({ request, query, server }) =>
        guarded(request, server, 'deposit', async () => {
          let wallet: string;
          try {
            wallet = walletParam.parse(query.wallet, 'wallet');
          } catch {
            throw badRequest('Invalid wallet', `wallet must be a base58 Solana address. Example: /api/keys/deposit?wallet=${EXAMPLE_WALLET}`);
          }
          return { wallet, status: await s.store.depositStatus(wallet), minDepositLamports: s.config.minDepositLamports };
        }),
    )
    .post(
      '/api/keys/claim',
      ({ request, body, server }) =>
        guarded(request, server, 'claim', async () => {
          try {
            const { apiKey, wallet, freeCalls, creditLamports } = await claimKey(s.store, s.config.freeCalls, body);
            s.log.info('key claimed', { event: 'claim', wallet, creditLamports, freeCalls });
            return { apiKey };
          } catch (caught) {
            const e = caught instanceof GatewayError && caught.body.code === 'no_pending_key' ? await noPendingKeyFor(caught, String((body as { wallet: string }).wallet).trim(), s) : caught;
            if (e instanceof GatewayError) s.log.info('claim refused', { event: 'claim_refused', status: e.status, error: e.body.error, code: e.body.code ?? null });
            throw e;
          }
        }, { 'cache-control': 'no-store' }),
    )
    .get('/api/keys/me', ({ request, server }) => me(request, server))
    .get(
      '/api/keys/me/usage',
      ({ request, query, server }) =>
        guarded(request, server, 'usage', async (caller) => {
          const owner = await ownerOf(caller);
          const limit = pageParam(query.limit, 'limit', 20, USAGE_PAGE_MAX);
          const cursor = query.before === undefined ? {} : parseCursor(query.before);
          if (!cursor) throw badRequest('Invalid before', `before must be the nextCursor of the previous page, as given. ${PAGING_EXAMPLE}`);
          const page = await s.usage.page(owner.wallet, limit, cursor);
          return { wallet: owner.wallet, retentionDays: s.config.usageRetentionDays, calls: page.items, nextCursor: page.nextCursor };
        }),
    );
}
