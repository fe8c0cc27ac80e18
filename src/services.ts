// Wires config into the long-lived parts: database, upstreams, ledger, payments, rate limiter and
// the deposit watcher. main.ts and the tests build the gateway the same way. DATABASE_URL puts
// billing state and rate limits in PostgreSQL (shared by replicas); otherwise the SQLite file.
import { Upstream } from './chain/upstream.ts';
import { checkPrices, ConfigError, NETWORKS, type Config, type Network } from './config.ts';
import { CAPABILITIES } from './capabilities/registry.ts';
import { BUSY_TIMEOUT_MS, openDatabase, probeWritable, type Db } from './db/client.ts';
import type { Logger } from './log.ts';
import { Ledger } from './billing/ledger.ts';
import { createPayments } from './billing/payments.ts';
import { RateLimiter } from './billing/rate-limit.ts';
import { UsageLog, type UsageHistory } from './billing/usage.ts';
import type { UsageCursor } from './billing/usage-pages.ts';
import { sqliteStore } from './billing/sqlite-store.ts';
import type { BillingStore } from './billing/store.ts';
import { DepositWatcher } from './billing/watcher.ts';
import { depositQuorum, type DepositQuorum } from './billing/quorum.ts';
import type { CapabilityContext } from './capabilities/capability.ts';
import type { CallDeps } from './calls/pipeline.ts';
import { InFlight } from './calls/in-flight.ts';
import { KeptWrites } from './billing/kept-writes.ts';
import { builtInFacilitator, externalFacilitator, loadFeePayer } from './billing/x402/facilitator.ts';
import { createX402, type X402 } from './billing/x402/payments.ts';
import { X402Accounts } from './billing/x402/accounts.ts';
import { McpSessions } from './mcp/sessions.ts';
import { Readiness } from './readiness.ts';
import { guard, guardStore, StorageOutage } from './billing/outage.ts';
import { LATE, within } from './within.ts';
import { createWatching, type Watching } from './watch/index.ts';
import type { Watches } from './watch/watches.ts';
import { WATCH_EVENT } from './watch/watches.ts';
import { watchTools } from './watch/mcp.ts';
import type { ExtraTools } from './mcp/tools.ts';

export interface Services extends CallDeps {
  config: Config;
  /** The SQLite database; absent when DATABASE_URL selects PostgreSQL. */
  db?: Db;
  store: BillingStore;
  upstreams: Record<Network, Upstream>;
  watcher?: DepositWatcher;
  quorum?: DepositQuorum;
  mcp: McpSessions;
  readiness: Readiness;
  /** Watches (issue 40): the sink the ingester records into, and the webhook sender. */
  watches: Watches;
  watching: Watching;
  extraTools: ExtraTools;
  /** Set when a graceful stop begins: /readyz answers 503 from then on. */
  stopping: boolean;
  startedAt: number;
  close(): Promise<void>;
}

/** How long a SQLite write waits for a lock held elsewhere while an outage lasts. */
const OUTAGE_BUSY_TIMEOUT_MS = 250;

/**
 * x402 when X402_PRICE turns it on: the built-in facilitator (fee-payer keypair) or an external
 * one, and the accounts its payments depend on, checked before the gateway serves.
 */
async function x402Of(config: Config, store: BillingStore, upstreams: Record<Network, Upstream>, log: Logger, kept: KeptWrites): Promise<{ x402: X402; accounts: X402Accounts } | undefined> {
  if (config.x402Price === undefined) return undefined;
  const signer = config.x402FacilitatorUrl ? undefined : await loadFeePayer(config.x402FeePayerKeypair!);
  const facilitator = !signer
    ? externalFacilitator(config.x402FacilitatorUrl!, config.paymentNetwork)
    : builtInFacilitator({
        signer,
        rpc: upstreams[config.paymentNetwork],
        network: config.paymentNetwork,
        asset: config.x402Asset,
        maxComputeUnitPrice: config.x402MaxComputeUnitPrice,
        settleMs: config.x402SettleSeconds * 1000,
      });
  const accounts = new X402Accounts(upstreams[config.paymentNetwork], {
    network: config.paymentNetwork,
    asset: config.x402Asset,
    payTo: (config.x402PayTo ?? config.gatewayAddress)!,
    feePayer: signer?.address,
    minFeePayerLamports: config.x402FeePayerMinLamports,
  });
  await checkAccounts(accounts, config, log);
  return { x402: createX402(config, store, facilitator, log, kept, accounts), accounts };
}

