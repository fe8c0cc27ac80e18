// The OpenAPI 3.1 document, generated from the capability registry (inputs and output schemas are
// the capabilities' own) plus the key, payment and meta routes. Written by hand rather than through
// @elysiajs/swagger, whose 3.0.3 output mixed 3.1 keywords and carried no response schemas.
import { x402Note } from '../calls/ways-to-pay.ts';
import { lamportsApart, lamportsFor } from '../billing/prices.ts';
import { WATCH, WATCH_CREATED, WATCH_EVENTS, WATCH_LIST, WATCH_REQUEST, watchPaths } from '../watch/openapi.ts';
import { Type as t, type TSchema } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { plainSchema, restPath, successSchema, type Capability } from '../capabilities/capability.ts';
import { EXAMPLE_WALLET } from '../capabilities/examples.ts';
import { CAPABILITIES } from '../capabilities/registry.ts';
import type { Config } from '../config.ts';
import { jsonResponse as json } from '../json.ts';
import { VERSION } from '../version.ts';
import { MAX_BODY_BYTES } from '../body.ts';
import { EXAMPLES } from '../capabilities/recorded-examples.ts';
import { DEPOSIT_STATUSES } from '../billing/deposits.ts';
import { USAGE_PAGE_MAX } from '../billing/usage-history.ts';
import { USAGE_CURSOR_PATTERN, USAGE_ITEM } from '../billing/usage-pages.ts';
import { AI_CATALOG_PATH, JWKS_PATH, MCP_CATALOG_PATH, RESOURCES_PATH } from '../discovery/paths.ts';
import { ICON_PATH } from '../calls/x402-resource.ts';

export const OPENAPI_PATH = '/openapi.json';
/** Where @elysiajs/swagger served the document; kept for clients that learned that address. */
export const LEGACY_OPENAPI_PATH = '/swagger/json';
export const LLMS_PATH = '/llms.txt';

type Json = Record<string, unknown>;

/** TypeBox schemas are JSON Schema plus symbol keys; the document carries the JSON only. */
const plain = (schema: TSchema): Json => plainSchema<Json>(schema);
const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, _d, c: string) => c.toUpperCase());

export const resultSchemaName = (cap: Capability) => `${pascal(cap.name)}Result`;
const operationId = (cap: Capability) => cap.tool.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const REVOKED_AT = t.String({ format: 'date-time', description: 'When the key sent was revoked (a revoked key only)' });

const ERROR = t.Object(
  {
    error: t.String({ description: 'What went wrong' }),
    hint: t.Optional(t.String({ description: 'Expected format, with an example' })),
    live_status: t.Optional(t.Literal('FAILED')),
    code: t.Optional(t.Union([t.String(), t.Integer()], { description: 'Machine-readable cause, where one applies (e.g. the upstream error)' })),
    reason: t.Optional(t.String({ description: 'Why, where the error alone does not say' })),
    revokedAt: t.Optional(REVOKED_AT),
    field: t.Optional(t.String({ description: 'The input field that was malformed' })),
    missing: t.Optional(t.Array(t.String(), { description: 'The required inputs that were absent' })),
  },
  { description: 'Every error body: `error` always, the rest where they apply.' },
);

const NO_PENDING_KEY = t.Object(
  {
    error: t.Literal('No pending key found for this wallet. Please send SOL to top up.'),
    code: t.Union([t.Literal('no_pending_key'), t.Literal('credit_without_key')], {
      description: 'credit_without_key: the wallet holds credit or free calls (e.g. its keys were revoked) but no deposit waits for a claim; no_pending_key: it holds nothing either',
    }),
    wallet: t.String(),
    creditLamports: t.Integer({ minimum: 0, description: "The wallet's credit, kept for it: a new key carries it" }),
    freeCallsRemaining: t.Integer({ minimum: 0 }),
    payTo: t.Optional(t.String({ description: 'Where the deposit that issues a new key goes (absent: this gateway takes no deposits)' })),
    network: t.Optional(t.String()),
    minDepositLamports: t.Optional(t.Integer({ minimum: 0, description: 'The least deposit that issues a key' })),
    hint: t.String({ description: 'What the wallet holds and the way to a new key, in words' }),
  },
  { description: 'A valid claim for a wallet with no deposit waiting: what it still holds and how to get a key.' },
);

