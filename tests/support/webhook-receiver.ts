// `bun run webhook-receiver -- --secret-file <watch.json> [--count N]`: a webhook receiver on a free
// loopback port for the offline walkthrough (docs/watch.md). Prints its URL first; then, for each
// delivery, verifies it with the standardwebhooks package against the `secret` of the watch JSON
// in --secret-file (read when the delivery comes), answers 204 and prints "verified <id> <signature>",
// or answers 400 and prints "NOT VERIFIED". Exits 0 after N verified deliveries (default 1).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({ options: { 'secret-file': { type: 'string' }, count: { type: 'string', default: '1' } } });
const file = values['secret-file'];
if (!file) {
  console.error('usage: bun run webhook-receiver -- --secret-file <watch.json> [--count N]');
  process.exit(2);
}
let left = Number(values.count);
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = await req.text();
    try {
      const { secret } = JSON.parse(readFileSync(file, 'utf8')) as { secret: string };
      const event = new Webhook(secret).verify(body, Object.fromEntries(req.headers)) as { id: string; signature: string };
      console.log(`verified ${event.id} ${event.signature}`);
      if (--left === 0) setTimeout(() => process.exit(0), 50);
      return new Response(null, { status: 204 });
    } catch (e) {
      console.log(`NOT VERIFIED: ${(e as Error).message}`);
      return new Response(null, { status: 400 });
    }
  },
});
console.log(`http://127.0.0.1:${server.port}/hook`);
