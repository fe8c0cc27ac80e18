// The hint of a refused call shows a call that would work, in the words of the face called, with
// the field at fault in it; pure, on the registry's own capabilities.
import { expect, test } from 'bun:test';
import { exampleArguments, exampleUrl, parseInput, type Capability, type ExampleOf } from '../../src/capabilities/capability.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { EXAMPLE_WALLET } from '../../src/capabilities/examples.ts';
import { GatewayError } from '../../src/errors.ts';

const cap = (tool: string) => CAPABILITIES.find((c) => c.tool === tool)!;
const hintOf = (c: Capability, raw: Record<string, unknown>, example?: ExampleOf): string => {
  try {
    parseInput(c, raw, example);
  } catch (e) {
    if (e instanceof GatewayError) return e.body.hint!;
    throw e;
  }
  throw new Error('accepted');
};

test('an out-of-range limit is shown with a limit in its example, on both faces', () => {
  const tx = cap('get_recent_transactions');
  expect(hintOf(tx, { wallet: EXAMPLE_WALLET, limit: '1000' })).toBe(
    `limit must be a whole number from 1 to 100. Example: /api/chain/transactions?wallet=${EXAMPLE_WALLET}&limit=10&network=mainnet-beta`,
  );
  expect(hintOf(tx, { wallet: EXAMPLE_WALLET, limit: 0 }, exampleArguments)).toBe(
    `limit must be a whole number from 1 to 100. Example: arguments {"wallet": "${EXAMPLE_WALLET}", "limit": 10}`,
  );
});

test('MCP examples are tool arguments, never a REST URL', () => {
  for (const c of CAPABILITIES) {
    for (const field of [undefined, ...Object.keys(c.params)]) {
      const example = exampleArguments(c, field);
      expect(example).not.toContain('/api/');
      expect(JSON.parse(example.replace(/^arguments /, ''))).toBeObject();
    }
  }
  expect(exampleUrl(cap('get_chain_balance'))).toBe(`/api/chain/balance?wallet=${EXAMPLE_WALLET}&network=mainnet-beta`);
});

test('the simulate hint names its field once', () => {
  const hint = hintOf(cap('simulate_chain_transaction'), { transaction: 'not base64!' });
  expect(hint).toStartWith('transaction must be standard base64');
  expect(hint).not.toMatch(/transaction: transaction/);
});
