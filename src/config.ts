// One typed, validated configuration object. Every setting comes from a flag (--port 3000 or
// --port=3000) or an environment variable (PORT); a flag wins. Each has a default, so the gateway
// starts with no configuration at all.
import { base58 } from '@scure/base';
import { isIP } from 'node:net';
import { accessSync, closeSync, constants, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const NETWORKS = ['mainnet-beta', 'devnet'] as const;
export type Network = (typeof NETWORKS)[number];
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LEDGER_SYNCS = ['normal', 'full'] as const;
export type LedgerSync = (typeof LEDGER_SYNCS)[number];

export class ConfigError extends Error {}

interface Setting<T> {
  env: string;
  help: string;
  default: T;
  shownDefault?: string;
  secret?: boolean;
  /** Other spellings of the flag accepted for compatibility (never listed by --help). */
  aliases?: string[];
  parse(raw: string): T;
}

function fail(msg: string): never {
  throw new ConfigError(msg);
}

/** A raw value as repeated in an error: short, so one error line stays one short line. */
const shown = (raw: string) => JSON.stringify(raw.length > 60 ? raw.slice(0, 60) + '…' : raw);

const integer = (min: number, max: number) => (raw: string) => {
  if (!/^\d+$/.test(raw.trim())) fail(`expected a whole number between ${min} and ${max}, got ${shown(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) fail(`expected a whole number between ${min} and ${max}, got ${n}`);
  return n;
};

const positiveNumber = (raw: string) => {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) fail(`expected a non-negative number, got ${shown(raw)}`);
  return n;
};

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string): T =>
    (values as readonly string[]).includes(raw) ? (raw as T) : fail(`expected one of ${values.join(', ')}, got ${shown(raw)}`);

const bool = (raw: string) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return fail(`expected true or false, got ${shown(raw)}`);
};

/**
 * Comma-separated URLs of the given schemes (`label` names them in errors: "http(s)", "ws(s)"). They
 * may hold an API key: an error never repeats one.
 */
const urlListOf = (schemes: readonly string[], label: string) => (raw: string) => {
  const urls = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (urls.length === 0) fail('expected at least one URL');
  for (const u of urls) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      return fail(`expected comma-separated ${label} URLs; one of them is not a URL`);
    }
    if (!schemes.includes(parsed.protocol)) fail(`expected ${label} URLs, got a ${shown(parsed.protocol)} URL`);
  }
  return urls;
};

const urlList = urlListOf(['http:', 'https:'], 'http(s)');
/** The node's WebSocket API, as RPC URLs are given. */
const wsUrlList = urlListOf(['ws:', 'wss:'], 'ws(s)');

/**
 * The WebSocket URL of an RPC URL as web3.js's and @solana/kit's clients derive it: http -> ws,
 * https -> wss, and an explicit port becomes the next one (a local validator's 8899 -> 8900).
 */
export function derivedWsUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (url.port !== '') url.port = String(Number(url.port) + 1);
  return url.toString();
}

/** The network's WebSocket URLs: MAINNET_WS_URLS / DEVNET_WS_URLS, else one derived from each RPC URL. */
export function wsUrls(c: Config, network: Network): string[] {
  const set = network === 'devnet' ? c.devnetWsUrls : c.mainnetWsUrls;
  return set ?? (network === 'devnet' ? c.devnetRpcUrls : c.mainnetRpcUrls).map(derivedWsUrl);
}

const postgresUrl = (raw: string) => {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    // The URL may hold a password: never repeat it.
    return fail('expected a postgres://user:password@host:port/database URL; the value is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') fail(`expected a postgres:// URL, got a ${parsed.protocol} URL`);
  return raw.trim();
};

const solanaAddress = (raw: string) => {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(raw.trim());
  } catch {
    return fail(`expected a base58 Solana address, got ${shown(raw)}`);
  }
  if (bytes.length !== 32) fail(`expected a base58 Solana address (32 bytes), got ${bytes.length} bytes`);
  return raw.trim();
};

const text = (raw: string) => raw;

/** The gateway's address as clients reach it: an http(s) origin, maybe with a path prefix; kept without a trailing slash. */
const publicUrl = (raw: string) => {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    return fail(`expected the gateway's public URL, such as https://gateway.example.com, got ${shown(raw)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail(`expected an http(s) URL, got a ${shown(parsed.protocol)} URL`);
  if (parsed.username || parsed.password || parsed.search || parsed.hash) fail(`expected a URL without credentials, query or fragment, got ${shown(raw)}`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
};

const cidrList = (raw: string) => {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [ip, bits, extra] = entry.split('/');
    const version = isIP(ip ?? '');
    const max = version === 6 ? 128 : 32;
    if (!version || extra !== undefined || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > max))) {
      fail(`expected comma-separated IP addresses or CIDR ranges (e.g. 10.0.0.0/8, ::1), got ${shown(entry)}`);
    }
  }
  return entries;
};
/** Hostnames, given bare or as origins (`https://app.example.com` -> `app.example.com`). */
const hostList = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        const host = new URL(entry.includes('://') ? entry : `http://${entry}`).hostname;
        if (host) return host.toLowerCase();
      } catch {}
      return fail(`expected hostnames or origins such as https://app.example.com, got "${entry}"`);
    });

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** An IPv4 or IPv6 address, or a host name; checked here so that a typo fails before the database opens. */
const host = (raw: string) => {
  const h = raw.trim();
  if (IPV4.test(h)) {
    if (h.split('.').some((o) => Number(o) > 255)) fail(`expected an IP address or host name, got ${shown(raw)} (an IPv4 octet is above 255)`);
    return h;
  }
  if (h.includes(':')) {
    try {
      new URL(`http://[${h.replace(/^\[|\]$/g, '')}]/`);
      return h.replace(/^\[|\]$/g, '');
    } catch {
      return fail(`expected an IP address or host name, got ${shown(raw)}`);
    }
  }
  // All-numeric names (999.1.1.1, 10.0.0) are mistyped addresses, not host names.
  if (!HOSTNAME.test(h) || /^[\d.]+$/.test(h)) fail(`expected an IP address or host name, got ${shown(raw)}`);
  return h;
};

