// The direct path writes a tool result as text; the text content is kept quoted per tool, since a
// cached answer repeats. Whatever the order of answers, each result must be the one its own body
// makes, exactly what JSON.stringify of the SDK's result object gives.
import { expect, test } from 'bun:test';
import { optimalFee } from '../../src/capabilities/optimal-fee.ts';
import { blockhash } from '../../src/capabilities/blockhash.ts';
import { answerOf, resultJsonOf, resultOf } from '../../src/mcp/tools.ts';

const outcome = (body: Record<string, unknown>, status = 200) => ({ status, body, headers: { 'x-credits-remaining': '9000', 'content-type': 'ignored' } });

test('each result carries its own text, whichever answers came before, from the same tool or another', () => {
  const bodies = [
    { congestion: 'low', policy: 'a "quoted" word and a \\ backslash', live_status: 'SUCCESS' },
    { congestion: 'low', policy: 'a "quoted" word and a \\ backslash', live_status: 'SUCCESS' }, // equal text, another object
    { congestion: 'high', policy: 'line\nbreak and \u2028', live_status: 'SUCCESS' },
    { congestion: 'low', policy: 'a "quoted" word and a \\ backslash', live_status: 'SUCCESS' },
  ];
  for (const [cap, body] of [...bodies.map((b) => [optimalFee, b] as const), [blockhash, { blockhash: 'x', live_status: 'SUCCESS' }] as const, [optimalFee, bodies[2]!] as const]) {
    const answer = answerOf(cap, outcome(body));
    expect(resultJsonOf(answer)).toBe(JSON.stringify(resultOf(answer)));
    expect(JSON.parse(JSON.parse(resultJsonOf(answer)).content[0].text)).toEqual(body);
  }
});

test('an error answer is written like the SDK writes it too', () => {
  const answer = answerOf(optimalFee, outcome({ error: 'Payment required', priceLamports: 1000, payTo: null, reason: 'no key' }, 402));
  expect(resultJsonOf(answer)).toBe(JSON.stringify(resultOf(answer)));
  expect(JSON.parse(resultJsonOf(answer)).isError).toBe(true);
});
