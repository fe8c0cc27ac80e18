// The output budget of the legacy SSE transport: a client that stops reading gets its session
// closed once its unread output passes the budget; answers to charged calls that never left are
// refunded, those the client took are not.
import { describe, expect, test } from 'bun:test';
import { WebSseServerTransport } from '../../src/mcp/sse-transport.ts';

describe('the output budget at transport level', () => {
  test('over budget the session closes; queued charged answers are refunded, delivered ones are not', async () => {
    const t = new WebSseServerTransport('/mcp/messages', 0, 16 * 1024);
    let closed = false;
    t.onclose = () => (closed = true);
    await t.start();
    const refunded: number[] = [];
    const answer = (id: number) => ({ jsonrpc: '2.0' as const, id, result: { content: [{ type: 'text', text: 'x'.repeat(1000) }] } });
    // The client reads the endpoint event and the first answer, then stops reading.
    const reader = t.response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: endpoint');
    t.onCharged(1, async () => void refunded.push(1));
    await t.send(answer(1));
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"id":1');
    for (let id = 2; id <= 40 && !closed; id++) {
      t.onCharged(id, async () => void refunded.push(id));
      await t.send(answer(id));
    }
    expect(closed).toBe(true);
    expect(t.pendingBytes).toBe(0);
    expect(refunded).not.toContain(1);
    expect(refunded.length).toBeGreaterThanOrEqual(15); // all of 2..N that were queued when it closed
    expect(new Set(refunded).size).toBe(refunded.length); // each at most once
    // A charge registered after the close is refunded at once; sending then fails.
    t.onCharged(99, async () => void refunded.push(99));
    expect(refunded).toContain(99);
  });
});
