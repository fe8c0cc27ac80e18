// What the OpenAPI document says of the watch routes (src/watch/routes.ts): their schemas and paths.
// The document (src/http/openapi.ts) hands in its helpers for references and bodies.
import { Type as t } from '@sinclair/typebox';
import { EXAMPLE_WALLET } from '../capabilities/examples.ts';
import { MAX_PULL, MAX_WAIT_SECONDS } from './watches.ts';

const nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Union([s, t.Null()]);
const seconds = (description: string) => t.Union([t.Integer({ minimum: 0 }), t.Null()], { description });

export const WATCH = t.Object({
  id: t.String({ pattern: '^wch_[0-9a-f]{24}$' }),
  wallets: t.Array(t.String(), { description: 'The wallets followed' }),
  network: t.Union([t.Literal('mainnet-beta'), t.Literal('devnet')]),
  commitment: t.Union([t.Literal('confirmed'), t.Literal('finalized')], { description: 'The commitment events are recorded at' }),
  webhookUrl: nullable(t.String({ description: 'Where each event is POSTed; null: pull (or MCP) only' })),
  status: t.Union([t.Literal('active'), t.Literal('paused_no_credit'), t.Literal('failing'), t.Literal('ended')], {
    description: 'paused_no_credit: the credit ran out (events skipped until a top-up); failing: the webhook has failed for WEBHOOK_FAILING_AFTER_SECONDS; ended: the receiver answered 410',
  }),
  createdAt: t.Integer({ description: 'Unix seconds' }),
  eventPriceLamports: t.Integer({ minimum: 0, description: 'What each event costs, debited once' }),
  lastCursor: t.String({ description: 'The cursor of the newest event' }),
  eventsResource: t.String({ description: 'The MCP resource of its events (subscribe to be told of new ones)' }),
  pausedAt: t.Optional(t.Integer({ description: 'Unix seconds; while paused_no_credit' })),
  skippedEvents: t.Integer({ minimum: 0, description: 'Events not recorded (nor charged) while the credit was out' }),
  endedReason: t.Optional(t.String()),
  delivery: t.Optional(
    t.Object(
      {
        pending: t.Integer({ minimum: 0, description: 'Events not yet accepted by the receiver' }),
        deliveredCursor: t.String(),
        attempts: t.Integer({ minimum: 0, description: 'Failed attempts at the pending event' }),
        lastError: nullable(t.String()),
        nextAttemptAt: seconds('Unix seconds of the next retry; null when none is waiting'),
        failingSince: seconds('Unix seconds of the first failure in a row; null when the last attempt succeeded'),
      },
      { description: 'With a webhook: where its delivery stands' },
    ),
  ),
});

export const WATCH_CREATED = t.Composite([WATCH, t.Object({ secret: t.Optional(t.String({ pattern: '^whsec_', description: 'With a webhook: its Standard Webhooks signing secret, shown this once' })) })]);

export const WATCH_LIST = t.Object({ watches: t.Array(WATCH) });

export const WATCH_EVENTS = t.Object({
  watchId: t.String(),
  events: t.Array(
    t.Object({
      id: t.String({ description: 'Stable: the same transaction for the same watch and wallet is always the same id' }),
      type: t.Literal('wallet.activity'),
      watchId: t.String(),
      wallet: t.String(),
      network: t.String(),
      signature: t.String(),
      slot: t.Integer(),
      blockTime: t.Union([t.Integer(), t.Null()]),
      commitment: t.String(),
      item: t.Record(t.String(), t.Unknown(), { description: 'What transactions?decode=true says of this transaction for this wallet' }),
    }),
    { description: 'Oldest first' },
  ),
  nextCursor: t.String({ description: 'Pass as `after` next time' }),
  retentionHours: t.Integer({ description: 'How long events are kept' }),
});

export const WATCH_REQUEST = t.Object({
  wallets: t.Array(t.String({ minLength: 32, maxLength: 44 }), { minItems: 1, description: 'Wallets to follow (at most WATCH_MAX_WALLETS)', examples: [[EXAMPLE_WALLET]] }),
  network: t.Optional(t.Union([t.Literal('mainnet-beta'), t.Literal('devnet')], { default: 'mainnet-beta' })),
  webhookUrl: t.Optional(t.String({ description: 'https URL resolving to public addresses only; each event is POSTed there, signed per Standard Webhooks' })),
  commitment: t.Optional(t.Union([t.Literal('confirmed'), t.Literal('finalized')], { default: 'confirmed' })),
});

type Json = Record<string, unknown>;
interface DocHelpers {
  ref(kind: 'schemas' | 'responses', name: string): Json;
  ok(schema: string, description: string): Json;
  error(description: string): Json;
}

export function watchPaths({ ref, ok, error }: DocHelpers): Json {
  const security = [{ apiKey: [] }, { bearer: [] }];
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The watch id (wch_...)' };
  const notFound = error('No such watch of this key (another key\'s is answered the same)');
  const paid = ref('responses', 'PaymentRequired');
  const bad = ref('responses', 'BadRequest');
  const tags = ['Watches'];
  return {
    '/api/watches': {
      post: {
        operationId: 'createWatch',
        summary: 'Watch wallets',
        description: "Each transaction touching a watched wallet becomes one event, pulled, POSTed to webhookUrl (Standard Webhooks) or read over MCP. Each event is debited once from the key's credit; x402 cannot pay for a watch (docs/watch.md).",
        tags,
        security,
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'WatchRequest') } } },
        responses: { '201': ok('WatchCreated', 'The watch, with its webhook secret shown once'), '400': bad, '402': paid, '409': error('The key already has WATCH_MAX_PER_KEY live watches') },
      },
      get: { operationId: 'listWatches', summary: 'Your watches', tags, security, responses: { '200': ok('WatchList', 'The watches of the key\'s wallet'), '402': paid } },
    },
    '/api/watches/{id}': {
      get: { operationId: 'getWatch', summary: 'One watch, with its delivery state', tags, security, parameters: [id], responses: { '200': ok('Watch', 'The watch'), '404': notFound } },
      delete: { operationId: 'deleteWatch', summary: 'End a watch (its events go too)', tags, security, parameters: [id], responses: { '204': { description: 'Ended' }, '404': notFound } },
    },
    '/api/watches/{id}/events': {
      get: {
        operationId: 'getWatchEvents',
        summary: 'Events after a cursor (long poll)',
        tags,
        security,
        parameters: [
          id,
          { name: 'after', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'nextCursor of the previous page (default 0: the oldest kept)' },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PULL, default: 50 } },
          { name: 'wait', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0 }, description: 'Seconds to hold the request open until there is an event' },
        ],
        responses: { '200': ok('WatchEvents', 'Events, oldest first'), '400': bad, '404': notFound },
      },
    },
    '/api/watches/{id}/replay': {
      post: {
        operationId: 'replayWatch',
        summary: 'Send the webhook again from a cursor',
        tags,
        security,
        parameters: [id],
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { after: { type: 'string', pattern: '^[0-9]+$' } }, additionalProperties: false } } } },
        responses: { '200': ok('Watch', 'The watch, its delivery cursor moved back'), '400': bad, '404': notFound },
      },
    },
  };
}
