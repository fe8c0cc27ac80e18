// The pure parts of simulate's balance changes: writable accounts of a message and lookup-table contents.
import { describe, expect, test } from 'bun:test';
import { base58 } from '@scure/base';
import { LookupTableError, accountState, lookupTableAddresses, writableAccounts } from '../../src/chain/tx/simulated';

const A = base58.encode(new Uint8Array(32).fill(7));
const B = base58.encode(new Uint8Array(32).fill(9));

describe('lookup tables', () => {
  test('addresses start after the 56-byte table header; a trailing partial entry is ignored', () => {
    const data = new Uint8Array(56 + 64 + 5);
    data.set(base58.decode(A), 56);
    data.set(base58.decode(B), 88);
    expect(lookupTableAddresses(data)).toEqual([A, B]);
    expect(lookupTableAddresses(new Uint8Array(40))).toEqual([]);
  });

  test('a missing table or an index past its end is refused, not guessed', () => {
    const wire = { signers: [A], instructionPrograms: [], writableStatic: [A], lookups: [{ table: B, writableIndexes: [3] }] };
    expect(() => writableAccounts(wire, new Map())).toThrow(LookupTableError);
    expect(() => writableAccounts(wire, new Map([[B, [A, B]]]))).toThrow(`address lookup table ${B} has no entry 3`);
    expect(writableAccounts({ ...wire, lookups: [{ table: B, writableIndexes: [1, 0] }] }, new Map([[B, [A, B]]]))).toEqual([A, B]);
  });
});

describe('account states', () => {
  test('a token account needs the token program as owner; anything else is lamports only', () => {
    const token = { lamports: 2039280, owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', data: { parsed: { type: 'account', info: { mint: A, owner: B, tokenAmount: { amount: '18446744073709551615', decimals: 6 } } } } };
    expect(accountState(token)).toEqual({ lamports: 2039280n, token: { mint: A, owner: B, amount: 18446744073709551615n, decimals: 6, programId: token.owner } });
    // the same parsed shape under another owner program is not trusted as a token balance
    expect(accountState({ ...token, owner: A })).toEqual({ lamports: 2039280n, token: null });
    expect(accountState({ ...token, data: { parsed: { type: 'account', info: { mint: A, owner: B, tokenAmount: { amount: '1', decimals: 300 } } } } })!.token).toBeNull();
    expect(accountState(null)).toBeNull();
  });
});
