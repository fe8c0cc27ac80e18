// Who is calling, as both faces see it: the API key sent on this very request, the client's
// network address (the rate-limit bucket for calls without a usable key, the requester of a
// challenge) and the face it came in on (recorded in the key holder's usage history).
import { BlockList, isIP } from 'node:net';
import type { PaymentAttempt } from '../billing/x402/payments.ts';
import type { SignInAttempt } from '../billing/x402/siwx.ts';
import { contextOf, type RequestContext } from '../request-context.ts';

export interface Caller {
  readonly apiKey?: string;
  readonly address: string;
  face: 'rest' | 'mcp';
  /** An x402 payment attached to this very call; the pipeline decides what it is worth. */
  readonly payment?: PaymentAttempt;
  /** A sign-in-with-x proof attached to this very call: the wallet it names pays, as its key would. */
  readonly signIn?: SignInAttempt;
  /** Where the access line of the HTTP request reads what the call did (its upstream calls); none when nothing reads it. */
  readonly context?: RequestContext;
  /** scheme://host the client reached, as its request names it (behind a trusted proxy, as the proxy forwards it): where an x402 offer's resource is. */
  readonly origin?: string;
  /** Over MCP, the endpoint of the transport the call came by. */
  readonly mcp?: McpEndpoint;
}

export interface McpEndpoint {
  readonly path: string;
  readonly transport: 'sse' | 'streamable-http';
}

export type { PaymentAttempt };

/** The x402 payment headers of a request, v2 first. */
export function paymentOf(headers: Headers): PaymentAttempt | undefined {
  const v2 = headers.get('payment-signature');
  if (v2 !== null) return { header: v2, version: 2 };
  const v1 = headers.get('x-payment');
  return v1 !== null ? { header: v1, version: 1 } : undefined;
}

/** The same caller with a payment or a sign-in proof attached (MCP: both travel in the call's `_meta`). */
export function withPayment(caller: Caller, payment: PaymentAttempt | undefined, signIn?: SignInAttempt): Caller {
  return {
    get apiKey() {
      return caller.apiKey;
    },
    get address() {
      return caller.address;
    },
    face: caller.face,
    payment,
    signIn,
    get context() {
      return caller.context;
    },
    get origin() {
      return caller.origin;
    },
    mcp: caller.mcp,
  };
}

export function apiKeyOf(headers: Headers): string | undefined {
  const key = headers.get('x-api-key')?.trim();
  if (key) return key;
  const auth = headers.get('authorization')?.trim();
  return auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() || undefined : undefined;
}

// The last request's key, for the same reason as its address below: the pipeline and then the
// access line both read it.
let keyRequest: Request | undefined;
let lastKey: string | undefined;

/** apiKeyOf() for a request, read from its headers once. */
export function requestKey(request: Request): string | undefined {
  if (request !== keyRequest) {
    lastKey = apiKeyOf(request.headers);
    keyRequest = request;
  }
  return lastKey;
}

type RequestIpServer = { requestIP(req: Request): { address: string } | null } | null | undefined;

// Proxies in front of proxies are rare; a longer chain is read only this far from our side.
const MAX_HOPS = 16;

const family = (ip: string) => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** An address as a proxy writes it (maybe with a port, or IPv6 in brackets), or undefined when it is none. */
function hopAddress(raw: string): string | undefined {
  let s = raw.trim().replace(/^"|"$/g, '');
  if (s.startsWith('[')) s = s.slice(1, s.indexOf(']') === -1 ? undefined : s.indexOf(']'));
  else if (s.indexOf(':') !== -1 && s.indexOf(':') === s.lastIndexOf(':')) s = s.slice(0, s.indexOf(':'));
  return isIP(s) ? s : undefined;
}

/** The hops a proxy chain reports, nearest the client first: X-Forwarded-For, else RFC 7239 Forwarded's for=. */
function forwardedHops(headers: Headers): string[] {
  const xff = headers.get('x-forwarded-for');
  if (xff) return xff.split(',');
  const fwd = headers.get('forwarded');
  if (!fwd) return [];
  return fwd.split(',').map((element) => forwardedParam(element, 'for') ?? '');
}

/** One parameter (for=, host=, proto=) of an RFC 7239 Forwarded element, unquoted. */
function forwardedParam(element: string, name: string): string | undefined {
  const pair = element.split(';').find((p) => p.trim().toLowerCase().startsWith(`${name}=`));
  return pair?.trim().slice(name.length + 1).replace(/^"|"$/g, '');
}

/** The last value of a header a proxy may append to (`a, b`): the one our own trusted proxy wrote. */
const lastOf = (value: string | null) => value?.split(',').pop()?.trim().replace(/^"|"$/g, '') || undefined;

// A host as it may stand in a URL: a name or IPv4 address, or IPv6 in brackets, with maybe a port.
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** The host and scheme a trusted proxy forwards: X-Forwarded-Host/-Proto, else RFC 7239 Forwarded's host= and proto=. */
function forwardedOrigin(headers: Headers): { host?: string; proto?: string } {
  const xfh = lastOf(headers.get('x-forwarded-host'));
  if (xfh) return { host: xfh, proto: lastOf(headers.get('x-forwarded-proto')) };
  const element = headers.get('forwarded')?.split(',').pop();
  return element ? { host: forwardedParam(element, 'host'), proto: forwardedParam(element, 'proto') } : {};
}