const PAYMENT_REQUIRED = t.Object(
  {
    error: t.Literal('Payment required'),
    code: t.Optional(
      t.Union([t.Literal('no_key'), t.Literal('unknown_key'), t.Literal('revoked_key'), t.Literal('revoked_by_operator'), t.Literal('no_credit'), t.Literal('x402_refused')], {
        description:
          'Why, for machines: no key sent, a key this gateway does not know, a key replaced by a newer claim, a key the operator revoked, no credit left, or an x402 payment that was refused',
      }),
    ),
    reason: t.Optional(t.String({ description: 'Why this call was refused, in words' })),
    revokedAt: t.Optional(REVOKED_AT),
    priceLamports: t.Integer({ minimum: 0, description: 'Price of this call in lamports' }),
    instructions: t.String({ description: 'How to buy a key, step by step' }),
    payTo: t.Union([t.String({ description: 'Deposit address' }), t.Null()], { description: 'Deposit address; null when deposits are not configured' }),
    x402Version: t.Optional(t.Literal(1, { description: 'With x402 on: the version 1 offer (version 2 is in the PAYMENT-REQUIRED header)' })),
    accepts: t.Optional(t.Array(t.Record(t.String(), t.Unknown()), { description: 'With x402 on: version 1 payment requirements (scheme exact, network, maxAmountRequired, asset, payTo, extra.feePayer)' })),
    x402Error: t.Optional(t.String({ description: 'With x402 on: why no x402 payment was accepted' })),
    x402: t.Optional(t.String({ description: 'On the watch routes: why x402 cannot pay for a watch' })),
    eventPriceLamports: t.Optional(t.Integer({ minimum: 0, description: 'On the watch routes: what each event costs' })),
  },
  { description: 'A paid call without a usable key or credit; nothing was charged.' },
);

const CHALLENGE = t.Object({
  challenge: t.String({ pattern: '^[0-9a-f]{64}$', description: '32 random bytes, hex; sign its UTF-8 string' }),
  wallet: t.Union([t.String(), t.Null()], { description: 'The wallet it is bound to, or null' }),
  expiresAt: t.Integer({ description: 'Unix seconds' }),
});

const CLAIM_REQUEST = t.Object({
  wallet: t.String({ description: 'The wallet that deposited (base58)', minLength: 32, maxLength: 44 }),
  signature: t.String({ description: 'Base58 Ed25519 signature of the challenge string by the wallet' }),
  challenge: t.String({ description: 'The challenge as issued' }),
});

const CLAIM = t.Object({ apiKey: t.String({ pattern: '^cig_[1-9A-HJ-NP-Za-km-z]+$', description: 'Shown once; send it as x-api-key' }) });

const ACCOUNT = t.Object({
  wallet: t.String(),
  freeCallsRemaining: t.Integer({ minimum: 0 }),
  creditLamports: t.Integer({ minimum: 0 }),
  priceLamports: t.Integer({ minimum: 0, description: 'The flat price of one paid call (PRICE_LAMPORTS)' }),
  pricesLamports: t.Optional(t.Record(t.String(), t.Integer({ minimum: 0 }), { description: 'The capabilities priced apart from priceLamports, with their price; absent when every paid call costs priceLamports' })),
  callsMade: t.Integer({ minimum: 0 }),
  paidCallsAvailable: t.Integer({ minimum: 0, description: 'Free calls left plus the calls the credit buys at priceLamports' }),
  watchesPausedNoCredit: t.Optional(t.Array(t.String(), { description: 'Ids of your watches paused because the credit ran out (status paused_no_credit); they resume after a top-up' })),
});

const DEPOSIT_STATUS = t.Object({
  wallet: t.String(),
  status: t.Union(DEPOSIT_STATUSES.map((s) => t.Literal(s)), {
    description: 'claimable: a deposit waits for the claim; below_minimum: transfers seen so far add up to less than the minimum (they keep adding up); none: nothing waiting',
  }),
  minDepositLamports: t.Integer({ minimum: 0 }),
});

const USAGE = t.Object({
  wallet: t.String(),
  retentionDays: t.Integer({ minimum: 1, description: 'How long calls are kept (USAGE_RETENTION_DAYS)' }),
  calls: t.Array(USAGE_ITEM, { description: 'Newest first' }),
  nextCursor: t.Union([t.String({ pattern: USAGE_CURSOR_PATTERN }), t.Null()], { description: 'Pass as ?before= for older calls, as given; null on the last page' }),
});

