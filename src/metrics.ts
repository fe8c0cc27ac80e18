// Prometheus metrics (prom-client; runs inside the compiled binary). One registry per process: the
// parts that count (pipeline, upstream, ledger, watcher, MCP sessions) each call one line here.
// Labels hold only bounded, public values: route templates, capability and RPC method names,
// upstream positions ("1", "2"), outcomes. Never a URL, key, session id or wallet.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
const registers = [registry];

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Counts and times kept per label set in plain numbers, for the metrics every request touches:
 * prom-client's own inc/observe hash and validate the labels each time, which cost a cached call
 * about a tenth of its CPU (bench/hot-path.ts with BENCH_PROFILE). prom-client still formats them.
 */
class Tally<L extends string> {
  private readonly all = new Map<string, { labels: Record<L, string>; counts: Float64Array; sum: number }>();
  readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly buckets: readonly number[] = [],
  ) {
    this.type = buckets.length > 0 ? 'histogram' : 'counter';
    registry.registerMetric(this as never);
  }

  /** The series for one label set, to be kept by the caller (label values must come from a closed set). */
  series(labels: Record<L, string>): { add(value?: number): void } {
    const id = this.labelNames.map((n) => labels[n]).join('\u0000');
    let series = this.all.get(id);
    if (!series) this.all.set(id, (series = { labels: { ...labels }, counts: new Float64Array(this.buckets.length + 1), sum: 0 }));
    const s = series;
    const buckets = this.buckets;
    return {
      add(value = 1) {
        let i = 0;
        while (i < buckets.length && value > buckets[i]!) i++;
        s.counts[i]!++;
        s.sum += value;
      },
    };
  }

  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName?: string }[] = [];
    for (const { labels, counts, sum } of this.all.values()) {
      if (this.type === 'counter') {
        values.push({ labels, value: sum });
        continue;
      }
      let cumulative = 0;
      this.buckets.forEach((le, i) => values.push({ labels: { ...labels, le }, value: (cumulative += counts[i]!), metricName: `${this.name}_bucket` }));
      cumulative += counts[this.buckets.length]!;
      values.push({ labels: { ...labels, le: '+Inf' }, value: cumulative, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: cumulative, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset() {
    this.all.clear();
  }
}

export const httpRequests = new Tally('gateway_http_requests_total', 'HTTP requests answered, by route template, method, status and face (rest, mcp, meta)', [
  'route',
  'method',
  'status',
  'face',
] as const);

export const httpDuration = new Tally(
  'gateway_http_request_duration_seconds',
  'Time to the response head (event streams: until the stream opened), by route template',
  ['route', 'face'] as const,
  SECONDS,
);

export const logLinesDropped = new Tally(
  'gateway_log_lines_dropped_total',
  'Log lines dropped because stderr was not read fast enough and the log buffer was full',
  [],
);

export const upstreamRequests = new Counter({
  name: 'gateway_upstream_requests_total',
  help: 'Upstream RPC attempts by network, method, upstream position and outcome',
  labelNames: ['network', 'method', 'upstream', 'outcome'] as const,
  registers,
});

export const upstreamDuration = new Histogram({
  name: 'gateway_upstream_request_duration_seconds',
  help: 'Upstream RPC attempt latency by network, upstream position and outcome',
  labelNames: ['network', 'upstream', 'outcome'] as const,
  buckets: SECONDS,
  registers,
});

export const upstreamCache = new Tally('gateway_upstream_cache_total', 'Cacheable upstream calls served from memory (hit) or fetched (miss)', ['network', 'result'] as const);

export const mcpSessions = new Gauge({
  name: 'gateway_mcp_sessions',
  help: 'Open MCP sessions by transport',
  labelNames: ['transport'] as const,
  registers,
});

export const paidCalls = new Tally(
  'gateway_paid_calls_total',
  'Paid capability calls charged, by capability and outcome (success keeps the charge, refunded gives it back)',
  ['capability', 'outcome'] as const,
);

export const debitedLamports = new Tally('gateway_debited_lamports_total', 'Lamports taken from credit by paid calls (free calls take none)', []);
export const refundedLamports = new Tally('gateway_refunded_lamports_total', 'Lamports given back by refunds of failed paid calls', []);

export const deposits = new Counter({
  name: 'gateway_deposits_total',
  help: 'Transfers to the deposit address, by outcome (credited; dust: summed until the minimum; below_minimum: left by the webhook to the watcher) and source',
  labelNames: ['status', 'source'] as const,
  registers,
});

export const depositLamports = new Counter({ name: 'gateway_deposited_lamports_total', help: 'Lamports received that count toward credit (credited deposits and dust)', registers });

let lastWatcherScan: number | undefined;
/** The deposit watcher calls this after each complete scan. */
export const watcherScanned = (at = Date.now()) => void (lastWatcherScan = at);

/** A gauge read when scraped, absent while `value` knows nothing yet. */
function gaugeOf(name: string, help: string, value: () => number | undefined): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      const v = value();
      if (v === undefined) this.reset();
      else this.set(v);
    },
  });
}

