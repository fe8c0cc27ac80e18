// The sandbox's WebSocket API on the RPC port + 1, as a node serves it (Agave's PubSub): logsSubscribe
// ({mentions: [one address]}, "all", "allWithVotes"), logsUnsubscribe, slotSubscribe, slotUnsubscribe,
// each notification in mainnet's shape. Every landed transaction is final here, so each commitment
// hears of it at once. `cut()` drops every connection and refuses new ones until `restore()`: what
// lands meanwhile is never notified (as a socket dropped by a real node), for the fill to find.
import type { Server, ServerWebSocket } from 'bun';
import { toJson } from '../../../src/json.ts';
import type { Ledger, TxRecord } from './ledger.ts';

type Filter = { kind: 'all' } | { kind: 'mentions'; address: string };
interface Subscription {
  id: number;
  method: 'logs' | 'slot';
  filter?: Filter;
}
interface Client {
  subs: Map<number, Subscription>;
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

class InvalidParams extends Error {}

function filterOf(raw: unknown): Filter {
  if (raw === 'all' || raw === 'allWithVotes') return { kind: 'all' };
  const mentions = (raw as { mentions?: unknown } | null)?.mentions;
  if (!Array.isArray(mentions)) throw new InvalidParams('Invalid params: unknown variant, expected `all` or `allWithVotes` or `mentions`.');
  if (mentions.length !== 1) throw new InvalidParams('Invalid Request: Only 1 address supported');
  const address = mentions[0];
  if (typeof address !== 'string' || !BASE58.test(address)) throw new InvalidParams('Invalid Request: Invalid pubkey provided');
  return { kind: 'mentions', address };
}

export class PubSubServer {
  private server: Server<Client> | undefined;
  private readonly sockets = new Set<ServerWebSocket<Client>>();
  private nextId = 0;
  private refusing = false;
  private readonly onLanded = (record: TxRecord) => this.landed(record);

  constructor(private readonly ledger: Ledger) {}

  /** Listens on `port` exactly (the RPC port + 1); throws when it is taken. */
  start(port: number, hostname: string): string {
    this.server = Bun.serve<Client>({
      port,
      hostname,
      reusePort: false,
      development: false,
      fetch: (req, server) => {
        if (this.refusing) return new Response('sandbox WebSocket cut', { status: 503 });
        if (server.upgrade(req, { data: { subs: new Map() } })) return undefined;
        return new Response('Expected a WebSocket upgrade', { status: 400 });
      },
      websocket: {
        idleTimeout: 0,
        open: (ws) => void this.sockets.add(ws),
        close: (ws) => void this.sockets.delete(ws),
        message: (ws, message) => this.message(ws, String(message)),
      },
    });
    this.ledger.landed.add(this.onLanded);
    return `ws://${hostname}:${this.server.port}`;
  }

  async stop(): Promise<void> {
    this.ledger.landed.delete(this.onLanded);
    await this.server?.stop(true);
    this.server = undefined;
  }

  /** Drops every connection and refuses new ones until restore(). */
  cut(): void {
    this.refusing = true;
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
  }

  restore(): void {
    this.refusing = false;
  }

  /** Open connections, and subscriptions over all of them. */
  open(): { connections: number; subscriptions: number } {
    let subscriptions = 0;
    for (const ws of this.sockets) subscriptions += ws.data.subs.size;
    return { connections: this.sockets.size, subscriptions };
  }

  private message(ws: ServerWebSocket<Client>, text: string): void {
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(text);
    } catch {
      return void ws.send(toJson({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
    }
    const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
    const params = Array.isArray(request.params) ? request.params : [];
    const reply = (result: unknown) => ws.send(toJson({ jsonrpc: '2.0', result, id }));
    const error = (code: number, message: string) => ws.send(toJson({ jsonrpc: '2.0', error: { code, message }, id }));
    try {
      switch (request.method) {
        case 'logsSubscribe':
          return void reply(this.add(ws, { method: 'logs', filter: filterOf(params[0]) }));
        case 'slotSubscribe':
          return void reply(this.add(ws, { method: 'slot' }));
        case 'logsUnsubscribe':
        case 'slotUnsubscribe': {
          const sub = ws.data.subs.get(Number(params[0]));
          if (!sub || `${sub.method}Unsubscribe` !== request.method) return void error(-32602, 'Invalid subscription id.');
          ws.data.subs.delete(sub.id);
          return void reply(true);
        }
        default:
          return void error(-32601, 'Method not found');
      }
    } catch (e) {
      if (e instanceof InvalidParams) return void error(-32602, e.message);
      throw e;
    }
  }

  private add(ws: ServerWebSocket<Client>, sub: Omit<Subscription, 'id'>): number {
    const id = this.nextId++;
    ws.data.subs.set(id, { id, ...sub });
    return id;
  }

  private landed(record: TxRecord): void {
    const slot = Number(record.slot);
    const logs = { signature: record.signature, err: record.meta.err, logs: record.meta.logMessages };
    const keys = new Set(record.accountKeys);
    for (const ws of this.sockets) {
      for (const sub of ws.data.subs.values()) {
        if (sub.method === 'slot') {
          ws.send(toJson({ jsonrpc: '2.0', method: 'slotNotification', params: { result: { parent: slot - 1, root: slot, slot }, subscription: sub.id } }));
        } else if (sub.filter!.kind === 'all' || keys.has(sub.filter!.address)) {
          ws.send(toJson({ jsonrpc: '2.0', method: 'logsNotification', params: { result: { context: { slot }, value: logs }, subscription: sub.id } }));
        }
      }
    }
  }
}
