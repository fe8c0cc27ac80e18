// The document's response examples are real answers (tests/support/record-examples.ts), not prose:
// the mainnet ones are re-recorded here from the recorded mainnet replies and must equal what is
// committed, so a change to a capability's output shows up as a stale example to re-record.
import { expect, test } from 'bun:test';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { EXAMPLES } from '../../src/capabilities/recorded-examples.ts';
import { MAINNET_REQUESTS, recordExamples } from '../support/record-examples.ts';
import { startGateway } from '../support/gateway.ts';

test('every capability has a recorded example, and the document shows it', async () => {
  expect(Object.keys(EXAMPLES).sort()).toEqual(CAPABILITIES.map((c) => c.name).sort());
  const gw = await startGateway();
  try {
    const doc = (await gw.get('/openapi.json')).body;
    for (const cap of CAPABILITIES) {
      const op = doc.paths[`/api/chain/${cap.name}`][cap.method.toLowerCase()];
      expect(op.responses['200'].content['application/json'].example).toEqual(EXAMPLES[cap.name]!.response);
      if (cap.method === 'POST') expect(op.requestBody.content['application/json'].example).toEqual(EXAMPLES[cap.name]!.request);
    }
  } finally {
    await gw.stop();
  }
}, 30_000);

test('the mainnet examples are what the gateway answers today for the recorded mainnet replies (else: bun run openapi:examples)', async () => {
  const fresh = await recordExamples({ sandbox: false });
  expect(Object.keys(fresh).sort()).toEqual(Object.keys(MAINNET_REQUESTS).sort());
  for (const name of Object.keys(MAINNET_REQUESTS)) expect(fresh[name]).toEqual(EXAMPLES[name]!);
}, 60_000);
