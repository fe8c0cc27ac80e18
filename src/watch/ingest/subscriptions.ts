// logsSubscribe ({mentions: [address]}) for many addresses on a few WebSocket connections to the node:
// each connection carries up to `perSocket` subscriptions, a new one opens when all are full. A
// connection that drops is opened again with exponential backoff and jitter, on the next URL of the
// list, and subscribes its addresses again; as the node acknowledges each, `onSubscribed` is told, so
// the caller reads what was missed before (the gap fill): nothing falls between a fill and a socket. The first connection also
// follows the node's slot (slotSubscribe), for the lag metric. Written here rather than with
// @solana/kit's subscriptions, which end on a dropped channel and leave resubscribing to the caller.
import type { Logger } from '../../log.ts';

export interface SubscriptionsOptions {
  label: string;
  urls: readonly string[];
  commitment: 'confirmed' | 'finalized';
  perSocket: number;
  log: Logger;
  /** A transaction mentioning `address` reached `commitment`. */
  onLogs(address: string, note: { signature: string; slot: number; err: unknown }): void;
  /** The node acknowledged (or refused) the subscription of `address`: what came before it must be read. */
  onSubscribed(address: string): void;
  onSlot?(slot: number): void;
  /** How many subscriptions and connections are open now (metrics). */
  onCount?(subscriptions: number, sockets: number): void;
}

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 10_000;
/** A socket that answers no ping for this long is taken for dead (a silent network, no close). */
const PING_EVERY_MS = 15_000;

type Pending = { address: string } | { slot: true } | { unsubscribe: number };

class NodeSocket {
  /** address -> subscription id once the node acknowledged it (null while asked). */
  readonly addresses = new Map<string, number | null>();
  private readonly byId = new Map<number, string>();
  private readonly pending = new Map<number, Pending>();
  private ws: WebSocket | undefined;
  private nextRequest = 1;
  private attempt = 0;
  private urlIndex = 0;
  private closed = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private ping: ReturnType<typeof setInterval> | undefined;
  private alive = true;

  constructor(
    private readonly pool: Subscriptions,
    readonly followsSlot: boolean,
  ) {
    this.connect();
  }

  get acknowledged(): number {
    let n = 0;
    for (const id of this.addresses.values()) if (id !== null) n++;
    return n;
  }

  get open(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  add(address: string): void {
    this.addresses.set(address, null);
    if (this.open) this.subscribe(address);
  }

  remove(address: string): void {
    const id = this.addresses.get(address);
    this.addresses.delete(address);
    if (id === undefined || id === null) return;
    this.byId.delete(id);
    if (this.open) this.send('logsUnsubscribe', [id], { unsubscribe: id });
    this.pool.counted();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.ping);
    this.ws?.close();
    this.ws = undefined;
  }

  private connect(): void {
    if (this.closed) return;
    const { urls } = this.pool.options;
    const ws = new WebSocket(urls[this.urlIndex % urls.length]!);
    this.ws = ws;
    ws.onopen = () => this.opened(ws);
    ws.onmessage = (e) => this.message(String(e.data));
    ws.onclose = () => this.dropped(ws);
    ws.onerror = () => {}; // a close follows
  }

  private opened(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.attempt = 0;
    this.alive = true;
    for (const address of this.addresses.keys()) this.subscribe(address);
    if (this.followsSlot) this.send('slotSubscribe', [], { slot: true });
    clearInterval(this.ping);
    const pinging = ws as WebSocket & { ping?: () => void };
    if (typeof pinging.ping === 'function') {
      (ws as unknown as { addEventListener(type: 'pong', l: () => void): void }).addEventListener('pong', () => void (this.alive = true));
      this.ping = setInterval(() => {
        if (!this.alive) return void ws.close();
        this.alive = false;
        pinging.ping!();
      }, PING_EVERY_MS);
    }
    this.pool.counted();
  }