/**
 * Prices per capability: `decode-tx=4400000,simulate=4400000`. Each name once, each price a whole
 * number within bounds; whether a name is a paid capability is checked by checkPrices, which knows them.
 */
const priceList = (min: number) => (raw: string) => {
  const prices: Record<string, number> = {};
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = entry.match(/^([^=\s]+)\s*=\s*(.*)$/);
    if (!m) fail(`expected comma-separated capability=price pairs such as decode-tx=4400000, got ${shown(entry)}`);
    const [, name, price] = m as unknown as [string, string, string];
    if (name in prices) fail(`${name} is priced twice`);
    try {
      prices[name] = integer(min, 1e15)(price);
    } catch (e) {
      fail(`${name}: ${(e as Error).message}`);
    }
  }
  return prices;
};

const optional =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T | undefined =>
    raw.trim() === '' ? undefined : parse(raw);

export const DEFAULT_DATABASE_PATH = './data/gateway.sqlite';
/** USDC's mint on mainnet-beta: what x402 is paid in unless X402_ASSET says otherwise. */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/**
 * What the built-in facilitator's fee payer pays for one settlement, as measured on the sandbox
 * chain: two signatures at 5,000 lamports (the payer's and its own) and the compute-unit price
 * @x402/svm's client sets (1 micro-lamport x 20,000 units, rounded up to 1 lamport).
 */
export const X402_SETTLEMENT_FEE_LAMPORTS = 10_001;
/**
 * Least the fee payer must hold for one settlement: its fee, and the 890,880 lamports a plain
 * account keeps to stay rent-exempt (the runtime refuses a fee that would leave it below).
 */
export const X402_FEE_PAYER_FLOOR_LAMPORTS = X402_SETTLEMENT_FEE_LAMPORTS + 890_880;

