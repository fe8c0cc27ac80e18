// The recorded chain (tests/support/recorded-chain.ts) answers jsonParsed and base64 recordings in the json
// encoding the gateway asks for: each rebuilt message must be the one its signers signed, and decode as the
// recording does.
import { expect, test } from 'bun:test';
import { type Address, type SignatureBytes, getPublicKeyFromAddress, verifySignature } from '@solana/kit';
import { base58 } from '@scure/base';
import { describeTransaction } from '../../src/chain/tx/describe';
import { asJsonEncoding, messageBytes } from '../support/json-encoding';
import { loadRecorded, recordedTransactionFiles } from '../support/recorded-transactions';

// every legacy jsonParsed recording whose parsed forms it re-encodes, and every base64 one
const rebuilt = recordedTransactionFiles.filter((f) => f.includes('ownerless-2021') || f.includes('base64'));

test.each(rebuilt)('%s: in json, signed by every signer and decoded as recorded', async (file) => {
  const parsed = await loadRecorded(file);
  const json = asJsonEncoding(parsed) as any;
  const { signatures, message } = json.transaction;
  const bytes = messageBytes(json);
  for (const [i, signature] of (signatures as string[]).entries()) {
    const key = await getPublicKeyFromAddress(message.accountKeys[i] as Address);
    expect(await verifySignature(key, base58.decode(signature) as SignatureBytes, bytes)).toBe(true);
  }
  const options = { signature: 's', network: 'mainnet-beta' } as const;
  const [a, b] = [describeTransaction(parsed, options), describeTransaction(json, options)];
  // the node's parsed names are camelCase, the decoder's tables snake_case: the same instruction either way
  const snake = (name: string | null) => name?.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) ?? null;
  expect(b.actions.map((x) => snake(x.name))).toEqual(a.actions.map((x) => snake(x.name)));
  const unnamed = (body: typeof a) => ({ ...body, actions: body.actions.map((x) => ({ ...x, name: null })) });
  expect(unnamed(b)).toEqual(unnamed(a));
});

test('a parsed form it cannot re-encode is refused, not guessed', () => {
  const tx = { transaction: { signatures: ['s'], message: { accountKeys: [{ pubkey: 'A', signer: true, writable: true }], recentBlockhash: 'B', instructions: [{ programId: 'A', program: 'spl-token', parsed: { type: 'setAuthority', info: {} } }] } }, meta: {} };
  expect(() => asJsonEncoding(tx)).toThrow('no json form for spl-token setAuthority');
});
