// Every server scenario of the pinned conformance suite is either run by .ci/run or listed as
// left out with a reason: a new scenario in a suite upgrade cannot slip by unnoticed.
import { expect, test } from 'bun:test';
import { join, resolve } from 'node:path';
import { LEFT_OUT, SCENARIOS } from '../../.ci/mcp-conformance.ts';

test('each conformance server scenario is run or left out with a reason, never both', async () => {
  const cli = join(resolve(import.meta.dir, '../..'), 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const out = await new Response(Bun.spawn(['bun', cli, 'list'], { stdout: 'pipe' }).stdout).text();
  const serverPart = out.slice(out.indexOf('Server scenarios'), out.indexOf('Client scenarios'));
  const listed = [...serverPart.matchAll(/^\s+- ([\w-]+)/gm)].map((m) => m[1]!);
  expect(listed.length).toBeGreaterThan(20);
  expect([...SCENARIOS, ...Object.keys(LEFT_OUT)].sort()).toEqual(listed.sort());
  expect(SCENARIOS.filter((s) => s in LEFT_OUT)).toEqual([]);
}, 30_000);