const WEBHOOK_RESULT = t.Object({
  deposits: t.Array(
    t.Object({
      signature: t.String(),
      wallet: t.String(),
      lamports: t.String({ pattern: '^[0-9]+$' }),
      outcome: t.Union(['credited', 'below_minimum', 'duplicate', 'unconfirmed'].map((o) => t.Literal(o))),
    }),
  ),
  skipped: t.Array(t.Object({ index: t.Integer({ minimum: 0, description: 'Position in the posted array' }), error: t.String({ description: 'What is wrong with the entry' }) }), {
    description: 'Malformed entries, skipped; the others were still processed',
  }),
});

const HEALTH = t.Object({
  status: t.Literal('ok'),
  version: t.String(),
  uptimeSeconds: t.Integer({ minimum: 0 }),
  depositsConfigured: t.Boolean(),
  paymentNetwork: t.String(),
});

const HOME = t.Object({
  name: t.String(),
  version: t.String(),
  docs: t.String({ description: 'The API reference page' }),
  llmsTxt: t.String({ description: 'How an agent uses this gateway, in plain text' }),
  openapi: t.String({ description: 'This OpenAPI document' }),
  mcp: t.Object({ streamableHttp: t.String(), sse: t.String(), manifest: t.String() }),
  claim: t.String({ description: 'The page that buys a key with a browser wallet' }),
});

const READINESS = t.Object({
  status: t.Union([t.Literal('ready'), t.Literal('not ready'), t.Literal('stopping')]),
  ready: t.Boolean(),
  database: t.Union([t.Literal('writable'), t.Literal('failed')]),
  databaseError: t.Optional(t.String({ description: 'While the database is not answering, why, naming it: e.g. "postgres: unreachable", "sqlite: disk full", "sqlite: locked"' })),
  upstreams: t.Record(t.String(), t.Union([t.Number({ minimum: 0 }), t.Null()]), { description: 'Seconds since each network last had an upstream answer; null: not yet' }),
  upstreamErrors: t.Record(t.String(), t.String(), {
    description: 'For each network with no upstream answer within READY_WINDOW_SECONDS, why (the URLs are never shown): e.g. "unreachable: connection refused", "no answer within 8 s", "HTTP 503"',
  }),
  x402FeePayerLamports: t.Optional(t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: "With x402's built-in facilitator: its fee payer's SOL in lamports (it pays every settlement's fee); null: not read yet" })),
  x402: t.Optional(
    t.Object(
      {
        offered: t.Boolean({ description: "Whether 402 answers offer x402 now: false while a fault on the gateway's side (`problems`) stops payments; the account way is offered either way" }),
        asset: t.Optional(t.String({ description: 'The mint paid in (X402_ASSET)' })),
        tokenProgram: t.Optional(t.Union([t.String(), t.Null()], { description: "The mint's token program; null: no such mint" })),
        payTo: t.Optional(t.String({ description: 'The owner paid into' })),
        payToTokenAccount: t.Optional(t.Union([t.String(), t.Null()], { description: "The owner's associated token account of the asset, which receives every payment" })),
        payToTokenAccountExists: t.Optional(t.Boolean()),
        feePayer: t.Optional(t.String({ description: "The built-in facilitator's fee payer" })),
        feePayerLamports: t.Optional(t.Integer({ minimum: 0 })),
        problems: t.Array(t.String(), {
          description: 'Why x402 payments cannot settle now, each naming the account or setting at fault (fee payer, pay-to account, asset, facilitator); they do not make the gateway unready (keys and free calls still work)',
        }),
        warnings: t.Array(t.String(), { description: 'What will stop them soon: a fee payer below X402_FEE_PAYER_MIN_LAMPORTS' }),
      },
      { description: 'With x402 on: whether it is offered, and the accounts its payments depend on as last read (the fields of the accounts are absent until the first read)' },
    ),
  ),
});

const MANIFEST = t.Object({
  name: t.String(),
  version: t.String(),
  description: t.String(),
  capabilities: t.Object({ tools: t.Object({ description: t.String() }) }),
  mcp_sse_endpoint: t.String(),
  mcp_streamable_http_endpoint: t.String(),
  tools: t.Array(t.Object({ name: t.String(), description: t.String(), paid: t.Boolean(), inputSchema: t.Object({ type: t.Literal('object') }, { additionalProperties: true }) })),
  discovery: t.Object({
    resources: t.String({ description: 'Every paid resource (GET), in the x402 facilitator discovery shape' }),
    server_card: t.String({ description: 'The MCP Server Card' }),
    mcp_catalog: t.String(),
    ai_catalog: t.String(),
    x402_receipt_keys: t.String({ description: 'The public key that signs x402 offers and receipts (JWKS)' }),
  }),
});

