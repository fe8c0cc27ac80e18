// The watches as MCP tools (watch_wallets, list_watches, watch_events, unwatch): the same operations
// and answers as the REST routes, for the key sent on the MCP request, drawn from the same rate-limit
// bucket; without a key, the REST 402 as an error result.
import { ProtocolError, ProtocolErrorCode, type Tool } from '@modelcontextprotocol/server';
import type { Caller } from '../calls/caller.ts';
import { errorOutcome, type Outcome } from '../calls/outcome.ts';
import type { CallDeps } from '../calls/pipeline.ts';
import { watchOwner } from './owner.ts';
import { badRequest, GatewayError } from '../errors.ts';
import type { ExtraTools } from '../mcp/tools.ts';
import type { KeyOwner } from '../billing/keys.ts';
import { MAX_PULL, type Watches } from './watches.ts';
import { eventsUri } from './events.ts';

/** Every watch tool, as tools/list lists them after the capabilities' tools. */
export const WATCH_TOOL_NAMES = ['watch_wallets', 'list_watches', 'watch_events', 'unwatch'] as const;

const ID = { type: 'string', description: 'The watch id (wch_...)' };
const objectOf = (properties: Record<string, object>, required: string[] = []): Tool['inputSchema'] => ({ type: 'object', properties: properties as Tool['inputSchema']['properties'], required, additionalProperties: false });

function toolsOf(price: number): Tool[] {
  const paid = `Each event costs ${price} lamports of the API key's credit, once (x402 cannot pay for a watch).`;
  return [
    {
      name: 'watch_wallets',
      description:
        "Watch wallets: each transaction touching one (or its token accounts) becomes an event whose item is get_recent_transactions' decoded item. " +
        'Read them with watch_events, or give webhookUrl (https) to have each POSTed (Standard Webhooks). ' +
        paid,
      inputSchema: objectOf(
        {
          wallets: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Wallet addresses (base58)' },
          network: { type: 'string', enum: ['mainnet-beta', 'devnet'], default: 'mainnet-beta' },
          webhookUrl: { type: 'string', description: 'Optional https URL each event is POSTed to' },
          commitment: { type: 'string', enum: ['confirmed', 'finalized'], default: 'confirmed' },
        },
        ['wallets'],
      ),
    },
    { name: 'list_watches', description: "Your watches, each with its status and the webhook's delivery state.", inputSchema: objectOf({}) },
    {
      name: 'watch_events',
      description: `A watch's events after a cursor, oldest first (at most ${MAX_PULL}), and the nextCursor. Free.`,
      inputSchema: objectOf({ id: ID, after: { type: 'string', description: 'nextCursor of the previous read; "0" or absent: from the oldest kept' }, limit: { type: 'integer', minimum: 1, maximum: MAX_PULL, default: 50 } }, ['id']),
    },
    { name: 'unwatch', description: 'Ends a watch and forgets its events.', inputSchema: objectOf({ id: ID }, ['id']) },
  ];
}

const URI = /^solana:\/\/(mainnet-beta|devnet)\/watches\/(wch_[0-9a-f]{24})\/events(?:\?after=(\d{1,15}))?$/;
/** JSON-RPC's "resource not found" (MCP). */
const RESOURCE_NOT_FOUND = -32002;

const text = (v: unknown, name: string): string => {
  if (typeof v !== 'string') throw badRequest(`Invalid ${name}`, `${name} must be a string; list your watches with list_watches.`);
  return v;
};

export function watchTools(watches: Watches, deps: Pick<CallDeps, 'payments' | 'limiter' | 'log'>): ExtraTools {
  const tools = toolsOf(watches.price);
  const ops: Record<string, (owner: KeyOwner, args: Record<string, unknown>) => Promise<unknown>> = {
    watch_wallets: async (owner, args) => watches.create(owner.wallet, await watches.parseInput(args)),
    list_watches: async (owner) => ({ watches: await watches.list(owner.wallet) }),
    watch_events: async (owner, args) => {
      const after = args.after === undefined ? 0 : Number(text(args.after, 'after'));
      const limit = args.limit === undefined ? 50 : Number(args.limit);
      if (!Number.isSafeInteger(after) || after < 0) throw badRequest('Invalid after', 'after must be the nextCursor of a previous read, as given.');
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PULL) throw badRequest('Invalid limit', `limit must be a whole number from 1 to ${MAX_PULL}.`);
      return watches.events(owner.wallet, text(args.id, 'id'), after, limit, 0);
    },
    unwatch: async (owner, args) => {
      const id = text(args.id, 'id');
      await watches.remove(owner.wallet, id);
      return { id, status: 'ended' };
    },
  };
  const run = async (name: string, args: Record<string, unknown>, caller: Caller): Promise<Outcome> => {
    let headers: Record<string, string> = {};
    try {
      const admitted = await watchOwner(caller, deps, watches.price);
      headers = admitted.headers;
      return { status: 200, body: (await ops[name]!(admitted.owner, args)) as Record<string, unknown>, headers };
    } catch (e) {
      const out = errorOutcome(e, deps.log, name);
      return { ...out, headers: { ...headers, ...out.headers } };
    }
  };
  /** The owner of the watch `uri` names, or a ProtocolError any client can read (402 and 404 alike). */
  const ownerOfUri = async (m: RegExpExecArray, caller: Caller): Promise<KeyOwner> => {
    let owner: KeyOwner;
    try {
      ({ owner } = await watchOwner(caller, deps, watches.price));
    } catch (e) {
      const body = e instanceof GatewayError ? e.body : { error: 'Internal server error' };
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${body.error}: a watch's events need the API key that made it (x-api-key)`, body);
    }
    try {
      const w = await watches.own(owner.wallet, m[2]!);
      if (w.network !== m[1]) throw new Error('another network');
    } catch {
      throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${m[0]}`);
    }
    return owner;
  };

  return {
    tools,
    run: (name, args, caller) => (name in ops ? run(name, args, caller) : undefined),
    read(uri, caller) {
      const m = URI.exec(uri);
      if (!m) return undefined;
      return ownerOfUri(m, caller).then(async (owner) => {
        const page = await watches.events(owner.wallet, m[2]!, Number(m[3] ?? 0), MAX_PULL, 0);
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(page) }] };
      });
    },
    async mayFollow(uri, caller) {
      const m = URI.exec(uri.replace(/\?.*$/, ''));
      if (!m) throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`);
      await ownerOfUri(m, caller);
    },
    changes: (cb) => watches.changes((id, network) => cb(eventsUri(network, id))),
  };
}
