// decode-tx told for a wallet (issue 35), on recorded mainnet transactions: the fee payer's side is today's
// answer word for word, and any other wallet's side leads with its own exact changes.
import { describe, expect, test } from 'bun:test';
import { type DecodeTxBody, describeTransaction } from '../../src/chain/tx/describe';
import { loadRecorded, recordedTransactionFiles } from '../support/recorded-transactions';

const options = { signature: 's', network: 'mainnet-beta' } as const;
const told = async (file: string, wallet?: string): Promise<DecodeTxBody> => describeTransaction(await loadRecorded(`getTransaction/${file}`), { ...options, wallet });

describe('the default side is unchanged', () => {
  test.each(recordedTransactionFiles)('%s: told for its fee payer it reads as without a wallet, which adds no wallet fields', async (file) => {
    const raw = await loadRecorded(file);
    const plain = describeTransaction(raw, options);
    expect('walletChanges' in plain).toBe(false);
    expect('counterparties' in plain).toBe(false);
    const payer = describeTransaction(raw, { ...options, wallet: plain.feePayer });
    expect(payer.summary).toBe(plain.summary);
    expect(payer.llm_context).toBe(plain.llm_context);
    expect(payer.walletChanges).toEqual({ ...plain.ownerChanges.find((o) => o.feePayer)!, feePayer: true });
  });
});

describe("another wallet's side", () => {
  test('a token sent to an existing account of a wallet that neither signed nor is named: received, from the sender', async () => {
    const body = await told('spl-audio-transferchecked-2022-audius.json', '5ZiE3vAkrdXBgyFL7KqG3RoEGBws4CjRcXVbABDLZTgx');
    expect(body.summary).toBe('Received 3 9LzCMq…xrqM from iVsXfN…zfJ4');
    expect(body.llm_context).toEndWith('is categorized as Transfer: Received 3 9LzCMq…xrqM from iVsXfN…zfJ4.');
    expect(body.walletChanges).toEqual({
      owner: '5ZiE3vAkrdXBgyFL7KqG3RoEGBws4CjRcXVbABDLZTgx',
      signer: false,
      feePayer: false,
      feeLamports: 0,
      changes: [{ asset: '9LzCMqDgTKYz9Drzqnpgee3SGa89up3a247ypMj2xrqM', symbol: null, decimals: 8, raw: '300000000', amount: '3', counterparty: 'iVsXfN4oZnARo6AYwm8FFXBnDQYnwhkPxJiuPHDzfJ4' }],
      tokenAccountRentLamports: 0,
      tokenAccountRentPaidBy: null,
    });
    expect(body.counterparties).toEqual(['iVsXfN4oZnARo6AYwm8FFXBnDQYnwhkPxJiuPHDzfJ4']);
    // the rest of the answer is the transaction's, whoever it is told for
    const plain = await told('spl-audio-transferchecked-2022-audius.json');
    expect({ ...body, summary: plain.summary, llm_context: plain.llm_context, walletChanges: undefined, counterparties: undefined }).toEqual({ ...plain, walletChanges: undefined, counterparties: undefined });
  });

  test('a co-signer whose transaction another wallet paid for: its own burn leads, the fee payer follows, named so', async () => {
    const wallet = 'BSCzizFg1AdKA5fFbQM5x44jTAtypWgShgeje8xeZooa';
    const body = await told('token-burn-close-account-two-signers-block-sava.json', wallet);
    expect(body.summary).toBe(
      'Sent 0.00203928 SOL and burned 751841.958784 7xavhM…pCNZ (plus 0.00203928 SOL rent recovered from closed token accounts); fee payer ETBHkT…HAL6 received 0.00203828 SOL from BSCziz…Zooa',
    );
    expect(body.walletChanges).toMatchObject({ owner: wallet, signer: true, feePayer: false, feeLamports: 0, tokenAccountRentLamports: -2039280 });
    expect(body.walletChanges!.changes.map((c) => [c.asset, c.raw])).toEqual([
      ['SOL', '-2039280'],
      ['7xavhMG8c8xirE4q2Y5SjCdJjRB7MSwg9Jsq98ZppCNZ', '-751841958784'],
    ]);
    expect(body.counterparties).toEqual(['ETBHkTViiU2eKDALKCYSmCCLVuRMngRCAJM3mmC8HAL6']);
    expect((await told('token-burn-close-account-two-signers-block-sava.json')).summary).toStartWith('Received 0.00203828 SOL from BSCziz…Zooa');
  });

  test("a failed transaction told for a wallet it did not charge names no fee for it", async () => {
    const body = await told('failed-raydium-amm-v4-swap-slippage-custom30-bloxroute-base64-sava.json', '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H');
    expect(body.summary).toBe('Failed: Raydium AMM v4 swap reverted with custom program error 0x1e (30, ExceededSlippage); no balance change for 8wytzy…AX1H');
    expect(body.walletChanges).toMatchObject({ signer: false, feePayer: false, feeLamports: 0, changes: [] });
    expect(body.counterparties).toEqual(['66ZC9U8y1uYaAxt4WFYVW11YZeZohvi8ev6wBHsAxykh']);
  });
});