/**
 * The start's look at x402's accounts. A missing or wrong mint, or a pay-to owner without a token
 * account for it, would fail every payment: the start stops with a line naming the account (the
 * gateway creates no account on its own: that spends the operator's SOL on an address they may
 * have mistyped). A fee payer short of SOL is warned of by the readiness probe, which starts with
 * the server, reads the accounts again and logs what it finds; so is a chain that cannot answer now.
 */
async function checkAccounts(accounts: X402Accounts, config: Config, log: Logger): Promise<void> {
  let report;
  try {
    const read = await within(accounts.read(), config.rpcTimeoutMs);
    if (read === LATE) throw new Error(`no answer within ${config.rpcTimeoutMs} ms`);
    report = read;
  } catch (e) {
    log.warn('x402 accounts not checked at start: the chain did not answer; /readyz reports them once it does', { error: e instanceof Error ? e.message : String(e) });
    return;
  }
  if (report.tokenProgram === null) throw new ConfigError(`X402_ASSET / --x402-asset: ${report.problems[0]}`);
  if (!report.payToTokenAccountExists) throw new ConfigError(`${config.x402PayTo ? 'X402_PAY_TO / --x402-pay-to' : 'GATEWAY_ADDRESS / --gateway-address'}: ${report.problems[0]}`);
}

