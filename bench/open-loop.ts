// A fixed-rate (open-loop) HTTP/1.1 GET client in the manner of wrk2: each of C keep-alive
// connections sends on its own schedule (rate / C per second), and every latency is measured from
// the moment the request was DUE, not from when it could be sent, so a stalled server shows in the
// tail instead of slowing the client down (no coordinated omission). wrk2 and vegeta are neither in
// Debian nor on npm, and fetch() opens a socket per outstanding request, which at thousands a second
// measures the client, not the server; raw sockets keep the client cheap.
// Run: bun bench/open-loop.ts <url> <rate per s> <seconds> [header:value ...]
// Prints one JSON line: {sent, errors, p50, p90, p99, max} (ms).
export {};
const [urlArg, rateArg, secondsArg, ...headerArgs] = process.argv.slice(2);
const url = new URL(urlArg!);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const connections = Math.min(64, Math.max(1, Math.ceil(rate / 500)));
const extra = headerArgs.map((h) => `${h.slice(0, h.indexOf(':'))}: ${h.slice(h.indexOf(':') + 1)}\r\n`).join('');
const request = Buffer.from(`GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n${extra}\r\n`);
const total = Math.floor(rate * seconds);
const perConnection = Math.floor(total / connections);
const interval = (1000 * connections) / rate;
const latencies: number[] = [];
let errors = 0;
const start = performance.now() + 50;

function runConnection(index: number): Promise<void> {
  return new Promise((finish, fail) => {
    let sent = 0;
    let due = start + (index * interval) / connections;
    let sentAt = 0;
    let buffer = Buffer.alloc(0);
    const send = (socket: { write(b: Uint8Array): number }) => {
      sentAt = performance.now();
      socket.write(request);
    };
    const sendWhenDue = (socket: { write(b: Uint8Array): number }) => {
      if (sent === perConnection) return finish();
      const wait = due - performance.now();
      if (wait > 0) setTimeout(() => send(socket), wait);
      else send(socket);
    };
    Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: {
        open: (socket) => sendWhenDue(socket),
        data(socket, chunk) {
          buffer = buffer.length ? Buffer.concat([buffer, chunk]) : Buffer.from(chunk);
          for (;;) {
            const head = buffer.indexOf('\r\n\r\n');
            if (head < 0) return;
            const header = buffer.subarray(0, head).toString('latin1');
            const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(header)?.[1]);
            if (!Number.isFinite(length)) return fail(new Error(`answer without content-length: ${header}`));
            if (buffer.length < head + 4 + length) return;
            buffer = buffer.subarray(head + 4 + length);
            if (!header.startsWith('HTTP/1.1 200')) errors++;
            // From when it was due; a timer that fired early is timed from the actual send.
            latencies.push(performance.now() - Math.min(due, sentAt));
            sent++;
            due += interval;
            sendWhenDue(socket);
          }
        },
        error: (_s, e) => fail(e),
        close: () => (sent < perConnection ? fail(new Error('connection closed early')) : finish()),
      },
    }).catch(fail);
  });
}

await Promise.all(Array.from({ length: connections }, (_, i) => runConnection(i)));
latencies.sort((a, b) => a - b);
const n = latencies.length;
const q = (p: number) => latencies[Math.min(n - 1, Math.floor((p / 100) * n))]!;
console.log(JSON.stringify({ sent: n, errors, p50: q(50), p90: q(90), p99: q(99), max: latencies[n - 1] }));
process.exit(0);
