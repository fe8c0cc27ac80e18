// Sends each watch's events to its webhook, in order, one watch at a time per replica: a lease on
// the watch row (the store) keeps two replicas from sending the same one at once; the cursor moves
// only once the receiver answered 2xx, so a kill -9 at any point sends an event again, never loses
// it (receivers deduplicate by webhook-id, which is the event id). Failures back off exponentially
// with jitter; 410 ends the watch. Each attempt resolves the host again and connects only to the
// address it checked (resolve.ts), follows no redirect, and reads at most a few KiB of the answer.
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { webhookDeliveries, webhookLatency } from '../metrics.ts';
import { refusedAddress, RefusedUrl } from './address-policy.ts';
import { guardedLookup, type Resolve } from './resolve.ts';
import type { SecretBox } from './secrets.ts';
import { webhookHeaders } from './signing.ts';
import type { WatchRow, WatchStore } from './store.ts';

/** A lease outlives two delivery timeouts; it is renewed after each event sent, so a dead replica's watches move on within it. */
const leaseMs = (config: Config) => config.webhookTimeoutSeconds * 2000 + 5000;
const BATCH = 20;
/** Bytes of a receiver's answer read (then the connection is dropped): enough for an error message. */
const MAX_ANSWER_BYTES = 4096;

export type Attempt = { ok: true; status: number } | { ok: false; status?: number; error: string; gone?: boolean; refused?: boolean };

/** The delay before retry `attempts` (1 = first retry): doubling from the base, capped, with ±25% jitter. Pure but for `random`. */
export function backoffMs(attempts: number, baseSeconds: number, maxSeconds: number, random = Math.random): number {
  const plain = Math.min(maxSeconds, baseSeconds * 2 ** Math.min(attempts - 1, 40)) * 1000;
  return Math.round(plain * (0.75 + random() * 0.5));
}