/**
 * scheme://host of the gateway as the client reached it: the request's own Host, unless the
 * socket's peer is a trusted proxy, whose forwarded host and scheme then stand (when they are a
 * host and http or https). Headers from anyone else change nothing.
 */
export function requestOrigin(request: Request, server: unknown, trustedProxies: readonly string[] = NO_PROXIES): string {
  const own = new URL(request.url);
  if (trustedProxies.length === 0 || !peerOf(request, server, trustedProxies).proxies) return own.origin;
  const forwarded = forwardedOrigin(request.headers);
  const host = forwarded.host && HOST.test(forwarded.host) ? forwarded.host.toLowerCase() : own.host;
  const proto = forwarded.proto?.toLowerCase();
  return `${proto === 'http' || proto === 'https' ? proto : own.protocol.slice(0, -1)}://${host}`;
}

const parsed = new WeakMap<readonly string[], BlockList>();

/** TRUSTED_PROXIES as a matcher, built once per list. Entries were validated by the config. */
function proxyList(cidrs: readonly string[]): BlockList {
  let list = parsed.get(cidrs);
  if (list) return list;
  list = new BlockList();
  for (const cidr of cidrs) {
    const [ip, bits] = cidr.split('/') as [string, string | undefined];
    list.addSubnet(ip, bits === undefined ? (isIP(ip) === 6 ? 128 : 32) : Number(bits), family(ip));
  }
  parsed.set(cidrs, list);
  return list;
}

// The last request's address: the limiter (keyless calls) and then the access line of a request
// answered at once ask for the same request's address, and asking the socket is a system call.
// Bun's fetch handler sees no connection, so a request is as far as this can be remembered.
const NO_PROXIES: readonly string[] = [];
let lastRequest: Request | undefined;
let lastProxies: readonly string[] | undefined;
let lastAddress = '';

/**
 * The client's network address. The socket's peer, unless that peer is a trusted proxy: then the
 * forwarding headers are read from our side outwards, past every trusted proxy, to the first
 * address that is not one. Headers from anyone else change nothing.
 */
export function clientAddress(request: Request, server: unknown, trustedProxies: readonly string[] = NO_PROXIES): string {
  if (request === lastRequest && trustedProxies === lastProxies) return lastAddress;
  lastAddress = addressOf(request, server, trustedProxies);
  lastRequest = request;
  lastProxies = trustedProxies;
  return lastAddress;
}

/** The socket's peer of a request and, when it is a trusted proxy, the trusted list: then its forwarding headers stand. */
interface Peer {
  readonly address: string;
  readonly proxies?: BlockList;
}

// The last request's peer: an x402 offer asks for the origin after the address of the same request.
let peerRequest: Request | undefined;
let peerServer: unknown;
let peerProxies: readonly string[] | undefined;
let lastPeer: Peer = { address: 'unknown' };

function peerOf(request: Request, server: unknown, trustedProxies: readonly string[]): Peer {
  if (request === peerRequest && server === peerServer && trustedProxies === peerProxies) return lastPeer;
  const address = (server as RequestIpServer)?.requestIP(request)?.address ?? 'unknown';
  const list = trustedProxies.length > 0 && isIP(address) ? proxyList(trustedProxies) : undefined;
  lastPeer = list?.check(address, family(address)) ? { address, proxies: list } : { address };
  peerRequest = request;
  peerServer = server;
  peerProxies = trustedProxies;
  return lastPeer;
}

function addressOf(request: Request, server: unknown, trustedProxies: readonly string[]): string {
  const { address: peer, proxies: trusted } = peerOf(request, server, trustedProxies);
  if (!trusted) return peer;
  const hops = forwardedHops(request.headers);
  let client = peer;
  for (let i = hops.length - 1; i >= Math.max(0, hops.length - MAX_HOPS); i--) {
    const hop = hopAddress(hops[i]!);
    // A hop that is no address: the last trusted proxy is as far as we can tell.
    if (!hop) return client;
    client = hop;
    if (!trusted.check(hop, family(hop))) return hop;
  }
  return client;
}

/**
 * The caller of an HTTP request. The key and the address are read only when something asks: a
 * free call with rate limits off needs neither, and asking the socket for the address is a system
 * call that costs as much as the rest of a cached call.
 */
class HttpCaller implements Caller {
  private address_?: string;
  private key?: { value: string | undefined };
  constructor(
    private readonly request: Request,
    private readonly server: unknown,
    readonly face: Caller['face'],
    private readonly trustedProxies: readonly string[],
    readonly mcp?: McpEndpoint,
  ) {}

  get apiKey(): string | undefined {
    return (this.key ??= { value: requestKey(this.request) }).value;
  }

  get address(): string {
    return (this.address_ ??= clientAddress(this.request, this.server, this.trustedProxies));
  }

  get payment(): PaymentAttempt | undefined {
    return paymentOf(this.request.headers);
  }

  get signIn(): SignInAttempt | undefined {
    const header = this.request.headers.get('sign-in-with-x');
    return header !== null ? { header } : undefined;
  }

  get context(): RequestContext | undefined {
    return contextOf(this.request);
  }

  get origin(): string {
    return requestOrigin(this.request, this.server, this.trustedProxies);
  }
}

export function httpCaller(request: Request, server: unknown, face: Caller['face'], trustedProxies: readonly string[] = NO_PROXIES, mcp?: McpEndpoint): Caller {
  return new HttpCaller(request, server, face, trustedProxies, mcp);
}