describe("a token account opened for a wallet that did not sign, at another's cost", () => {
  // its rent is in the wallet's SOL (walletChanges stay exact), but it is said as paid by the other, never as
  // rent the wallet paid on top; the payer's own telling is as before
  test('an Audius user bank whose token account its relayer opened: nothing else for it, the rent the relayer’s', async () => {
    const bank = '5ZiE3vAkrdXBgyFL7KqG3RoEGBws4CjRcXVbABDLZTgx';
    const body = await told('audius-userbank-create-token-account-audius.json', bank);
    expect(body.summary).toBe(
      'Account management through program Ewkv3J…rezQ (create_token_account); no balance change for 5ZiE3v…ZTgx apart from its new token account, whose 0.00203928 SOL rent JsP7iv…AmT9 paid',
    );
    expect(body.llm_context).toEndWith(`${body.summary}.`);
    // the bank's own account: 11030000 before and after; its token account AqxuSw…: 0 -> 2039280 lamports, 0 AUDIO;
    // the relayer JsP7iv…: -2044280, the 5000 fee and that rent
    expect(body.walletChanges).toEqual({
      owner: bank,
      signer: false,
      feePayer: false,
      feeLamports: 0,
      // the rent the relayer put into its new token account is said as that, not as SOL it received
      changes: [],
      tokenAccountRentLamports: 2039280,
      tokenAccountRentPaidBy: 'JsP7ivVoNhQZXMDmQd5m6VP6mYmycdCFHzK3i2jAmT9',
    });
    expect((await told('audius-userbank-create-token-account-audius.json')).summary).toBe(
      "Paid 0.00203928 SOL rent to open 5ZiE3v…ZTgx's token account through program Ewkv3J…rezQ (create_token_account)",
    );
  });

  test('USDC sent to a new associated account the sender opened: received, with whose rent it was', async () => {
    const receiver = '3UJQqKq8Xyx4aVRmHgEwpQZiW7toYRQCTy6Bgp1RdKnK';
    const body = await told('spl-usdc-transfer-create-ata-gem.json', receiver);
    expect(body.summary).toBe("Received 0.1 USDC from 37BenM…9D6k (its new token account's 0.00203928 SOL rent paid by 37BenM…9D6k)");
    // its token account 8dqL6j…: 0 -> 2039280 lamports and 0 -> 100000 USDC; the sender 37BenM…: -2044780 (5500 fee)
    expect(body.walletChanges!.changes.map((c) => [c.asset, c.raw, c.counterparty])).toEqual([
      ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '100000', '37BenMAXFJMo3GaXKb2XLsNQXmd6VbbdShZWnwDj9D6k'],
    ]);
    expect(body.walletChanges).toMatchObject({ tokenAccountRentLamports: 2039280, tokenAccountRentPaidBy: '37BenMAXFJMo3GaXKb2XLsNQXmd6VbbdShZWnwDj9D6k' });
    expect((await told('spl-usdc-transfer-create-ata-gem.json')).summary).toBe("Sent 0.1 USDC to 3UJQqK…dKnK and paid 0.00203928 SOL rent to open 3UJQqK…dKnK's token account");
  });

  test('when its SOL change names no one, the payer is the owner whose SOL opened its account', async () => {
    const body = await told('nft-metaplex-pnft-transfer-gem.json', 'G7B17AigRCGvwnxFc5U8zY5T3NBGduLzT7KYApNU2VdR');
    expect(body.walletChanges!.changes.map((c) => c.asset)).not.toContain('SOL');
    expect(body.walletChanges).toMatchObject({ tokenAccountRentLamports: 2039280, tokenAccountRentPaidBy: '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H' });
    expect(body.summary).toEndWith("for G7B17A…2VdR: received 1 96rMF7…gWK6 from 8wytzy…AX1H (its new token account's 0.00203928 SOL rent paid by 8wytzy…AX1H)");
  });
});