const SETTINGS = {
  port: { env: 'PORT', help: 'TCP port to listen on (0 picks a free one)', default: 3000, parse: integer(0, 65535) },
  host: { env: 'HOST', help: 'address to listen on', default: '0.0.0.0', parse: host },
  databasePath: {
    env: 'DATABASE_PATH',
    help: 'SQLite file; its folder must exist (only the default ./data is created); relative to the working directory',
    default: DEFAULT_DATABASE_PATH,
    parse: (raw: string) => (raw.trim() === '' ? fail('expected a file path') : raw),
  },
  databaseMinFreeMb: {
    env: 'DATABASE_MIN_FREE_MB',
    help: "SQLite: below this many MB free on the database's file system, a warning (at start and when it gets there) and a WAL kept small (checkpointed every ~4 MB and truncated after)",
    default: 64,
    parse: integer(0, 1_000_000_000),
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    help: 'PostgreSQL URL (postgres://...): several gateways share one database; unset keeps the SQLite file',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    secret: true,
    parse: optional(postgresUrl),
  },
  ledgerSync: {
    env: 'LEDGER_SYNC',
    help: 'durability of debits and refunds: normal (group commit without fsync; survives a crash of the process, a power loss may drop the last moments of debits) or full (fsync every commit); claims, credits and keys always fsync. SQLite only',
    default: 'normal' as LedgerSync,
    parse: oneOf(LEDGER_SYNCS),
  },
  mainnetRpcUrls: {
    env: 'MAINNET_RPC_URLS',
    help: 'comma-separated mainnet-beta RPC URLs, primary first, the rest fail over',
    default: ['https://api.mainnet-beta.solana.com'],
    shownDefault: 'https://api.mainnet-beta.solana.com',
    secret: true,
    parse: urlList,
  },
  devnetRpcUrls: {
    env: 'DEVNET_RPC_URLS',
    help: 'comma-separated devnet RPC URLs, primary first',
    default: ['https://api.devnet.solana.com'],
    shownDefault: 'https://api.devnet.solana.com',
    secret: true,
    parse: urlList,
  },
  mainnetWsUrls: {
    env: 'MAINNET_WS_URLS',
    help: "comma-separated mainnet-beta WebSocket URLs that watches subscribe on (logsSubscribe), the first tried first",
    default: undefined as string[] | undefined,
    shownDefault: 'one per MAINNET_RPC_URLS entry, as web3.js derives it (https -> wss, an explicit port + 1)',
    secret: true,
    parse: wsUrlList,
  },
  devnetWsUrls: {
    env: 'DEVNET_WS_URLS',
    help: 'comma-separated devnet WebSocket URLs, the first tried first',
    default: undefined as string[] | undefined,
    shownDefault: 'one per DEVNET_RPC_URLS entry, derived the same way',
    secret: true,
    parse: wsUrlList,
  },
  watchFillSeconds: {
    env: 'WATCH_FILL_SECONDS',
    help: "watched wallets' signature lists are read again this often (getSignaturesForAddress until the last seen), besides at start and after each reconnect, so that a notification the socket never delivered is not lost",
    default: 60,
    parse: integer(1, 86_400),
  },
  watchSubscriptionsPerSocket: {
    env: 'WATCH_SUBSCRIPTIONS_PER_SOCKET',
    help: 'logsSubscribe subscriptions carried by one WebSocket connection to the node; more addresses open more connections',
    default: 1000,
    parse: integer(1, 100_000),
  },
  rpcTimeoutMs: {
    env: 'RPC_TIMEOUT_MS',
    help: 'time limit of one upstream RPC attempt, in milliseconds',
    default: 8000,
    parse: integer(50, 120_000),
  },
  upstreamMaxBodyBytes: {
    env: 'UPSTREAM_MAX_BODY_BYTES',
    help: 'largest upstream RPC response read; a longer one fails the call as an upstream error (refunded)',
    default: 16 * 1024 * 1024,
    parse: integer(1024, 2 ** 31),
  },
  rpcRetries: {
    env: 'RPC_RETRIES',
    help: 'extra rounds over the URL list after HTTP 429/5xx on reads',
    default: 2,
    parse: integer(0, 10),
  },
  gatewayAddress: {
    env: 'GATEWAY_ADDRESS',
    help: 'deposit address (payTo); unset: paid calls cannot be bought',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    parse: optional(solanaAddress),
  },
  paymentNetwork: {
    env: 'PAYMENT_NETWORK',
    help: 'network deposits are read on',
    default: 'mainnet-beta' as Network,
    parse: oneOf(NETWORKS),
  },
  depositQuorum: {
    env: 'DEPOSIT_QUORUM',
    help: 'RPC nodes of the payment network (its URL list) that must each show a deposit before it is credited',
    default: 1,
    parse: integer(1, 16),
  },
  webhookSecret: {
    env: 'WEBHOOK_SECRET',
    help: 'expected Authorization value of the deposit webhook; unset disables the webhook',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    secret: true,
    parse: optional(text),
  },
  verifyDeposits: {
    env: 'VERIFY_DEPOSITS',
    help: 'confirm each webhook-reported deposit on chain before crediting it',
    default: true,
    parse: bool,
  },
  depositPollSeconds: {
    env: 'DEPOSIT_POLL_SECONDS',
    help: 'deposit watcher interval in seconds; 0 disables the watcher',
    default: 15,
    parse: positiveNumber,
  },
  priceLamports: { env: 'PRICE_LAMPORTS', help: 'flat price of one paid call', default: 2_200_000, parse: integer(0, 1e15) },
  prices: {
    env: 'PRICES',
    help: 'paid capabilities priced apart from PRICE_LAMPORTS, in lamports: decode-tx=4400000,simulate=4400000',
    default: {} as Record<string, number>,
    shownDefault: 'none (every paid call costs PRICE_LAMPORTS)',
    parse: priceList(0),
  },
  freeCalls: { env: 'FREE_CALLS', help: "free paid-calls granted on a wallet's first claim", default: 10, parse: integer(0, 1e9) },
  minDepositLamports: {
    env: 'MIN_DEPOSIT_LAMPORTS',
    help: 'smallest transfer credited on its own; the watcher adds up smaller ones per sender and credits their total once it reaches this',
    default: 2_200_000,
    parse: integer(0, 1e15),
  },
  x402Price: {
    env: 'X402_PRICE',
    help: 'x402: price of one paid call in atomic units of X402_ASSET (10000 = 0.01 USDC); setting it lets agents pay per call without an account',
    default: undefined as number | undefined,
    shownDefault: 'unset (x402 off)',
    parse: optional(integer(1, 1e15)),
  },
  x402Prices: {
    env: 'X402_PRICES',
    help: 'x402: paid capabilities priced apart from X402_PRICE, in atomic units of X402_ASSET: decode-tx=20000',
    default: {} as Record<string, number>,
    shownDefault: 'none (every paid call costs X402_PRICE)',
    parse: priceList(1),
  },
  x402Asset: {
    env: 'X402_ASSET',
    help: 'x402: mint of the SPL token paid in',
    default: USDC_MINT,
    shownDefault: 'USDC',
    parse: solanaAddress,
  },
  x402PayTo: {
    env: 'X402_PAY_TO',
    help: "x402: owner of the token account paid into (its associated token account must exist)",
    default: undefined as string | undefined,
    shownDefault: 'GATEWAY_ADDRESS',
    parse: optional(solanaAddress),
  },
  x402FeePayerKeypair: {
    env: 'X402_FEE_PAYER_KEYPAIR',
    help: 'x402: keypair file (Solana CLI JSON) of the built-in facilitator, which pays the fee of every payment it settles',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    parse: optional(text),
  },
  x402FacilitatorUrl: {
    env: 'X402_FACILITATOR_URL',
    help: 'x402: an external facilitator (its /verify, /settle and /supported) instead of the built-in one',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    secret: true,
    parse: optional((raw: string) => urlList(raw)[0]!),
  },
  x402SettleSeconds: {
    env: 'X402_SETTLE_SECONDS',
    help: 'x402: longest wait for a payment to reach confirmed; past it the answer is withheld',
    default: 30,
    parse: integer(1, 120),
  },
  x402FeePayerMinLamports: {
    env: 'X402_FEE_PAYER_MIN_LAMPORTS',
    help: `x402: the built-in facilitator's fee payer below this many lamports is warned of in the log and in /readyz (one settlement costs it ${X402_SETTLEMENT_FEE_LAMPORTS})`,
    default: 1000 * X402_SETTLEMENT_FEE_LAMPORTS,
    shownDefault: `${1000 * X402_SETTLEMENT_FEE_LAMPORTS} (1000 settlements)`,
    parse: integer(0, 1e15),
  },
  x402MaxComputeUnitPrice: {
    env: 'X402_MAX_COMPUTE_UNIT_PRICE',
    help: 'x402: highest compute-unit price (micro-lamports) a payment may set, since the fee payer pays it',
    default: 5_000_000,
    parse: integer(0, 1e12),
  },
  challengeTtlSeconds: {
    env: 'CHALLENGE_TTL_SECONDS',
    help: 'how long a claim challenge stays valid',
    default: 300,
    parse: integer(1, 86_400),
  },
  challengesPerMinute: {
    env: 'CHALLENGES_PER_MINUTE',
    help: 'claim challenges one client address may request per minute (as a burst too); 0 disables',
    default: 10,
    parse: integer(0, 1e6),
  },
  usageRetentionDays: {
    env: 'USAGE_RETENTION_DAYS',
    help: 'days a key holder\'s usage history (GET /api/keys/me/usage) is kept',
    default: 90,
    parse: integer(1, 36_500),
  },
  usageQueueRows: {
    env: 'USAGE_QUEUE_ROWS',
    help: 'usage rows kept in memory while the database cannot take them, retried until it does; beyond this, rows are dropped and counted',
    default: 100_000,
    parse: integer(1, 10_000_000),
  },
  rateLimitRps: {
    env: 'RATE_LIMIT_RPS',
    help: 'sustained requests per second per API key (or per client address without a key); 0 disables',
    default: 20,
    parse: positiveNumber,
  },
  rateLimitBurst: {
    env: 'RATE_LIMIT_BURST',
    help: 'bucket size: requests allowed at once before the rate applies',
    default: 40,
    parse: integer(1, 1e9),
  },
  mcpMaxSessions: { env: 'MCP_MAX_SESSIONS', help: 'cap on open MCP sessions (503 beyond it)', default: 1000, parse: integer(1, 1e6) },
  mcpMaxSessionsPerAddress: {
    env: 'MCP_MAX_SESSIONS_PER_ADDRESS',
    help: 'cap on open MCP sessions opened without a valid API key from one client address (429 beyond it)',
    default: 20,
    parse: integer(1, 1e6),
  },
  mcpMaxSessionsPerKey: {
    env: 'MCP_MAX_SESSIONS_PER_KEY',
    help: "cap on open MCP sessions of one API key's wallet (429 beyond it)",
    default: 20,
    parse: integer(1, 1e6),
  },
  mcpMaxBatch: {
    env: 'MCP_MAX_BATCH',
    help: 'most JSON-RPC messages in one MCP batch (a JSON-RPC error beyond it)',
    default: 20,
    parse: integer(1, 1000),
  },
  mcpAllowedOrigins: {
    env: 'MCP_ALLOWED_ORIGINS',
    help: 'comma-separated hostnames (or origins) a browser may reach the MCP endpoints from; the listen address and localhost are always allowed',
    default: [] as string[],
    shownDefault: 'the listen address and localhost',
    parse: hostList,
  },
  mcpStreamBufferBytes: {
    env: 'MCP_STREAM_BUFFER_BYTES',
    help: 'output an MCP event stream may hold for a client that does not read; beyond it the session is closed and its undelivered paid calls refunded',
    default: 256 * 1024,
    parse: integer(16 * 1024, 64 * 1024 * 1024),
  },
  mcpStreamIdleSeconds: {
    env: 'MCP_STREAM_IDLE_SECONDS',
    help: 'an MCP session whose stream carried nothing but keep-alives (and got no request) this long is closed',
    default: 900,
    parse: positiveNumber,
  },
  mcpSessionTtlSeconds: {
    env: 'MCP_SESSION_TTL_SECONDS',
    help: 'a Streamable HTTP session with no open stream is closed after this long without a request',
    default: 300,
    parse: positiveNumber,
  },
  mcpKeepAliveSeconds: {
    env: 'MCP_KEEPALIVE_SECONDS',
    aliases: ['--mcp-keepalive-seconds'],
    help: 'interval of keep-alive comments on MCP event streams',
    default: 15,
    parse: positiveNumber,
  },
  idleTimeoutSeconds: {
    env: 'IDLE_TIMEOUT_SECONDS',
    help: 'HTTP connections silent this long are closed (event streams send keep-alives)',
    default: 30,
    parse: integer(1, 255),
  },
  trustedProxies: {
    env: 'TRUSTED_PROXIES',
    help: 'comma-separated IPs/CIDR ranges of reverse proxies allowed to set the client address via X-Forwarded-For or Forwarded; empty: none',
    default: [] as string[],
    shownDefault: 'empty',
    parse: cidrList,
  },
  publicUrl: {
    env: 'PUBLIC_URL',
    help: "the gateway's address as clients reach it (e.g. https://gateway.example.com): x402 offers name their resources under it; unset: the request's Host (behind TRUSTED_PROXIES, the forwarded host)",
    default: undefined as string | undefined,
    shownDefault: 'unset',
    parse: optional(publicUrl),
  },
  siwx: {
    env: 'SIWX',
    help: "sign in with the wallet (x402's sign-in-with-x): a paid call's 402 carries a challenge, and a wallet's signed proof spends its credit as its API key would; proofs are bound to PUBLIC_URL (unset: to loopback and MCP_ALLOWED_ORIGINS hosts only)",
    default: true,
    parse: bool,
  },
  siwxSeconds: {
    env: 'SIWX_SECONDS',
    help: 'sign-in-with-x: how long a challenge is good for, and how old a proof may be',
    default: 300,
    parse: integer(30, 3600),
  },
  x402PaymentIdHours: {
    env: 'X402_PAYMENT_ID_HOURS',
    help: "x402's payment-identifier: how long a payment's id and the answer it got are kept, for a client that lost the answer to send the same payment again",
    default: 24,
    parse: integer(1, 720),
  },
  x402ReceiptKeypair: {
    env: 'X402_RECEIPT_KEYPAIR',
    help: "x402's offer-receipt: an Ed25519 keypair file (Solana CLI JSON) that signs every offer and every settlement's receipt; its public key is in the manifest and /.well-known/jwks.json; unset: none signed",
    default: undefined as string | undefined,
    shownDefault: 'unset',
    parse: optional(text),
  },
  serviceName: {
    env: 'SERVICE_NAME',
    help: 'the name catalogues list this gateway under (x402 bazaar entries, the MCP server card; at most 32 printable characters)',
    default: 'Chain Intelligence Gateway',
    parse: text,
  },
  serviceTags: {
    env: 'SERVICE_TAGS',
    help: "comma-separated tags catalogues file this gateway's resources under",
    default: ['solana', 'onchain-data', 'defi', 'tokens', 'transactions'],
    shownDefault: 'solana,onchain-data,defi,tokens,transactions (catalogues keep 5 tags of at most 32 characters)',
    parse: (raw: string) => raw.split(',').map((t) => t.trim()).filter(Boolean),
  },
  serviceIconUrl: {
    env: 'SERVICE_ICON_URL',
    help: "the icon catalogues show for this gateway (an http(s) URL); unset: the gateway's own /icon.svg",
    default: undefined as string | undefined,
    shownDefault: 'unset',
    parse: optional(publicUrl),
  },
  logLevel: { env: 'LOG_LEVEL', help: 'debug, info, warn or error', default: 'info' as LogLevel, parse: oneOf(LOG_LEVELS) },
  logFormat: {
    env: 'LOG_FORMAT',
    help: 'json: one JSON object per line (level, time, message, fields); text: for reading in a terminal',
    default: 'text' as LogFormat,
    parse: oneOf(LOG_FORMATS),
  },
  logBufferBytes: {
    env: 'LOG_BUFFER_BYTES',
    help: 'log lines held for a stderr that is not read fast enough; beyond it lines are dropped and counted (gateway_log_lines_dropped_total), requests never wait',
    default: 4 * 1024 * 1024,
    parse: integer(64 * 1024, 1024 * 1024 * 1024),
  },
  metricsToken: {
    env: 'METRICS_TOKEN',
    help: 'bearer token /metrics asks for; unset: /metrics is open',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    secret: true,
    parse: optional(text),
  },
  readyWindowSeconds: {
    env: 'READY_WINDOW_SECONDS',
    help: '/readyz answers 503 when no upstream has answered for this long (probed every third of it)',
    default: 30,
    parse: integer(1, 3600),
  },
  drainSeconds: {
    env: 'DRAIN_SECONDS',
    help: 'on SIGTERM/SIGINT, how long requests in flight may take to finish before the process exits',
    default: 10,
    parse: integer(0, 3600),
  },
  watchMaxWallets: { env: 'WATCH_MAX_WALLETS', help: 'most wallets one watch follows (POST /api/watches)', default: 100, parse: integer(1, 100_000) },
  watchMaxPerKey: { env: 'WATCH_MAX_PER_KEY', help: "most live watches of one key's wallet", default: 10, parse: integer(1, 10_000) },
  watchEventRetentionHours: {
    env: 'WATCH_EVENT_RETENTION_HOURS',
    help: 'hours a watch event is kept for pulls and replays (webhook retries stop with it)',
    default: 72,
    parse: integer(1, 24 * 365),
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    help: 'let watch webhooks use plain http and private or loopback addresses (tests and the sandbox only; logged at start)',
    default: false,
    parse: bool,
  },
  webhookDnsServers: {
    env: 'WEBHOOK_DNS_SERVERS',
    help: 'comma-separated DNS servers (ip or ip:port) webhook host names are resolved with; empty: the system resolver',
    default: [] as string[],
    shownDefault: 'the system resolver',
    parse: (raw: string) => raw.split(',').map((s) => s.trim()).filter(Boolean),
  },
  webhookTimeoutSeconds: { env: 'WEBHOOK_TIMEOUT_SECONDS', help: 'how long one webhook delivery may take, connection to answer', default: 10, parse: integer(1, 120) },
  webhookRetryBaseSeconds: { env: 'WEBHOOK_RETRY_BASE_SECONDS', help: 'first webhook retry delay; each further one doubles (with jitter) up to WEBHOOK_RETRY_MAX_SECONDS', default: 5, parse: positiveNumber },
  webhookRetryMaxSeconds: { env: 'WEBHOOK_RETRY_MAX_SECONDS', help: 'longest delay between two webhook retries', default: 3600, parse: positiveNumber },
  webhookFailingAfterSeconds: {
    env: 'WEBHOOK_FAILING_AFTER_SECONDS',
    help: 'a webhook failing this long has its watch marked failing (retries go on at the longest delay)',
    default: 86_400,
    parse: positiveNumber,
  },
  webhookSecretKey: {
    env: 'WEBHOOK_SECRET_KEY',
    help: 'key webhook secrets are sealed with in the database (replicas share it); unset: a random key in WEBHOOK_KEY_FILE',
    default: undefined as string | undefined,
    shownDefault: 'unset',
    secret: true,
    parse: optional(text),
  },
  webhookKeyFile: {
    env: 'WEBHOOK_KEY_FILE',
    help: 'file holding the webhook sealing key, made (mode 0600) on first start when WEBHOOK_SECRET_KEY is unset',
    default: undefined as string | undefined,
    shownDefault: 'webhook-secrets.key beside DATABASE_PATH',
    parse: optional(text),
  },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
export type Config = { -readonly [K in keyof Settings]: Settings[K]['default'] };
export type ConfigKey = keyof Config;

const flagName = (key: string) => '--' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());

