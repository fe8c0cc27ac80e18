// The MCP tool list an agent can afford (issue 41): an agent host puts tools/list in the model's context on
// every turn, so the list as served (compact JSON, every tool with its input and output schema) stays within
// 24 KB in all and 5 KB per tool, with x402 on and capabilities priced apart (the longest descriptions), on
// both transports, through the official clients, the watch tools (issue 40) included. Each tool still says its price, and its guide
// (gateway://tools/<tool>) keeps the long description and the full schemas.
import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { connectMcp } from '../support/mcp.ts';
import { x402World } from '../support/x402.ts';
import type { TestGateway } from '../support/gateway.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { WATCH_TOOL_NAMES } from '../../src/watch/mcp.ts';

// 24 KB and 5 KB as binary kilobytes (KiB), as byte sizes are.
const TOTAL_LIMIT = 24 * 1024;
const PER_TOOL_LIMIT = 5 * 1024;
const sandbox = sandboxGateways();
let gw: TestGateway;

beforeAll(async () => {
  const world = await x402World(sandbox.chain, mkdtempSync(join(tmpdir(), 'cig-tool-list-')));
  gw = await sandbox.gateway({ ...world.settings, prices: { 'decode-tx': 4_400_000 }, x402Prices: { 'decode-tx': 20_000 } });
});

describe.each(['sse', 'streamable-http'] as const)('tools/list over %s', (kind) => {
  test('fits an agent: at most 24 KB in all and 5 KB per tool, each tool priced, its guide complete', async () => {
    const mcp = await connectMcp(gw.url, kind);
    try {
      const { tools } = await mcp.client.listTools();
      const sizes = tools.map((t) => [t.name, JSON.stringify(t).length] as const);
      const total = JSON.stringify({ tools }).length;
      console.log(`tools/list over ${kind}: ${total} bytes in all (limit ${TOTAL_LIMIT}); per tool: ${sizes.map(([n, s]) => `${n} ${s}`).join(', ')}`);
      expect(tools.map((t) => t.name)).toEqual([...CAPABILITIES.map((c) => c.tool), ...WATCH_TOOL_NAMES]);
      expect(total).toBeLessThanOrEqual(TOTAL_LIMIT);
      for (const [name, size] of sizes) expect({ name, size: Math.min(size, PER_TOOL_LIMIT + 1) }).toEqual({ name, size: Math.min(size, PER_TOOL_LIMIT) });
      for (const cap of CAPABILITIES) {
        const tool = tools.find((t) => t.name === cap.tool)!;
        expect(tool.description).toContain(cap.paid ? 'lamports a call' : 'Free');
        if (cap.paid) expect(tool.description).toContain('atomic units by x402');
        expect(tool.outputSchema).toBeDefined();
        // what the listing leaves out, the guide says: the long description and each field's description
        const guide = (await mcp.client.readResource({ uri: `gateway://tools/${cap.tool}` })).contents[0] as { text: string };
        expect(guide.text).toContain(cap.description);
        expect(guide.text).toContain('"description"');
      }
    } finally {
      await mcp.close();
    }
  });
});
