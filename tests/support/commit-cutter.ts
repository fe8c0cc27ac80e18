// A TCP proxy between the gateway and PostgreSQL that makes a write's outcome unknown on demand:
// armed, it forwards the message that commits a chosen write (a COMMIT, or an autocommit
// statement) to the server whole, and then closes the client's side at once. The server commits;
// the client never hears its answer, exactly as when the connection drops around COMMIT. No real
// part produces this on demand, hence a hand-written proxy (it reads only message frames and the
// statement texts of Parse/Query messages, per the PostgreSQL frontend/backend protocol).
import type { Socket, TCPSocketListener } from 'bun';

/**
 * What to cut: the message whose statement matches `on`, in a transaction whose statements so far
 * match `within`. `before`: the message is dropped too (the write never reaches the server).
 * `stall`: the message and all that follows are dropped and the connection stays open, silent
 * (a COMMIT that is never answered).
 */
export interface Cut {
  on: RegExp;
  within?: RegExp;
  before?: boolean;
  stall?: boolean;
}

interface Conn {
  server?: Socket<Conn>;
  client: Socket<Conn>;
  /** Client bytes not yet framed into whole messages. */
  pending: Buffer;
  /** Bytes for the server not yet written (the server connection is still opening). */
  queued: Buffer[];
  started: boolean;
  /** Prepared statement texts by name, to read the statement a Bind runs. */
  statements: Map<string, string>;
  /** The statements of the transaction in progress. */
  since: string;
  cut: boolean;
}

export interface CommitCutter {
  /** postgres:// URL through the proxy. */
  readonly url: string;
  /** Cuts the next `times` writes that match; resolves after the last is cut. */
  arm(cut: Cut, times?: number): Promise<void>;
  /** How many connections were cut. */
  readonly cuts: number;
  /** While true, every connection is closed as soon as it opens and every open one is closed: the database is away. */
  away(on: boolean): void;
  stop(): void;
}

const cstring = (buf: Buffer, at: number) => {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1] as const;
};

/** The statement text a client message runs, if it names one (Query, Parse, or Bind of a prepared statement). */
function statementOf(type: number, body: Buffer, c: Conn): string | undefined {
  const letter = String.fromCharCode(type);
  if (letter === 'Q') return cstring(body, 0)[0];
  if (letter === 'P') {
    const [name, next] = cstring(body, 0);
    const [text] = cstring(body, next);
    c.statements.set(name, text);
    return name === '' ? text : undefined;
  }
  if (letter === 'B') {
    const [, next] = cstring(body, 0);
    const [name] = cstring(body, next);
    return c.statements.get(name);
  }
  return undefined;
}

/** The cutter in front of the server at `url` (a postgres:// URL); its `url` goes through it. */
export function commitCutter(url: string): CommitCutter {
  const through = new URL(url);
  const target = { hostname: through.hostname, port: Number(through.port || 5432) };
  let armed: { cut: Cut; left: number; done: () => void } | undefined;
  let cuts = 0;
  let gone = false;
  const open = new Set<Conn>();

  const forward = (c: Conn, data: Buffer) => {
    if (c.server) c.server.write(data);
    else c.queued.push(data);
  };

  const cutNow = (c: Conn, counted = true, stall = false) => {
    c.cut = true;
    if (stall) {
      cuts++;
      return done();
    }
    if (!counted) {
      c.client.end();
      c.server?.end();
      return;
    }
    cuts++;
    // The client loses the connection now; the server keeps its end a moment, long enough to read
    // and run what was forwarded (it commits before it ever sees the close).
    c.client.end();
    const server = c.server;
    setTimeout(() => server?.end(), 500);
    done();
  };

  const done = () => {
    if (armed && --armed.left <= 0) {
      const { done: resolve } = armed;
      armed = undefined;
      resolve();
    }
  };

  /** Frames the client's bytes into messages; forwards them, cutting after a matching one. */
  const fromClient = (c: Conn, data: Buffer) => {
    if (c.cut) return;
    c.pending = c.pending.length ? Buffer.concat([c.pending, data]) : data;
    let at = 0;
    let cutAfter = -1;
    let cutStart = -1;
    while (true) {
      // The startup and SSL request messages carry no type byte.
      const header = c.started ? 5 : 4;
      if (c.pending.length - at < header) break;
      const length = c.started ? c.pending.readInt32BE(at + 1) + 1 : c.pending.readInt32BE(at);
      if (c.pending.length - at < length) break;
      if (c.started) {
        const type = c.pending[at]!;
        const text = statementOf(type, c.pending.subarray(at + 5, at + length), c);
        if (text !== undefined) {
          if (/^\s*BEGIN/i.test(text)) c.since = '';
          const a = armed?.cut;
          if (a && cutAfter < 0 && a.on.test(text) && (!a.within || a.within.test(c.since))) {
            cutAfter = at + length;
            cutStart = at;
          }
          c.since += `${text}\n`;
        }
      } else if (c.pending.readInt32BE(at + 4) !== 80877103) c.started = true;
      at += length;
    }
    if (cutAfter >= 0) {
      // The whole chunk goes: an extended-protocol statement needs its Execute and Sync to run;
      // or, cut before (or stalled), only what came ahead of the message.
      const { before = false, stall = false } = armed!.cut;
      forward(c, c.pending.subarray(0, before || stall ? cutStart : at));
      c.pending = Buffer.alloc(0);
      return cutNow(c, true, stall);
    }
    forward(c, c.pending.subarray(0, at));
    c.pending = c.pending.subarray(at);
  };

  const listener: TCPSocketListener<Conn> = Bun.listen<Conn>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(client) {
        const c: Conn = { client, pending: Buffer.alloc(0), queued: [], started: false, statements: new Map(), since: '', cut: false };
        client.data = c;
        if (gone) return void client.end();
        open.add(c);
        void Bun.connect<Conn>({
          ...target,
          socket: {
            open(server) {
              server.data = c;
              c.server = server;
              for (const q of c.queued) server.write(q);
              c.queued = [];
            },
            data(_server, data) {
              if (!c.cut) c.client.write(data);
            },
            close() {
              if (!c.cut) c.client.end();
            },
            error() {
              c.client.end();
            },
          },
        }).catch(() => client.end());
      },
      data(client, data) {
        fromClient(client.data, Buffer.from(data));
      },
      close(client) {
        open.delete(client.data);
        const server = client.data.server;
        if (!client.data.cut) server?.end();
      },
      error(client) {
        client.data.server?.end();
      },
    },
  });

  through.hostname = '127.0.0.1';
  through.port = String(listener.port);
  return {
    url: through.toString(),
    get cuts() {
      return cuts;
    },
    away(on) {
      gone = on;
      if (on) for (const c of open) cutNow(c, false);
    },
    arm(cut, times = 1) {
      return new Promise<void>((done) => (armed = { cut, left: times, done }));
    },
    stop() {
      listener.stop(true);
    },
  };
}
