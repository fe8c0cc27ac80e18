// Wires config into the long-lived parts: database, upstreams, ledger, payments, rate limiter and
// the deposit watcher. main.ts and the tests build the gateway the same way.
import { Upstream } from './chain/upstream.ts';
import { NETWORKS, type Config, type Network } from './config.ts';
import { openDatabase, type Db } from './db/client.ts';
import type { Logger } from './log.ts';
import { Ledger } from './billing/ledger.ts';
import { createPayments } from './billing/payments.ts';
import { RateLimiter } from './billing/rate-limit.ts';
import { UsageLog } from './billing/usage.ts';
import { DepositWatcher } from './billing/watcher.ts';
import { depositQuorum, type DepositQuorum } from './billing/quorum.ts';
import type { CapabilityContext } from './capabilities/capability.ts';
import type { CallDeps } from './calls/pipeline.ts';
import { McpSessions } from './mcp/sessions.ts';
import { Readiness } from './readiness.ts';

export interface Services extends CallDeps {
  config: Config;
  db: Db;
  ledger: Ledger;
  upstreams: Record<Network, Upstream>;
  watcher?: DepositWatcher;
  quorum?: DepositQuorum;
  mcp: McpSessions;
  readiness: Readiness;
  /** Set when a graceful stop begins: /readyz answers 503 from then on. */
  stopping: boolean;
  startedAt: number;
  close(): Promise<void>;
}

export function createServices(config: Config, log: Logger): Services {
  const db = openDatabase(config.databasePath);
  const urls: Record<Network, string[]> = { 'mainnet-beta': config.mainnetRpcUrls, devnet: config.devnetRpcUrls };
  const upstreams = Object.fromEntries(
    NETWORKS.map((n) => [n, new Upstream({ label: n, urls: urls[n], timeoutMs: config.rpcTimeoutMs, retries: config.rpcRetries, maxBodyBytes: config.upstreamMaxBodyBytes, log })]),
  ) as Record<Network, Upstream>;
  const ledger = new Ledger(db, config.ledgerSync);
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
      ? new DepositWatcher({ db, rpc: upstreams[config.paymentNetwork], network: config.paymentNetwork, gateway: config.gatewayAddress, minDepositLamports: config.minDepositLamports, log, confirm: quorum?.confirm })
      : undefined;
  const mcp = new McpSessions({
    maxSessions: config.mcpMaxSessions,
    maxPerAddress: config.mcpMaxSessionsPerAddress,
    maxPerKey: config.mcpMaxSessionsPerKey,
    idleTtlMs: config.mcpSessionTtlSeconds * 1000,
    streamIdleMs: config.mcpStreamIdleSeconds * 1000,
    log,
  });
  return {
    config,
    log,
    db,
    ledger,
    upstreams,
    ctx,
    payments: createPayments(db, ledger, config),
    usage: new UsageLog(db, ledger, config.usageRetentionDays, log),
    limiter: new RateLimiter(config.rateLimitRps, config.rateLimitBurst),
    watcher,
    quorum,
    mcp,
    readiness: new Readiness(db, upstreams, config.readyWindowSeconds * 1000),
    stopping: false,
    startedAt: Date.now(),
    async close() {
      this.readiness.stop();
      await mcp.closeAll();
      await watcher?.stop();
      ledger.settle();
      db.$client.close();
    },
  };
}