export function defaultConfig(): Config {
  return Object.fromEntries(Object.entries(SETTINGS).map(([k, s]) => [k, s.default])) as Config;
}

/** Builds the config from argv flags and environment variables; throws ConfigError with a clear message. */
export function loadConfig(argv: string[], env: Record<string, string | undefined>): Config {
  const config = defaultConfig() as Record<string, unknown>;
  const fromFlags = new Map<string, string>();
  const byFlag = new Map(
    (Object.entries(SETTINGS) as [string, Setting<unknown>][]).flatMap(([k, s]) => [[flagName(k), k] as const, ...(s.aliases ?? []).map((a) => [a, k] as const)]),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const key = byFlag.get(name);
    if (!key) throw new ConfigError(`unknown option ${shown(name).slice(1, -1)} (see --help)`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new ConfigError(`option ${name} needs a value`);
    fromFlags.set(key, value);
  }
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = fromFlags.get(key) ?? env[setting.env];
    if (raw === undefined) continue;
    try {
      config[key] = setting.parse(raw);
    } catch (e) {
      if (e instanceof ConfigError) throw new ConfigError(`${setting.env} / ${flagName(key)}: ${e.message}`);
      throw e;
    }
  }
  const quorumUrls = (config as Config).paymentNetwork === 'devnet' ? (config as Config).devnetRpcUrls : (config as Config).mainnetRpcUrls;
  if ((config as Config).depositQuorum > quorumUrls.length) {
    throw new ConfigError(`DEPOSIT_QUORUM / --deposit-quorum: ${(config as Config).depositQuorum} exceeds the ${quorumUrls.length} RPC URL(s) of the payment network`);
  }
  checkX402(config as Config);
  return config as Config;
}

