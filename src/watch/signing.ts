// Standard Webhooks (standardwebhooks.com): the secret is `whsec_` + base64 of random bytes; each
// delivery carries webhook-id, webhook-timestamp (Unix seconds) and webhook-signature
// `v1,<base64 HMAC-SHA256 of "id.timestamp.body" under the secret's bytes>`. Pure but for the random secret.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export const newWebhookSecret = (): string => PREFIX + randomBytes(32).toString('base64');

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/** The three headers of one delivery attempt (the id is the event's, the same on every retry, so receivers can deduplicate). */
export function webhookHeaders(secret: string, id: string, body: string, nowMs = Date.now()): Record<string, string> {
  const ts = Math.floor(nowMs / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureOf(secret, id, ts, body) };
}
