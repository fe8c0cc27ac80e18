// What the REST face reads from the gateway it serves: the call pipeline's parts, and what its own
// routes need (claims and balances, the deposit webhook, health). Declared here, so the face knows
// no entry: the Services the entry builds fits it as it is.
import type { BillingStore } from '../billing/store.ts';
import type { WebhookDeps } from '../billing/webhook.ts';
import type { CallDeps } from '../calls/pipeline.ts';
import type { Config, Network } from '../config.ts';

export interface HttpDeps extends CallDeps {
  config: Config;
  store: BillingStore;
  /** Deposits reported to the webhook are confirmed on the payment network's upstream. */
  upstreams: Record<Network, WebhookDeps['rpc']>;
  quorum?: { confirm: NonNullable<WebhookDeps['confirm']> };
  readiness: { check(): { ready: boolean } };
  /** Set when a graceful stop begins: /readyz answers 503 from then on. */
  stopping: boolean;
  startedAt: number;
  /** Watches paused for want of credit, told in /api/keys/me. */
  watches: { pausedOf(wallet: string): string[] };
}