gaugeOf('gateway_watcher_lag_seconds', 'Seconds since the deposit watcher last finished a scan (absent while it has not)', () =>
  lastWatcherScan === undefined ? undefined : (Date.now() - lastWatcherScan) / 1000,
);

export const ledgerBatch = new Histogram({
  name: 'gateway_ledger_batch_size',
  help: 'Debits and refunds committed together by one ledger group commit',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
  registers,
});

export const ledgerCommit = new Histogram({
  name: 'gateway_ledger_commit_seconds',
  help: 'Time of one ledger group commit, synced to disk',
  buckets: SECONDS,
  registers,
});

export const ledgerReplanned = new Counter({
  name: 'gateway_ledger_replanned_total',
  help: 'Postgres ledger batches sent at once that found the database not as this replica planned (a balance changed elsewhere, a draw refused, a key revoked), and went through the locking transaction instead',
  registers,
});

export const keptWrites = new Gauge({
  name: 'gateway_kept_writes',
  help: 'Writes owed to the database that it could not take yet, retried until it does, by kind: refund (of a failed call), x402_release, x402_finish',
  labelNames: ['kind'] as const,
  registers,
});

export const keptWritesGivenUp = new Counter({
  name: 'gateway_kept_writes_given_up_total',
  help: 'Kept writes still unwritten when a graceful stop ended its wait for them (each is also logged with what it owed)',
  labelNames: ['kind'] as const,
  registers,
});

let usageBacklog: () => number = () => 0;
/** The usage history tells how many rows wait (read when scraped: the paid path pays nothing for it). */
export const usageBacklogOf = (read: () => number) => void (usageBacklog = read);
gaugeOf('gateway_usage_rows_pending', 'Usage rows recorded and not yet written to the database (at most USAGE_QUEUE_ROWS)', () => usageBacklog());

export const usageRowsDropped = new Counter({
  name: 'gateway_usage_rows_dropped_total',
  help: 'Usage rows lost: refused because USAGE_QUEUE_ROWS rows already waited for the database, or still unwritten when a graceful stop ended its wait',
  labelNames: ['reason'] as const,
  registers,
});

export const storageRefused = new Counter({
  name: 'gateway_storage_unavailable_total',
  help: 'Database operations that failed because the storage was away (answered storage_unavailable, or a free call falling back), by reason: unreachable, timeout, shutting down, disk full, read-only, locked, I/O error',
  labelNames: ['reason'] as const,
  registers,
});

export const storageAvailable = new Gauge({
  name: 'gateway_storage_available',
  help: '1 while the database answers, 0 during a storage outage (from the first failed operation or probe until a probe succeeds)',
  registers,
});

let databaseFree: number | undefined;
/** The SQLite file system's free bytes as last read (db/disk-space.ts). */
export const databaseFreeRead = (bytes: number) => void (databaseFree = bytes);
gaugeOf('gateway_database_free_bytes', "Free bytes on the SQLite database's file system, as last read (absent on PostgreSQL)", () => databaseFree);

export const rateLimited = new Counter({ name: 'gateway_rate_limited_total', help: 'Requests refused with 429', registers });