/** Parts of x402 documents this document does not restate: as @x402/core and @x402/extensions define them. */
const OPEN = (description: string) => t.Object({}, { additionalProperties: true, description });

const LISTED = t.Object({
  resource: t.String({ description: 'Absolute URL: the REST route, or the MCP endpoint (the tool is named in extensions.bazaar)' }),
  type: t.Union([t.Literal('http'), t.Literal('mcp')]),
  x402Version: t.Literal(2),
  accepts: t.Array(OPEN('x402 PaymentRequirements (scheme exact); empty when x402 is off')),
  lastUpdated: t.String({ description: 'ISO 8601' }),
  description: t.String(),
  mimeType: t.String(),
  serviceName: t.Optional(t.String()),
  tags: t.Optional(t.Array(t.String())),
  iconUrl: t.Optional(t.String()),
  extensions: t.Object({ bazaar: OPEN('The bazaar discovery extension: input, input schema, example output') }),
  capability: t.String(),
  priceLamports: t.Integer({ minimum: 0, description: 'One call with an API key or a signed-in wallet' }),
});

const LISTING = t.Object({
  x402Version: t.Literal(2),
  items: t.Array(LISTED),
  pagination: t.Object({
    limit: t.Integer({ minimum: 1 }),
    offset: t.Integer({ minimum: 0 }),
    total: t.Integer({ minimum: 0 }),
    cursor: t.Union([t.String(), t.Null()], { description: 'Send as ?cursor= for the next page; null on the last' }),
  }),
});

const CATALOG = t.Object({
  specVersion: t.String(),
  entries: t.Array(t.Object({ identifier: t.String(), displayName: t.String(), type: t.Literal('application/mcp-server-card+json'), url: t.String() })),
});

const JWKS = t.Object({
  keys: t.Array(t.Object({ kty: t.Literal('OKP'), crv: t.Literal('Ed25519'), x: t.String(), alg: t.Literal('EdDSA'), use: t.Literal('sig'), kid: t.String({ description: 'did:jwk of the key, as the JWS header of each signed offer and receipt names it' }) })),
});

const jsonBody = (schema: Json, description: string, extra: Json = {}) => ({ description, content: { 'application/json': { schema, ...extra } } });