/** One POST to the webhook; never throws. */
export function post(url: string, headers: Record<string, string>, body: string, o: { resolve: Resolve; allowPrivate: boolean; timeoutMs: number }): Promise<Attempt> {
  return new Promise((done) => {
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    // A literal address never goes through lookup: checked here instead.
    const literalRefused = o.allowPrivate || !isIP(host) ? null : refusedAddress(host);
    if (literalRefused) return done({ ok: false, error: `refused: ${literalRefused}`, refused: true });
    let settled = false;
    const finish = (a: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      done(a);
    };
    const req = lib.request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'chain-intelligence-gateway-webhooks' },
        lookup: guardedLookup(o.resolve, o.allowPrivate) as never,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          if (read < MAX_ANSWER_BYTES) text += chunk.subarray(0, MAX_ANSWER_BYTES - read).toString('utf8');
          read += chunk.length;
          if (read >= MAX_ANSWER_BYTES) end();
        });
        const end = () => {
          if (status >= 200 && status < 300) return finish({ ok: true, status });
          const detail = status >= 300 && status < 400 ? 'redirects are not followed' : text.replace(/\s+/g, ' ').trim().slice(0, 200);
          finish({ ok: false, status, error: `HTTP ${status}${detail ? ': ' + detail : ''}`, gone: status === 410 });
        };
        res.on('end', end);
        res.on('error', end);
      },
    );
    // The address actually connected, checked again (the lookup already refused a bad one).
    req.on('socket', (socket) =>
      socket.once('connect', () => {
        const why = o.allowPrivate || !socket.remoteAddress ? null : refusedAddress(socket.remoteAddress);
        if (why) finish({ ok: false, error: `refused: ${why}`, refused: true });
      }),
    );
    req.on('error', (e) => finish({ ok: false, error: e instanceof RefusedUrl || /non-public/.test(e.message) ? `refused: ${e.message}` : e.message, refused: e instanceof RefusedUrl }));
    const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${o.timeoutMs} ms` }), o.timeoutMs);
    req.end(body);
  });
}

export class Deliverer {
  private readonly owner = randomBytes(8).toString('hex');
  private readonly running = new Set<string>();
  /** Watches woken while a run held them: run again when it ends (it may have read before their new events). */
  private readonly again = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(private readonly deps: { store: WatchStore; config: Config; log: Logger; box: SecretBox; resolve: Resolve }) {}

  /** `soleWriter`: no other gateway shares the database (SQLite), so a lease found is a dead process's. */
  async start(soleWriter: boolean, pollMs = 1000) {
    if (soleWriter) await this.deps.store.releaseAll();
    this.timer = setInterval(() => void this.tick(), pollMs);
    void this.tick();
  }

  async stop() {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running.size) await Bun.sleep(20);
  }

  /** A watch has new events: send them now if nothing holds it back. */
  wake(watchId: string) {
    if (this.stopped) return;
    if (this.running.has(watchId)) this.again.add(watchId);
    else void this.run(watchId);
  }

  private async tick() {
    try {
      const now = Date.now();
      for (const id of await this.deps.store.due(now, BATCH)) void this.run(id);
    } catch (e) {
      this.deps.log.warn('webhook scan failed', { error: (e as Error).message });
    }
  }

  private async run(id: string) {
    if (this.running.has(id) || this.stopped) return;
    this.running.add(id);
    const { store, log } = this.deps;
    try {
      const now = Date.now();
      const w = await store.watch(id);
      if (!w || !w.webhookUrl || w.status === 'ended' || (w.nextAttemptAt !== null && w.nextAttemptAt > now)) return;
      if (!(await store.lease(id, this.owner, now + leaseMs(this.deps.config), now))) return;
      try {
        // Read again under the lease: another replica may have delivered (and released) since the look above,
        // and its cursor, not that look's, is where this one goes on.
        const held = await store.watch(id);
        if (held?.webhookUrl && held.status !== 'ended') await this.send(held);
      } finally {
        await store.release(id, this.owner);
      }
    } catch (e) {
      log.warn('webhook delivery stopped', { watchId: id, error: (e as Error).message });
    } finally {
      this.running.delete(id);
      if (this.again.delete(id)) this.wake(id);
    }
  }

  /** Sends the watch's undelivered events in order until one fails or none is left. */
  private async send(w: WatchRow) {
    const { store, config, log, box, resolve } = this.deps;
    let secret: string;
    try {
      secret = box.open(w.secretSealed!);
    } catch {
      log.error('webhook secret cannot be opened: WEBHOOK_SECRET_KEY or WEBHOOK_KEY_FILE differs from the one it was sealed with', { watchId: w.id });
      await store.failed(w.id, this.owner, { attempts: w.attempts + 1, nextAttemptAt: Date.now() + config.webhookRetryMaxSeconds * 1000, lastError: 'the webhook secret cannot be opened on this gateway', firstFailureAt: w.firstFailureAt ?? Date.now() });
      return;
    }
    let cursor = w.deliveredSeq;
    let attempts = w.attempts;
    while (!this.stopped) {
      const events = await store.eventsAfter(w.id, cursor, BATCH);
      if (events.length === 0) return;
      for (const e of events) {
        const event = JSON.parse(e.body) as { id: string };
        const result = await post(w.webhookUrl!, webhookHeaders(secret, event.id, e.body), e.body, {
          resolve,
          allowPrivate: config.webhookAllowPrivate,
          timeoutMs: config.webhookTimeoutSeconds * 1000,
        });
        if (result.ok) {
          await store.delivered(w.id, this.owner, e.seq);
          await store.lease(w.id, this.owner, Date.now() + leaseMs(config), Date.now());
          webhookDeliveries.inc({ outcome: 'delivered' });
          webhookLatency.observe((Date.now() - e.createdAt) / 1000);
          cursor = e.seq;
          attempts = 0;
          continue;
        }
        if (result.gone) {
          webhookDeliveries.inc({ outcome: 'gone' });
          await store.setStatus(w.id, 'ended', Date.now(), 'the receiver answered 410 Gone');
          log.info('watch ended by its receiver (410)', { event: 'watch_gone', watchId: w.id });
          return;
        }
        webhookDeliveries.inc({ outcome: result.refused ? 'refused_address' : 'retry' });
        attempts++;
        const now = Date.now();
        await store.failed(w.id, this.owner, {
          attempts,
          nextAttemptAt: now + backoffMs(attempts, config.webhookRetryBaseSeconds, config.webhookRetryMaxSeconds),
          lastError: result.error,
          firstFailureAt: w.firstFailureAt ?? now,
        });
        log.info('webhook delivery failed', { event: 'webhook_retry', watchId: w.id, attempts, error: result.error });
        return;
      }
    }
  }
}
