// Wires config into the long-lived parts: billing's storage (the one seam, billing/backend/open.ts),
// upstreams, payments, rate limiter and the deposit watcher. main.ts and the tests build the gateway
// the same way.
import { Upstream } from './chain/upstream.ts';
import { checkPrices, ConfigError, NETWORKS, type Config, type Network } from './config.ts';
import { CAPABILITIES } from './capabilities/registry.ts';
import type { Logger } from './log.ts';
import { openBackend } from './billing/backend/open.ts';
import type { Backend } from './billing/backend/open.ts';
import { createPayments } from './billing/payments.ts';
import type { BillingStore, X402Records } from './billing/store.ts';
import { DepositWatcher } from './billing/watcher.ts';
import { depositQuorum, type DepositQuorum } from './billing/quorum.ts';
import type { CapabilityContext } from './capabilities/capability.ts';
import type { CallDeps } from './calls/pipeline.ts';
import { InFlight } from './calls/in-flight.ts';
import { KeptWrites } from './billing/resilience/kept-writes.ts';
import { builtInFacilitator, externalFacilitator, loadFeePayer } from './billing/x402/facilitator.ts';
import { createX402, type X402 } from './billing/x402/payments.ts';
import { X402Accounts } from './billing/x402/accounts.ts';
import { X402Settleable } from './billing/x402/settleable.ts';
import { pgExtensionStore, sqliteExtensionStore } from './billing/x402/ext-store.ts';
import { createSignIn } from './billing/x402/siwx.ts';
import { createPaymentIds } from './billing/x402/payment-id.ts';
import { loadReceipts, type Receipts } from './billing/x402/receipts.ts';
import { allowedHosts } from './mcp/origin.ts';
import { McpSessions } from './mcp/sessions.ts';
import { Readiness } from './readiness.ts';
import { LATE, within } from './within.ts';
import { createWatching, type Watching } from './watch/index.ts';
import type { Watches } from './watch/watches.ts';
import { WATCH_EVENT } from './watch/watches.ts';
import { watchTools } from './watch/mcp.ts';
import type { ExtraTools } from './mcp/tools.ts';

export interface Services extends CallDeps {
  config: Config;
  store: BillingStore;
  /** Another part's store on billing's database, guarded like billing's own (backend.ts storeOf). */
  storeOf: Backend['storeOf'];
  upstreams: Record<Network, Upstream>;
  watcher?: DepositWatcher;
  quorum?: DepositQuorum;
  mcp: McpSessions;
  readiness: Readiness;
  /** X402_RECEIPT_KEYPAIR: signs offers and receipts; its public key is published. */
  receipts?: Receipts;
  /** Watches (issue 40): the sink the ingester records into, and the webhook sender. */
  watches: Watches;
  watching: Watching;
  extraTools: ExtraTools;
  /** Set when a graceful stop begins: /readyz answers 503 from then on. */
  stopping: boolean;
  startedAt: number;
  close(): Promise<void>;
}

/** A URL on loopback: a chain on this machine (the sandbox), not a real network. */
function onThisMachine(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

/** While x402 cannot settle, its accounts and facilitator are read this often: a fix is seen within about this long. */
const X402_FAULT_POLL_MS = 1_000;

/**
 * x402 when X402_PRICE turns it on: the built-in facilitator (fee-payer keypair) or an external
 * one, and the accounts its payments depend on, checked before the gateway serves.
 */
async function x402Of(config: Config, store: X402Records, upstreams: Record<Network, Upstream>, log: Logger, kept: KeptWrites, receipts?: Receipts): Promise<{ x402: X402; settleable: X402Settleable } | undefined> {
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
    local: (config.paymentNetwork === 'devnet' ? config.devnetRpcUrls : config.mainnetRpcUrls).every(onThisMachine),
  });
  await checkAccounts(accounts, config, log);
  // Read every second while a fault lasts; while all is well as often as the readiness probe asks its upstreams.
  const settleable = new X402Settleable(accounts, facilitator, log, {
    faultMs: X402_FAULT_POLL_MS,
    healthyMs: Math.max(X402_FAULT_POLL_MS, Math.floor((config.readyWindowSeconds * 1000) / 3)),
    probeTimeoutMs: config.rpcTimeoutMs,
  });
  return { x402: createX402(config, store, facilitator, log, kept, settleable, receipts), settleable };
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
  const backend = await openBackend(config, log);
  const { store, usage, limiter } = backend;
  const urls: Record<Network, string[]> = { 'mainnet-beta': config.mainnetRpcUrls, devnet: config.devnetRpcUrls };
  const upstreams = Object.fromEntries(
    NETWORKS.map((n) => [n, new Upstream({ label: n, urls: urls[n], timeoutMs: config.rpcTimeoutMs, retries: config.rpcRetries, maxBodyBytes: config.upstreamMaxBodyBytes, log })]),
  ) as Record<Network, Upstream>;
  // Refunds and x402 releases the database could not take when they were made, written when it answers again.
  const kept = new KeptWrites(log);
  let x402: Awaited<ReturnType<typeof x402Of>>;
  let receipts: Receipts | undefined;
  try {
    receipts = config.x402ReceiptKeypair ? loadReceipts(config.x402ReceiptKeypair) : undefined;
    x402 = await x402Of(config, store, upstreams, log, kept, receipts);
  } catch (e) {
    await backend.close().catch(() => {});
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
  const mcp = new McpSessions({
    maxSessions: config.mcpMaxSessions,
    maxPerAddress: config.mcpMaxSessionsPerAddress,
    maxPerKey: config.mcpMaxSessionsPerKey,
    idleTtlMs: config.mcpSessionTtlSeconds * 1000,
    streamIdleMs: config.mcpStreamIdleSeconds * 1000,
    log,
  });
  // x402's extensions: what they keep is on the billing database, so every replica sees it.
  const extensionStore = backend.storeOf({ sqlite: sqliteExtensionStore, postgres: pgExtensionStore });
  // Sign-in spends credit, which only deposits make: offered where deposits are configured.
  const signIn =
    config.siwx && config.gatewayAddress
      ? createSignIn({ paymentNetwork: config.paymentNetwork, publicUrl: config.publicUrl, localHosts: allowedHosts(config), seconds: config.siwxSeconds }, extensionStore)
      : undefined;
  const paymentIds = x402 ? createPaymentIds(extensionStore, config.x402PaymentIdHours * 3_600_000, config.x402SettleSeconds * 1000 + 120_000) : undefined;
  const inFlight = new InFlight(log);
  let watching: Watching;
  try {
    watching = await createWatching({ config, log, billing: store, storeOf: backend.storeOf, rpc: (n) => upstreams[n] });
  } catch (e) {
    await backend.close().catch(() => {});
    throw e;
  }
  const payments = createPayments(store, config, kept);
  const readiness = new Readiness(backend.health, upstreams, config.readyWindowSeconds * 1000, log, x402?.settleable);
  return {
    config,
    log,
    store,
    storeOf: backend.storeOf,
    upstreams,
    ctx,
    payments,
    x402: x402?.x402,
    signIn,
    paymentIds,
    receipts,
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
      await backend.close();
    },
  };
}