const RATE_HEADERS = {
  'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
  RateLimit: ref('headers', 'RateLimit'),
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

function components(): Json {
  const int = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The key from POST /api/keys/claim' },
      bearer: { type: 'http', scheme: 'bearer', description: 'The same key as `Authorization: Bearer <key>`' },
      webhookSecret: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The configured WEBHOOK_SECRET, verbatim' },
      x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'Where x402 is on: an x402 version 2 payment (base64 JSON) for this one call, made from the PAYMENT-REQUIRED offer of a 402' },
      x402v1: { type: 'apiKey', in: 'header', name: 'X-PAYMENT', description: 'Where x402 is on: an x402 version 1 payment (base64 JSON), made from the `accepts` of a 402 body' },
    },
    schemas: {
      Error: plain(ERROR),
      PaymentRequired: plain(PAYMENT_REQUIRED),
      NoPendingKey: plain(NO_PENDING_KEY),
      Challenge: plain(CHALLENGE),
      ClaimRequest: plain(CLAIM_REQUEST),
      Claim: plain(CLAIM),
      Account: plain(ACCOUNT),
      DepositStatus: plain(DEPOSIT_STATUS),
      Usage: plain(USAGE),
      WebhookResult: plain(WEBHOOK_RESULT),
      Home: plain(HOME),
      Health: plain(HEALTH),
      Readiness: plain(READINESS),
      McpManifest: plain(MANIFEST),
      DiscoveryResources: plain(LISTING),
      McpCatalog: plain(CATALOG),
      Jwks: plain(JWKS),
      Watch: plain(WATCH),
      WatchCreated: plain(WATCH_CREATED),
      WatchList: plain(WATCH_LIST),
      WatchEvents: plain(WATCH_EVENTS),
      WatchRequest: plain(WATCH_REQUEST),
      ...Object.fromEntries(CAPABILITIES.map((cap) => [resultSchemaName(cap), plain(successSchema(cap))])),
    },
    headers: {
      RateLimitPolicy: { description: 'IETF RateLimit-Policy: `"default";q=<bucket size>;w=<seconds an empty bucket takes to fill>`', schema: { type: 'string' } },
      RateLimit: { description: 'IETF RateLimit: `"default";r=<requests left>;t=<seconds until one more is allowed>` (t equals Retry-After on a 429)', schema: { type: 'string' } },
      RateLimitLimit: int('Bucket size (requests)'),
      RateLimitRemaining: int('Requests left in the bucket'),
      RateLimitReset: int('Seconds until one more request is allowed (equals Retry-After on a 429)'),
      RetryAfter: int('Seconds to wait before retrying'),
      CreditsRemaining: int('Credit left, in lamports'),
      FreeCallsRemaining: int('Free calls left'),
      PaymentRequiredOffer: { description: 'Where x402 is on: the x402 version 2 offer (PaymentRequired, base64 JSON)', schema: { type: 'string' } },
      PaymentResponse: { description: 'An x402 version 2 payment settled for this answer (base64 JSON: success, transaction, payer, network)', schema: { type: 'string' } },
      PaymentResponseV1: { description: 'The same for an x402 version 1 payment', schema: { type: 'string' } },
    },
    responses: {
      BadRequest: jsonBody(ref('schemas', 'Error'), 'Missing or malformed input; nothing is charged', {
        example: { error: 'Invalid wallet', hint: `wallet must be a base58 Solana address (32 bytes). Example: /api/chain/balance?wallet=${EXAMPLE_WALLET}&network=mainnet-beta`, field: 'wallet', live_status: 'FAILED' },
      }),
      PaymentRequired: {
        ...jsonBody(ref('schemas', 'PaymentRequired'), 'No usable key, or no free calls and too little credit, or an x402 payment refused; nothing is charged'),
        headers: { 'PAYMENT-REQUIRED': ref('headers', 'PaymentRequiredOffer'), ...RATE_HEADERS },
      },
      NotFound: jsonBody(ref('schemas', 'Error'), 'Nothing on chain at that address or signature (a paid call is refunded)'),
      PayloadTooLarge: jsonBody(ref('schemas', 'Error'), `Body over ${MAX_BODY_BYTES} bytes`),
      TooManyRequests: {
        ...jsonBody(ref('schemas', 'Error'), 'Rate limit reached; REST and MCP share the bucket', { example: { error: 'Too many requests', hint: 'Rate limit reached; retry after 1 s.', live_status: 'FAILED' } }),
        headers: { 'Retry-After': ref('headers', 'RetryAfter'), ...RATE_HEADERS },
      },
      X402Unavailable: {
        ...jsonBody(ref('schemas', 'Error'), "Where x402 is on: an x402 payment came while the gateway cannot settle one (its own accounts or facilitator); nothing was settled. Retry after Retry-After with a newly signed payment, or pay with an API key", {
          example: { error: 'x402 payments cannot be taken right now', code: 'x402_unavailable', live_status: 'FAILED' },
        }),
        headers: { 'Retry-After': ref('headers', 'RetryAfter') },
      },
      UpstreamFailure: jsonBody(ref('schemas', 'Error'), 'The chain RPC (or the server) failed; a paid call is refunded', {
        example: { error: 'Upstream RPC error -32005: Node is behind by 42 slots', live_status: 'FAILED' },
      }),
    },
  };
}

/** Which capabilities can answer 404 (nothing at the address or signature). */
const CAN_BE_NOT_FOUND = new Set(['find-ata', 'token-profile', 'decode-tx']);

/** The capabilities priced apart from the flat price, as a clause: "" when there are none. */
function pricedApart(config: Config): string {
  const apart = Object.entries(lamportsApart(config));
  return apart.length ? `, except ${apart.map(([name, price]) => `${name} (${price} lamports)`).join(', ')}` : '';
}

