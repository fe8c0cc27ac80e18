// Watches over MCP with the official SDK clients, on every transport: watch_wallets, list_watches,
// watch_events and unwatch answer as REST does, for the key on the connection; the events read
// there carry the same ids as the REST pull; without a key, the REST 402 as an error result.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { activity, keyWithCredit, newWallet } from '../support/watch.ts';
import { CLIENTS, connectMcp } from '../support/mcp.ts';
import { within } from '../support/poll.ts';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startGateway({ freeCalls: 0 });
  ({ key } = await keyWithCredit(gw, 10_000_000n));
});
afterAll(() => gw.stop());

describe('watch tools', () => {
  for (const kind of CLIENTS) {
    test(`${kind}: watch, read events, list, unwatch`, async () => {
      const mcp = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        const listed = await mcp.client.listTools();
        expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['watch_wallets', 'list_watches', 'watch_events', 'unwatch']));
        const target = await newWallet();
        const made = await mcp.call('watch_wallets', { wallets: [target] });
        expect(made.isError).toBe(false);
        expect(made.body.id).toMatch(/^wch_/);
        const a = activity();
        await gw.services.watches.recordActivity('mainnet-beta', target, a);
        const read = await mcp.call('watch_events', { id: made.body.id, after: '0' });
        expect(read.body.events.map((e: any) => e.signature)).toEqual([a.signature]);
        const rest = await gw.get(`/api/watches/${made.body.id}/events`, { 'x-api-key': key });
        expect(read.body.events.map((e: any) => e.id)).toEqual(rest.body.events.map((e: any) => e.id));
        expect((await mcp.call('list_watches')).body.watches.map((w: any) => w.id)).toContain(made.body.id);
        expect((await mcp.call('unwatch', { id: made.body.id })).body.status).toBe('ended');
        const gone = await mcp.call('watch_events', { id: made.body.id });
        expect(gone.isError).toBe(true);
        expect(gone.body.error).toBe('Watch not found');
      } finally {
        await mcp.close();
      }
    });
  }

  test('without a key: the 402 naming the event price and that x402 cannot pay; bad arguments: invalid params', async () => {
    const mcp = await connectMcp(gw.url, 'streamable-http');
    try {
      const r = await mcp.call('watch_wallets', { wallets: [await newWallet()] });
      expect(r.isError).toBe(true);
      expect(r.body.error).toBe('Payment required');
      expect(r.body.x402).toContain('x402 cannot pay');
    } finally {
      await mcp.close();
    }
    const keyed = await connectMcp(gw.url, 'streamable-http', { headers: { 'x-api-key': key } });
    try {
      await expect(keyed.call('watch_wallets', { wallets: ['nope'] })).rejects.toThrow('wallets[0]');
    } finally {
      await keyed.close();
    }
  });
});

describe('a watch as an MCP resource', () => {
  for (const kind of CLIENTS) {
    test(`${kind}: subscribed, told of each new event, read after a cursor`, async () => {
      const mcp = await connectMcp(gw.url, kind, { headers: { 'x-api-key': key } });
      try {
        const made = (await mcp.call('watch_wallets', { wallets: [await newWallet()] })).body;
        const uri = made.eventsResource;
        expect(uri).toBe(`solana://mainnet-beta/watches/${made.id}/events`);
        const told: string[] = [];
        const client = mcp.client as any;
        if (kind === 'sse' || kind === 'streamable-http') {
          client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n: any) => void told.push(n.params.uri));
          await client.subscribeResource({ uri });
        } else {
          client.setNotificationHandler('notifications/resources/updated', (n: any) => void told.push(n.params.uri));
          const sub = await client.listen({ resourceSubscriptions: [uri] });
          expect(sub.honoredFilter.resourceSubscriptions).toEqual([uri]);
        }
        // The Streamable HTTP client opens its GET stream on its own; give it a moment.
        await Bun.sleep(300);
        const a = activity();
        await gw.services.watches.recordActivity('mainnet-beta', made.wallets[0], a);
        expect(await within(5000, () => told.includes(uri))).not.toBeNull();
        const read = await client.readResource({ uri: `${uri}?after=0` });
        const page = JSON.parse(read.contents[0].text);
        expect(page.events.map((e: any) => e.signature)).toEqual([a.signature]);
        const again = await client.readResource({ uri: `${uri}?after=${page.nextCursor}` });
        expect(JSON.parse(again.contents[0].text).events).toEqual([]);
      } finally {
        await mcp.close();
      }
    });
  }

  test("another key's watch: not found to read and to follow", async () => {
    const other = await keyWithCredit(gw, 1_000_000n);
    const theirs = (await gw.post('/api/watches', { wallets: [await newWallet()] }, { 'x-api-key': other.key })).body;
    const mcp = await connectMcp(gw.url, 'streamable-http', { headers: { 'x-api-key': key } });
    try {
      await expect((mcp.client as any).readResource({ uri: theirs.eventsResource })).rejects.toThrow('Resource not found');
      await expect((mcp.client as any).subscribeResource({ uri: theirs.eventsResource })).rejects.toThrow('Resource not found');
    } finally {
      await mcp.close();
    }
  });
});