export const x402Payments = new Counter({
  name: 'gateway_x402_payments_total',
  help: 'x402 payments by outcome: verified (recorded, its call runs), settled, released (the call failed: never submitted), refused (by reason code)',
  labelNames: ['outcome', 'reason'] as const,
  registers,
});

export const x402SettledUnits = new Counter({ name: 'gateway_x402_settled_units_total', help: 'Atomic token units received through settled x402 payments', registers });

let feePayerLamports: bigint | undefined;
/** The x402 fee payer's balance as last read (readiness.ts reads it with the upstream probe). */
export const x402FeePayerRead = (lamports: bigint) => void (feePayerLamports = lamports);

gaugeOf('gateway_x402_fee_payer_lamports', "The built-in x402 facilitator's fee payer's SOL balance, in lamports (absent without one)", () =>
  feePayerLamports === undefined ? undefined : Number(feePayerLamports),
);

/** 1 while x402 is offered in 402s (its payments can settle), 0 while a fault on the gateway's side takes the offer out (billing/x402/settleable.ts). */
export const x402Offered = new Gauge({ name: 'gateway_x402_offered', help: "1 while 402 answers offer x402 (payments can settle), 0 while the gateway's own fault (fee payer, pay-to account, facilitator) keeps it out", registers });

/** By cause: 1 while it stops x402 payments. */
export const x402Fault = new Gauge({
  name: 'gateway_x402_fault',
  help: 'x402 faults on the gateway side, 1 while present, by cause: fee_payer, pay_to, asset, facilitator',
  labelNames: ['cause'] as const,
  registers,
});

export const paymentRequired = new Counter({
  name: 'gateway_payment_required_total',
  help: 'Paid calls refused with 402, by reason (no_key, unknown_key, revoked_key, revoked_by_operator, no_credit, x402_refused)',
  labelNames: ['reason'] as const,
  registers,
});

// Watch ingestion (src/watch/ingest): subscriptions on the node's sockets, transactions handed to the
// watches, and how far behind the node's slot the newest of them was when it was recorded.
export const watchSubscriptions = new Gauge({ name: 'gateway_watch_subscriptions', help: 'logsSubscribe subscriptions open on the nodes, by network and commitment', labelNames: ['network', 'commitment'] as const, registers });
export const watchSockets = new Gauge({ name: 'gateway_watch_sockets', help: 'WebSocket connections open to the nodes, by network and commitment', labelNames: ['network', 'commitment'] as const, registers });
export const watchIngested = new Counter({
  name: 'gateway_watch_ingested_total',
  help: "Transactions of watched wallets recorded, by network and what found them (notification: a socket's; fill: the signature lists read at start, after a reconnect or on the interval)",
  labelNames: ['network', 'via'] as const,
  registers,
});
export const watchLagSlots = new Gauge({ name: 'gateway_watch_lag_slots', help: "Slots between the node's newest slot and the transaction last recorded, when recorded, by network", labelNames: ['network'] as const, registers });

/** Seconds since `start` (a performance.now() value). */
export const since = (start: number) => (performance.now() - start) / 1000;

// Watches (src/watch/): what is followed, what was recorded, what reached receivers.
export const watchedAddresses = new Gauge({ name: 'gateway_watched_addresses', help: 'Distinct wallets followed by live watches', labelNames: ['network'] as const, registers });
export const watchEventsRecorded = new Counter({ name: 'gateway_watch_events_total', help: 'Watch events recorded (each debited once)', registers });
export const watchEventsSkipped = new Counter({ name: 'gateway_watch_events_skipped_total', help: 'Watch events not recorded because the account could not pay', registers });
export const webhookDeliveries = new Counter({
  name: 'gateway_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (delivered, retry, refused_address, gone)',
  labelNames: ['outcome'] as const,
  registers,
});
export const webhookLatency = new Histogram({
  name: 'gateway_webhook_delivery_seconds',
  help: "Seconds from an event's recording to its webhook's acceptance",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300, 3600],
  registers,
});
export const failingWatches = new Gauge({ name: 'gateway_watches_failing', help: 'Watches whose webhook has failed longer than WEBHOOK_FAILING_AFTER_SECONDS', registers });