function capabilityOperation(cap: Capability, priceLamports: number, x402: string): Json {
  const props = Object.entries(cap.params);
  const price = cap.paid
    ? ` Paid: ${priceLamports} lamports per call after the free-call allowance; send the key as x-api-key (or Authorization: Bearer).${x402 ? ` ${x402}` : ''}`
    : ' Free: no key needed.';
  const example = EXAMPLES[cap.name];
  const successHeaders = cap.paid
    ? {
        'x-credits-remaining': ref('headers', 'CreditsRemaining'),
        'x-free-calls-remaining': ref('headers', 'FreeCallsRemaining'),
        ...(x402 ? { 'PAYMENT-RESPONSE': ref('headers', 'PaymentResponse'), 'X-PAYMENT-RESPONSE': ref('headers', 'PaymentResponseV1') } : {}),
        ...RATE_HEADERS,
      }
    : RATE_HEADERS;
  const query = ([name, p]: (typeof props)[number]) => {
    const { description, ...schema } = plain(p.schema);
    return { name, in: 'query', required: p.required, description, schema, ...(p.example ? { example: p.example } : {}) };
  };
  const input =
    cap.method === 'GET'
      ? { parameters: props.map(query) }
      : {
          // The pipeline reads the query string too, so `network` may also come there (DESIGN.md).
          parameters: props.filter(([name]) => name === 'network').map(query),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: props.filter(([, p]) => p.required).map(([k]) => k),
                  properties: Object.fromEntries(props.map(([k, p]) => [k, plain(p.schema)])),
                },
                ...(example?.request ? { example: example.request } : {}),
              },
            },
          },
        };
  return {
    operationId: operationId(cap),
    'x-mcp-tool': cap.tool,
    summary: cap.title,
    description: cap.description + price,
    tags: [cap.paid ? 'Paid' : 'Free'],
    security: cap.paid ? [{ apiKey: [] }, { bearer: [] }, ...(x402 ? [{ x402: [] }, { x402v1: [] }] : [])] : [],
    ...input,
    responses: {
      '200': {
        description: `${cap.title}: the body carries network and live_status "SUCCESS"`,
        headers: successHeaders,
        content: { 'application/json': { schema: ref('schemas', resultSchemaName(cap)), ...(example ? { example: example.response } : {}) } },
      },
      ...(props.length ? { '400': ref('responses', 'BadRequest') } : {}),
      ...(cap.paid ? { '402': ref('responses', 'PaymentRequired') } : {}),
      ...(CAN_BE_NOT_FOUND.has(cap.name) ? { '404': ref('responses', 'NotFound') } : {}),
      ...(cap.method === 'POST' ? { '413': ref('responses', 'PayloadTooLarge') } : {}),
      '429': ref('responses', 'TooManyRequests'),
      '500': ref('responses', 'UpstreamFailure'),
      ...(cap.paid && x402 ? { '503': ref('responses', 'X402Unavailable') } : {}),
    },
  };
}

const ok = (schemaName: string, description: string) => ({ description, content: { 'application/json': { schema: ref('schemas', schemaName) } } });
const error = (description: string) => jsonBody(ref('schemas', 'Error'), description);