/** Resolves once the database is open and migrated; rejects when it cannot be (ConfigError: a price for no paid capability, an x402 key file that cannot serve). */
export async function createServices(config: Config, log: Logger): Promise<Services> {
  checkPrices(config, [...CAPABILITIES, { name: WATCH_EVENT, paid: true }]);
  // Postgres code loads only when asked for: the embedded default starts as it always did.
  const pgModules = config.databaseUrl
    ? await Promise.all([import('./billing/pg-store.ts'), import('./billing/pg-rate-limit.ts'), import('./billing/pg-usage.ts')])
    : undefined;
  const pg = pgModules ? pgModules[0].pgStore(config.databaseUrl!) : undefined;
  const db = pg ? undefined : openDatabase(config.databasePath);
  const ledger = db ? new Ledger(db, config.ledgerSync) : undefined;
  const raw = pg ?? sqliteStore(db!, ledger);
  try {
    await raw.ready;
  } catch (e) {
    await raw.close().catch(() => {});
    throw e;
  }
  // SQLite: probed with its write lock, and with a committed write while an outage lasts (a full
  // disk still grants the lock); during one a write waits for a lock held elsewhere only briefly,
  // so that a paid call is answered at once instead of holding the event loop for the whole busy timeout.
  const storage = pg ? new StorageOutage('postgres', log, () => pg.ping()) : new StorageOutage('sqlite', log, (outage) => probeWritable(db!.$client, outage));
  if (db) storage.onChange = (available) => db.$client.run(`PRAGMA busy_timeout = ${available ? BUSY_TIMEOUT_MS : OUTAGE_BUSY_TIMEOUT_MS}`);
  const store = guardStore(raw, storage);
  const urls: Record<Network, string[]> = { 'mainnet-beta': config.mainnetRpcUrls, devnet: config.devnetRpcUrls };
  const upstreams = Object.fromEntries(
    NETWORKS.map((n) => [n, new Upstream({ label: n, urls: urls[n], timeoutMs: config.rpcTimeoutMs, retries: config.rpcRetries, maxBodyBytes: config.upstreamMaxBodyBytes, log })]),
  ) as Record<Network, Upstream>;
  // Refunds and x402 releases the database could not take when they were made, written when it answers again.
  const kept = new KeptWrites(log);
  let x402: Awaited<ReturnType<typeof x402Of>>;
  try {
    x402 = await x402Of(config, store, upstreams, log, kept);
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  const pay = config.paymentNetwork;
  const quorum =
    config.gatewayAddress && config.depositQuorum > 1
      ? depositQuorum({
          witnesses: urls[pay].map((url, i) => new Upstream({ label: `${pay} node ${i + 1}`, urls: [url], timeoutMs: config.rpcTimeoutMs, retries: config.rpcRetries, maxBodyBytes: config.upstreamMaxBodyBytes, log })),
          required: config.depositQuorum,
          gateway: config.gatewayAddress,
          log,
        })
      : undefined;
  const ctx: CapabilityContext = { rpc: (n) => upstreams[n], config, log };
  const watcher =
    config.gatewayAddress && config.depositPollSeconds > 0
      ? new DepositWatcher({ store, rpc: upstreams[config.paymentNetwork], network: config.paymentNetwork, gateway: config.gatewayAddress, minDepositLamports: config.minDepositLamports, log, confirm: quorum?.confirm })
      : undefined;
  const local = new RateLimiter(config.rateLimitRps, config.rateLimitBurst);
  const limiter =
    pg && pgModules && config.rateLimitRps > 0
      ? new pgModules[1].PgRateLimiter(pg.client, config.rateLimitRps, config.rateLimitBurst, { local, outage: storage })
      : local;
  const usageLog =
    pg && pgModules
      ? new pgModules[2].PgUsageLog(pg.db, config.usageRetentionDays, log, config.usageQueueRows, (before) => pg.ledger.prune(before))
      : new UsageLog(db!, ledger!, config.usageRetentionDays, log, config.usageQueueRows);
  const usage: UsageHistory = {
    record: (debit, call) => usageLog.record(debit, call),
    page: guard(storage, (wallet: string, limit: number, cursor?: UsageCursor) => usageLog.page(wallet, limit, cursor)),
    settled: (withinMs) => usageLog.settled(withinMs),
  };
  const mcp = new McpSessions({
    maxSessions: config.mcpMaxSessions,
    maxPerAddress: config.mcpMaxSessionsPerAddress,
    maxPerKey: config.mcpMaxSessionsPerKey,
    idleTtlMs: config.mcpSessionTtlSeconds * 1000,
    streamIdleMs: config.mcpStreamIdleSeconds * 1000,
    log,
  });
  const inFlight = new InFlight(log);
  const watching = await createWatching({ config, log, billing: store, storage, sqlite: db?.$client, pg: pg?.client });
  const payments = createPayments(store, config, kept);
  const readiness = new Readiness(storage, upstreams, config.readyWindowSeconds * 1000, log, x402?.accounts);
  return {
    config,
    log,
    db,
    store,
    upstreams,
    ctx,
    payments,
    x402: x402?.x402,
    usage,
    inFlight,
    limiter,
    watcher,
    quorum,
    mcp,
    readiness,
    watches: watching.watches,
    watching,
    extraTools: watchTools(watching.watches, { payments, limiter, log }),
    stopping: false,
    startedAt: Date.now(),
    async close() {
      readiness.stop();
      // Closing the event streams refunds the answers they still held; those refunds, the calls
      // still running and the usage rows that record them are written before the database closes.
      await mcp.closeAll();
      await inFlight.settled();
      // What the database could not take yet gets a bounded wait; what is still unwritten then is
      // counted and logged (docs/operations.md, "Writes the database could not take").
      const within = config.drainSeconds * 1000;
      await kept.settled(within);
      await usage.settled(within);
      await watcher?.stop();
      await watching.close();
      if ('close' in limiter) limiter.close();
      await store.close();
    },
  };
}