/** x402 is all or nothing: a half configuration names the setting that is missing or in the way. */
function checkX402(c: Config): void {
  const problem = (key: ConfigKey, why: string) => new ConfigError(`${SETTINGS[key].env} / ${flagName(key)}: ${why}`);
  if (c.x402Price === undefined) {
    if (Object.keys(c.x402Prices).length > 0) throw problem('x402Price', 'not set, but X402_PRICES is: set X402_PRICE to turn x402 on, or unset X402_PRICES');
    for (const key of ['x402PayTo', 'x402FeePayerKeypair', 'x402FacilitatorUrl'] as const) {
      if (c[key] !== undefined) throw problem('x402Price', `not set, but ${SETTINGS[key].env} is: set X402_PRICE to turn x402 on, or unset ${SETTINGS[key].env}`);
    }
    return;
  }
  if (c.x402FeePayerKeypair && c.x402FacilitatorUrl) throw problem('x402FacilitatorUrl', 'set together with X402_FEE_PAYER_KEYPAIR: choose the built-in facilitator (keypair) or an external one (URL), not both');
  if (!c.x402FeePayerKeypair && !c.x402FacilitatorUrl) throw problem('x402FeePayerKeypair', 'needed when X402_PRICE is set (a fee-payer keypair file for the built-in facilitator), or set X402_FACILITATOR_URL');
  if (!c.x402PayTo && !c.gatewayAddress) throw problem('x402PayTo', 'needed when X402_PRICE is set and GATEWAY_ADDRESS is not: the owner whose token account is paid into');
}