  private dropped(ws: WebSocket): void {
    if (ws !== this.ws) return;
    clearInterval(this.ping);
    this.ws = undefined;
    for (const address of this.addresses.keys()) this.addresses.set(address, null);
    this.byId.clear();
    this.pending.clear();
    this.pool.counted();
    if (this.closed) return;
    this.urlIndex++;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempt++);
    const jittered = delay / 2 + Math.random() * (delay / 2);
    if (this.attempt === 1 || this.attempt % 5 === 0) this.pool.options.log.warn('watch ingestion: node WebSocket closed; reconnecting', { network: this.pool.options.label, attempt: this.attempt, retryInMs: Math.round(jittered) });
    this.retry = setTimeout(() => this.connect(), jittered);
  }

  private subscribe(address: string): void {
    this.send('logsSubscribe', [{ mentions: [address] }, { commitment: this.pool.options.commitment }], { address });
  }

  private send(method: string, params: unknown[], pending: Pending): void {
    const id = this.nextRequest++;
    this.pending.set(id, pending);
    this.ws!.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  private message(text: string): void {
    let msg: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: { subscription?: number; result?: any } };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.method === 'logsNotification') {
      const address = this.byId.get(msg.params?.subscription as number);
      const r = msg.params?.result;
      if (address !== undefined && typeof r?.value?.signature === 'string') this.pool.options.onLogs(address, { signature: r.value.signature, slot: Number(r.context?.slot), err: r.value.err });
      return;
    }
    if (msg.method === 'slotNotification') {
      const slot = Number(msg.params?.result?.slot);
      if (Number.isFinite(slot)) this.pool.options.onSlot?.(slot);
      return;
    }
    if (typeof msg.id !== 'number') return;
    const pending = this.pending.get(msg.id);
    this.pending.delete(msg.id);
    if (!pending || !('address' in pending)) return;
    const { address } = pending;
    if (msg.error || typeof msg.result !== 'number') {
      // The interval's fill still reads this address; the subscription is asked again on the next reconnect.
      this.pool.options.log.warn('watch ingestion: the node refused a logsSubscribe', { network: this.pool.options.label, error: msg.error?.message ?? 'no subscription id' });
    } else if (this.addresses.has(address)) {
      this.addresses.set(address, msg.result);
      this.byId.set(msg.result, address);
    } else {
      this.send('logsUnsubscribe', [msg.result], { unsubscribe: msg.result }); // removed while asked
    }
    this.pool.counted();
    if (this.addresses.has(address)) this.pool.options.onSubscribed(address);
  }
}

export class Subscriptions {
  private readonly sockets: NodeSocket[] = [];
  private readonly where = new Map<string, NodeSocket>();

  constructor(readonly options: SubscriptionsOptions) {}

  /** Follows exactly these addresses: subscribes the new ones, unsubscribes the others. */
  set(addresses: ReadonlySet<string>): void {
    for (const [address, socket] of this.where) {
      if (addresses.has(address)) continue;
      socket.remove(address);
      this.where.delete(address);
    }
    for (const address of addresses) {
      if (this.where.has(address)) continue;
      let socket = this.sockets.find((s) => s.addresses.size < this.options.perSocket);
      if (!socket) this.sockets.push((socket = new NodeSocket(this, this.sockets.length === 0)));
      socket.add(address);
      this.where.set(address, socket);
    }
    // Empty connections close, but the one following the slot only when nothing is followed.
    for (let i = this.sockets.length - 1; i >= 0; i--) {
      const s = this.sockets[i]!;
      if (s.addresses.size === 0 && (i > 0 || this.where.size === 0)) {
        s.close();
        this.sockets.splice(i, 1);
      }
    }
    this.counted();
  }

  has(address: string): boolean {
    return this.where.has(address);
  }

  counted(): void {
    this.options.onCount?.(
      this.sockets.reduce((n, s) => n + s.acknowledged, 0),
      this.sockets.filter((s) => s.open).length,
    );
  }

  close(): void {
    for (const s of this.sockets) s.close();
    this.sockets.length = 0;
    this.where.clear();
    this.counted();
  }
}
