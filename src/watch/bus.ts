// Tells every replica that a watch has new events or that the set of watches changed. Alone (SQLite)
// it is a local call; on PostgreSQL a NOTIFY on the existing database, which every replica LISTENs
// to (no new service). Messages are hints: a missed one delays a wake-up until the next poll.
import type { SQL } from 'bun';
import type { Logger } from '../log.ts';

export type BusMessage = { kind: 'events'; watchId: string } | { kind: 'watches' };

export interface Bus {
  publish(m: BusMessage): void;
  subscribe(cb: (m: BusMessage) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'gateway_watch';

export function localBus(): Bus {
  const subs: ((m: BusMessage) => void)[] = [];
  return {
    publish: (m) => subs.forEach((cb) => cb(m)),
    subscribe: (cb) => void subs.push(cb),
    close: async () => {},
  };
}

export async function pgBus(client: SQL, log: Logger): Promise<Bus> {
  const local = localBus();
  const parse = (payload: string): BusMessage => (payload === 'watches' ? { kind: 'watches' } : { kind: 'events', watchId: payload });
  const listening = await client.listen(CHANNEL, (payload: string) => local.publish(parse(payload)));
  return {
    publish(m) {
      // Heard back through LISTEN by this replica too; published locally first so this one wakes at once.
      local.publish(m);
      client`SELECT pg_notify(${CHANNEL}, ${m.kind === 'watches' ? 'watches' : m.watchId})`.catch((e: Error) => log.warn('watch notify failed', { error: e.message }));
    },
    subscribe: local.subscribe,
    close: () => listening.unlisten(),
  };
}