function otherPaths(config: Config): Json {
  return {
    '/api/keys/challenge': {
      get: {
        operationId: 'getClaimChallenge',
        summary: 'Issue a claim challenge',
        description: 'A one-time 32-byte hex challenge, valid for a few minutes. Pass ?wallet= to bind it; a newer challenge you request for the same wallet invalidates your older ones (a request by another client does not). Limited per client address (CHALLENGES_PER_MINUTE).',
        tags: ['Keys'],
        security: [],
        parameters: [{ name: 'wallet', in: 'query', required: false, description: 'Bind the challenge to this wallet (base58)', schema: { type: 'string', minLength: 32, maxLength: 44 }, example: EXAMPLE_WALLET }],
        responses: { '200': { ...ok('Challenge', 'The challenge'), headers: RATE_HEADERS }, '400': ref('responses', 'BadRequest'), '429': ref('responses', 'TooManyRequests') },
      },
    },
    '/api/keys/claim': {
      post: {
        operationId: 'claimApiKey',
        summary: 'Claim an API key',
        description:
          'Send {wallet, signature, challenge}: the base58 Ed25519 signature of the challenge string by the wallet that deposited. Returns the key once; earlier keys of the wallet are revoked and its credit moves to the new key.',
        tags: ['Keys'],
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'ClaimRequest') } } },
        responses: {
          '200': { ...ok('Claim', 'The new key, shown once'), headers: RATE_HEADERS },
          '400': ref('responses', 'BadRequest'),
          '401': error('Invalid signature: the challenge is unknown, expired, used or superseded, or the signature does not verify'),
          '404': jsonBody(ref('schemas', 'NoPendingKey'), 'No deposit waits for a claim from this wallet: what it still holds (its credit survives a revoked key) and the deposit that issues a new key'),
          '413': ref('responses', 'PayloadTooLarge'),
          '429': ref('responses', 'TooManyRequests'),
        },
      },
    },
    '/api/keys/me': {
      get: {
        operationId: 'getMyAccount',
        summary: 'Your key, credit and free calls',
        description: 'Free. The account behind the key sent.',
        tags: ['Keys'],
        security: [{ apiKey: [] }, { bearer: [] }],
        responses: { '200': { ...ok('Account', 'The account'), headers: RATE_HEADERS }, '401': error('Missing, unknown or revoked API key (a revoked one: `code` revoked_key or revoked_by_operator, `reason` and `revokedAt`)'), '429': ref('responses', 'TooManyRequests') },
      },
    },
    '/api/keys/deposit': {
      get: {
        operationId: 'getDepositStatus',
        summary: 'Has a deposit from this wallet been seen?',
        description: 'Free; what the /claim page asks. Says only whether credit waits for the wallet\'s claim, never an amount.',
        tags: ['Keys'],
        security: [],
        parameters: [{ name: 'wallet', in: 'query', required: true, description: 'The depositing wallet (base58)', schema: { type: 'string', minLength: 32, maxLength: 44 }, example: EXAMPLE_WALLET }],
        responses: { '200': { ...ok('DepositStatus', 'What is known of the wallet\'s deposits'), headers: RATE_HEADERS }, '400': ref('responses', 'BadRequest'), '429': ref('responses', 'TooManyRequests') },
      },
    },
    '/api/keys/me/usage': {
      get: {
        operationId: 'getMyUsage',
        summary: 'Your paid calls, newest first',
        description:
          'Free. Each charged call over REST or MCP: when, which capability, which face, whether a free call or credit paid, the lamports taken, refund and status; ' +
          'and each call this wallet bought with an x402 payment that settled (paidWith x402): payer, asset, amount in atomic units and the settlement transaction. ' +
          `Kept ${config.usageRetentionDays} days.`,
        tags: ['Keys'],
        security: [{ apiKey: [] }, { bearer: [] }],
        parameters: [
          { name: 'limit', in: 'query', required: false, description: `Calls per page (1-${USAGE_PAGE_MAX})`, schema: { type: 'integer', minimum: 1, maximum: USAGE_PAGE_MAX, default: 20 } },
          { name: 'before', in: 'query', required: false, description: 'The nextCursor of the previous page, as given', schema: { type: 'string', pattern: USAGE_CURSOR_PATTERN } },
        ],
        responses: {
          '200': { ...ok('Usage', 'A page of calls'), headers: RATE_HEADERS },
          '400': ref('responses', 'BadRequest'),
          '401': error('Missing or invalid API key'),
          '429': ref('responses', 'TooManyRequests'),
        },
      },
    },
    '/api/payments/webhook': {
      post: {
        operationId: 'depositWebhook',
        summary: 'Deposit notification (payment provider push)',
        description: `Helius enhanced-transaction array. The Authorization header must equal the configured secret. Each deposit is confirmed on ${config.paymentNetwork} before it is credited. A malformed entry is skipped and listed under skipped; the others are still processed. 404 when the webhook is disabled.`,
        tags: ['Payments'],
        security: [{ webhookSecret: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['signature'],
                  properties: {
                    signature: { type: 'string' },
                    nativeTransfers: {
                      type: 'array',
                      items: { type: 'object', properties: { fromUserAccount: { type: 'string' }, toUserAccount: { type: 'string' }, amount: { type: 'integer', minimum: 0 } } },
                    },
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': ok('WebhookResult', 'What was done with each reported deposit'),
          '400': ref('responses', 'BadRequest'),
          '401': error('Invalid authorization header'),
          '404': error('The webhook is disabled on this gateway'),
          '413': ref('responses', 'PayloadTooLarge'),
          '500': ref('responses', 'UpstreamFailure'),
        },
      },
    },
    '/': {
      get: { operationId: 'getHome', summary: 'Where to go next: the reference page, llms.txt, this document, MCP', description: 'JSON to any client; a browser (Accept: text/html) gets a small landing page with the same links.', tags: ['Meta'], security: [], responses: { '200': ok('Home', 'Links to the documentation and endpoints') } },
    },
    '/healthz': {
      get: { operationId: 'getHealth', summary: 'Liveness: the process answers', tags: ['Meta'], security: [], responses: { '200': ok('Health', 'The process answers; 200 also while the database or the upstreams are away (see /readyz)') } },
    },
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness: the database takes a write lock and an upstream answered recently',
        tags: ['Meta'],
        security: [],
        responses: { '200': ok('Readiness', 'Ready for traffic'), '503': ok('Readiness', 'Not ready (or stopping): take it out of the load balancer') },
      },
    },
    '/metrics': {
      get: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description: 'Text exposition format. When METRICS_TOKEN is set, send it as Authorization: Bearer.',
        tags: ['Meta'],
        security: [],
        responses: {
          '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': error('METRICS_TOKEN is set and the bearer token sent does not match'),
        },
      },
    },
    '/.well-known/mcp.json': {
      get: { operationId: 'getMcpManifest', summary: 'MCP discovery manifest', tags: ['Meta'], security: [], responses: { '200': ok('McpManifest', 'The tools and MCP endpoints') } },
    },
    [RESOURCES_PATH]: {
      get: {
        operationId: 'listDiscoveryResources',
        summary: 'Every paid route and MCP tool, in the x402 facilitator discovery shape',
        description: 'What x402 catalogues read: each resource with its x402 requirements, its bazaar extension, the service name, tags and icon, and its price in lamports. Paged with `cursor` (or `offset`), filtered by `type`, `payTo`, `scheme`, `network`, `extensions`.',
        tags: ['Meta'],
        security: [],
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'pagination.cursor of the previous page' },
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'type', in: 'query', required: false, schema: { type: 'string', enum: ['http', 'mcp'] } },
          { name: 'payTo', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'scheme', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'network', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'extensions', in: 'query', required: false, schema: { type: 'string' }, description: 'An extension key the resource must carry' },
        ],
        responses: { '200': ok('DiscoveryResources', 'A page of resources'), '400': error('A paging or filter value that cannot be used') },
      },
    },
    [MCP_CATALOG_PATH]: {
      get: { operationId: 'getMcpCatalog', summary: 'MCP Catalog: where the MCP Server Card is', tags: ['Meta'], security: [], responses: { '200': ok('McpCatalog', 'One entry: this gateway') } },
    },
    [AI_CATALOG_PATH]: {
      get: { operationId: 'getAiCatalog', summary: 'AI Catalog: the same entry, in the newer catalog format', tags: ['Meta'], security: [], responses: { '200': { description: 'One entry: this gateway', content: { 'application/ai-catalog+json': { schema: ref('schemas', 'McpCatalog') } } } } },
    },
    [JWKS_PATH]: {
      get: { operationId: 'getReceiptKeys', summary: 'The public key that signs x402 offers and receipts', tags: ['Meta'], security: [], responses: { '200': ok('Jwks', 'JWKS: one key when X402_RECEIPT_KEYPAIR is set, else none') } },
    },
    [ICON_PATH]: {
      get: { operationId: 'getIcon', summary: 'The icon catalogues show for this gateway', tags: ['Meta'], security: [], responses: { '200': { description: 'SVG', content: { 'image/svg+xml': { schema: { type: 'string' } } } } } },
    },
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document',
        description: `Also at ${LEGACY_OPENAPI_PATH}.`,
        tags: ['Meta'],
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    [LLMS_PATH]: {
      get: {
        operationId: 'getLlmsTxt',
        summary: 'How an agent uses this gateway, in plain text',
        tags: ['Meta'],
        security: [],
        responses: { '200': { description: 'Markdown text (llms.txt)', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
  };
}

export function openApiDocument(config: Config): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Chain Intelligence Gateway',
      version: VERSION,
      summary: 'Processed Solana data for AI agents, over REST and MCP',
      description:
        'Processed Solana data for AI agents. Free endpoints need nothing; paid endpoints need an API key bought with a SOL deposit and ' +
        `claimed by signing a challenge (see the Keys operations and ${LLMS_PATH}). The same capabilities are MCP tools at /mcp (Streamable HTTP) and /mcp/sse (HTTP+SSE).` +
        (config.x402Price !== undefined ? `\n\n${x402Note(config)}` : ''),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This gateway' }],
    tags: [
      { name: 'Free', description: 'Free capabilities: no key needed' },
      { name: 'Paid', description: `Paid capabilities: ${config.priceLamports} lamports per call after the free-call allowance${pricedApart(config)}` },
      { name: 'Keys', description: 'Buy and inspect an API key' },
      { name: 'Watches', description: "A wallet's activity pushed: pulled, by webhook or over MCP; paid per event" },
      { name: 'Payments', description: 'Deposit notifications' },
      { name: 'Meta', description: 'Health and discovery' },
    ],
    paths: {
      ...Object.fromEntries(CAPABILITIES.map((cap) => [restPath(cap), { [cap.method.toLowerCase()]: capabilityOperation(cap, lamportsFor(config, cap.name), x402Note(config, cap.name)) }])),
      ...otherPaths(config),
      ...watchPaths({ ref, ok, error }),
    },
    components: components(),
  };
}

export function openApiRoutes(config: Config) {
  // Built once: the document depends only on the registry and the settings.
  const body = openApiDocument(config);
  return new Elysia({ name: 'openapi' }).get(OPENAPI_PATH, () => json(200, body)).get(LEGACY_OPENAPI_PATH, () => json(200, body));
}
