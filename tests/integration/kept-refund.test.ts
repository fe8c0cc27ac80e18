// A paid call that fails while the database refuses to write its refund (SQLite file, a trigger
// refusing refunds on demand): the call is answered at once with its own failure, the refund is
// kept and made once the database takes writes again, and the call's usage row says refunded.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { generateKeyPairSigner } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { within } from '../support/poll.ts';

setDefaultTimeout(30_000);

const PRICE = 2_200_000;
const CREDIT = 5 * PRICE;
const sandbox = sandboxGateways();

describe('a refund the database cannot take when its call fails', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await sandbox.gateway({ gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_kept', freeCalls: 0 });
    const db = gw.sqlite();
    db.run('CREATE TABLE refusing (yes INTEGER)');
    db.run("CREATE TRIGGER refuse_refunds BEFORE UPDATE ON ledger_debits WHEN NEW.refunded_at IS NOT NULL AND EXISTS (SELECT 1 FROM refusing) BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
  });
  const refusing = (on: boolean) => gw.sqlite().run(on ? 'INSERT INTO refusing VALUES (1)' : 'DELETE FROM refusing');
  const me = (key: string) => gw.get('/api/keys/me', { 'x-api-key': key });

  test('is kept: the call answers its own failure at once, and is refunded once when the database takes it', async () => {
    const { key } = await fundedKey(gw, sandbox.chain, CREDIT);
    refusing(true);
    const started = Date.now();
    const res = await gw.get(`/api/chain/decode-tx?signature=${'4'.repeat(88)}`, { 'x-api-key': key });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-credits-remaining')).toBeNull();
    expect((await me(key)).body.creditLamports).toBe(CREDIT - PRICE);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_kept_writes\{kind="refund"\} 1$/m);
    refusing(false);
    await within(6_000, async () => (await me(key)).body.creditLamports === CREDIT, 100);
    expect((await me(key)).body.creditLamports).toBe(CREDIT);
    expect((await me(key)).body.callsMade).toBe(0);
    const calls = (await gw.get('/api/keys/me/usage', { 'x-api-key': key })).body.calls;
    expect(calls.map((c: { refunded: boolean; status: number }) => [c.refunded, c.status])).toEqual([[true, 404]]);
  });
});
