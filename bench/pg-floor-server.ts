// The least a paid call on PostgreSQL can be, for bench/pg-floor.ts: Bun.serve answering each request
// after `work` µs of JS (standing for the gateway's own work per call) and, unless `none`, after its
// row is committed in a group: one statement per batch (an account's update and a record's insert,
// its own transaction, on Postgres's durable defaults), answered after its COMMIT, with at most
// `inFlight` batches out at once and `delayMs` of the database's time added to each (pg_sleep), as a
// statement that does more work takes longer.
// Run: bun bench/pg-floor-server.ts <port> <work µs> <postgres url | none> <in flight> <delay ms>
import { SQL } from 'bun';

const [port, workUs, url, inFlight, delayMs] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!, Number(process.argv[5]), Number(process.argv[6])];
const ACCOUNTS = 1000;

function work() {
  const until = performance.now() + workUs / 1000;
  let spins = 0;
  while (performance.now() < until) spins++;
  return spins;
}

interface Waiting {
  wallet: string;
  done(error?: unknown): void;
}
let queue: Waiting[] = [];
let out = 0;
const sql = url === 'none' ? null : new SQL(url, { max: 4 });

async function write(batch: Waiting[]) {
  const wallets = batch.map((w) => w.wallet);
  const ids = batch.map(() => crypto.randomUUID());
  await sql!`
    WITH v AS (SELECT w, count(*)::bigint AS n FROM unnest(${wallets}::text[]) AS w GROUP BY w),
      u AS (UPDATE floor_accounts a SET lamports = a.lamports - v.n FROM v WHERE a.wallet = v.w RETURNING 1)
    INSERT INTO floor_records (call_id, wallet, at)
    SELECT i, w, ${Date.now()} FROM unnest(${ids}::text[], ${wallets}::text[]) AS t(i, w)
    WHERE ${delayMs} = 0 OR (SELECT pg_sleep(${delayMs / 1000}) IS NOT NULL)`;
}

function flush() {
  if (!queue.length || out >= inFlight) return;
  const batch = queue;
  queue = [];
  out++;
  write(batch).then(
    () => batch.forEach((w) => w.done()),
    (e) => batch.forEach((w) => w.done(e)),
  ).finally(() => {
    out--;
    flush();
  });
}

const committed = (wallet: string) =>
  new Promise<void>((resolve, reject) => {
    queue.push({ wallet, done: (e) => (e ? reject(e) : resolve()) });
    if (queue.length === 1) setImmediate(flush);
  });

const answer = { ok: true };
Bun.serve({
  port,
  hostname: '127.0.0.1',
  async fetch() {
    work();
    if (sql) await committed(`w${Math.floor(Math.random() * ACCOUNTS)}`);
    return Response.json(answer);
  },
});
console.log('ready');