/**
 * PRICES and X402_PRICES name paid capabilities only: a typo, or a free capability (which no key
 * and no payment is asked for), stops the start with one line naming the setting and the name.
 * The capabilities are handed in: settings know no other part.
 */
export function checkPrices(c: Config, capabilities: readonly { name: string; paid: boolean }[]): void {
  const paid = capabilities.filter((cap) => cap.paid).map((cap) => cap.name);
  for (const key of ['prices', 'x402Prices'] as const) {
    for (const name of Object.keys(c[key])) {
      if (paid.includes(name)) continue;
      const why = capabilities.some((cap) => cap.name === name) ? `${name} is free: only paid capabilities have a price` : `${shown(name)} is not a capability`;
      throw new ConfigError(`${SETTINGS[key].env} / ${flagName(key)}: ${why} (paid ones: ${paid.join(', ')})`);
    }
  }
}

/**
 * The database folder must exist and be writable before anything opens: a typo in DATABASE_PATH
 * should stop the start, not scatter a fresh empty database somewhere. Only the default ./data is
 * created (the zero-configuration start).
 */
export function checkDatabasePath(config: Config): void {
  const path = config.databasePath;
  if (path === ':memory:') return;
  const dir = dirname(resolve(path));
  const problem = (why: string) => new ConfigError(`DATABASE_PATH / --database-path: ${why} (${shown(path)})`);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    if (path === DEFAULT_DATABASE_PATH) return;
    throw problem(`the folder ${shown(dir)} does not exist; create it first`);
  }
  if (!isDir) throw problem(`${shown(dir)} is not a folder`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw problem(`the folder ${shown(dir)} is not writable by this user`);
  }
  try {
    if (!statSync(path).isFile()) throw problem('it names something that is not a file');
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw problem('the file is not readable and writable by this user');
  }
  // Permission bits do not bind root, and some file systems refuse writes anyway (/proc, read-only
  // mounts): open the file for appending, as SQLite will (an empty file is a valid new database).
  try {
    closeSync(openSync(path, 'a'));
  } catch (e) {
    throw problem(`the file cannot be opened for writing (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Values that must never reach a log line or an error body (RPC URLs often embed API keys). */
export function secretsOf(config: Config): string[] {
  const out: string[] = [];
  for (const [key, setting] of Object.entries(SETTINGS) as [ConfigKey, Setting<unknown>][]) {
    if (!setting.secret) continue;
    const v = config[key];
    for (const s of Array.isArray(v) ? v : [v]) if (typeof s === 'string' && s.length >= 6) out.push(s);
  }
  return out;
}

/** `text` in lines of at most `width` characters, broken between words (a longer word is cut). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.length > width) {
      if (line) lines.push(line);
      line = '';
      lines.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (!word) continue;
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** Help text narrower than this goes under its names instead of beside them. */
const MIN_TEXT_COLUMN = 32;

/**
 * Rows of names (flag, variable, ...) and a text, as aligned columns no wider than `width`: each
 * name column as wide as its longest entry, the text wrapped beside them, or under them (indented)
 * when the names leave it less than MIN_TEXT_COLUMN characters; names that do not fit on one line
 * together go one per line.
 */
export function helpColumns(rows: readonly (readonly string[])[], width: number): string[] {
  const names = Math.max(...rows.map((r) => r.length - 1));
  const widths = Array.from({ length: names }, (_, i) => Math.max(...rows.map((r) => (i < r.length - 1 ? r[i]!.length : 0))));
  const nameLine = (row: readonly string[]) => `  ${widths.map((w, i) => (row.slice(0, -1)[i] ?? '').padEnd(w)).join('  ')}`;
  const textAt = 2 + widths.reduce((sum, w) => sum + w + 2, 0);
  const beside = width - textAt >= MIN_TEXT_COLUMN;
  return rows.flatMap((row) => {
    const text = row[row.length - 1]!;
    if (beside) return wrapText(text, width - textAt).map((l, i) => (i === 0 ? `${nameLine(row).padEnd(textAt)}${l}` : `${' '.repeat(textAt)}${l}`).trimEnd());
    const names = textAt - 2 <= width ? [nameLine(row).trimEnd()] : row.slice(0, -1).filter(Boolean).flatMap((n) => wrapText(n, width - 2).map((l) => `  ${l}`));
    return [...names, ...wrapText(text, width - 6).map((l) => `      ${l}`)];
  });
}

/** What `gateway --help` prints about the settings, laid out for a terminal `width` columns wide. */
export function helpText(width = 80): string {
  const rows = Object.entries(SETTINGS).map(([key, s]: [string, Setting<unknown>]) => {
    const def = s.shownDefault ?? (Array.isArray(s.default) ? s.default.join(',') : String(s.default));
    return [flagName(key), s.env, `${s.help} [default: ${def}]`];
  });
  return [
    ...wrapText('Chain Intelligence Gateway: processed Solana data for AI agents over REST and MCP.', width),
    '',
    ...wrapText('Usage: gateway [options]', width),
    '',
    ...wrapText('Every option may also be given as the environment variable beside it; a flag wins.', width),
    '',
    ...helpColumns([['option', 'environment', 'meaning'], ...rows, ['--help', '', 'show this text']], width),
    '',
  ].join('\n');
}
