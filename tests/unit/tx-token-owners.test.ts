// Owners for token balances a pre-2022 node sent without one, and order-book orders placed and settled at
// once, on recorded mainnet transactions (tests/fixtures/mainnet/SOURCES.md), every amount exact.

import { describe, expect, test } from 'bun:test';
import { type DecodeTxBody, describeTransaction } from '../../src/chain/tx/describe';
import { normalizeTransaction } from '../../src/chain/tx/normalize';
import { ownerlessTokenAccounts, tokenOwnersFromInstructions, tokenOwnersFromRoles } from '../../src/chain/tx/token-owners';
import { ownersToLookUp } from '../../src/capabilities/decode-tx';
import { loadRecorded, recordedTransactionFiles } from '../support/recorded-transactions';
import { payerChanges } from '../support/decoded.ts';

const DIR = 'getTransaction-jsonParsed';
const SOL_TO_USDC = `${DIR}/serum-swap-sol-to-usdc-ownerless-2021-p2p.json`;
const TWO_MARKETS = `${DIR}/serum-swap-transitive-btc-usdc-eth-ownerless-2021-p2p.json`;
const USDT_TO_USDC = `${DIR}/serum-swap-usdt-to-usdc-ownerless-2021-p2p.json`;
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BTC = '9n4nbM75f5Ui33ZbPYXn59EwSgE8CGsHtAeTH5YFeJ9E';
const ETH = '2FPyTwcZLUg1MDrwsyoP4D6s1tM7hAkHYRjkNb5w6Pxk';

async function decode(file: string, tokenOwners?: ReadonlyMap<string, string>): Promise<DecodeTxBody> {
  return describeTransaction(await loadRecorded(file), { signature: 's', network: 'mainnet-beta', tokenOwners });
}

const changes = (body: DecodeTxBody, owner: string) =>
  Object.fromEntries(body.ownerChanges.find((o) => o.owner === owner)!.changes.map((c) => [c.asset, c.raw]));

describe('owners from the transaction itself', () => {
  test('on every recorded transaction whose node sent owners, owners stripped and found again are never wrong', async () => {
    let found = 0;
    let total = 0;
    for (const file of recordedTransactionFiles) {
      const tx = normalizeTransaction(await loadRecorded(file));
      const real = new Map([...tx.preTokenBalances, ...tx.postTokenBalances].flatMap((b) => (b.owner && b.account ? [[b.account, b.owner] as const] : [])));
      const strip = (list: typeof tx.preTokenBalances) => list.map((b) => ({ ...b, owner: null }));
      const inferred = tokenOwnersFromInstructions({ ...tx, preTokenBalances: strip(tx.preTokenBalances), postTokenBalances: strip(tx.postTokenBalances) });
      for (const [account, owner] of inferred) {
        if (!real.has(account)) continue; // an owner-less fixture: nothing to compare with
        expect({ account, owner }).toEqual({ account, owner: real.get(account)! });
        found++;
      }
      total += real.size;
    }
    // json and jsonParsed encodings alike: initialize, ATA create, approve, close and transfer authorities
    expect(total).toBeGreaterThanOrEqual(120);
    expect(found).toBeGreaterThanOrEqual(60);
  });

  test('account roles, on every recorded transaction whose node sent owners, stripped and found again are never wrong', async () => {
    let found = 0;
    for (const file of recordedTransactionFiles) {
      const tx = normalizeTransaction(await loadRecorded(file));
      const real = new Map([...tx.preTokenBalances, ...tx.postTokenBalances].flatMap((b) => (b.owner && b.account ? [[b.account, b.owner] as const] : [])));
      const strip = (list: typeof tx.preTokenBalances) => list.map((b) => ({ ...b, owner: null }));
      const stripped = { ...tx, preTokenBalances: strip(tx.preTokenBalances), postTokenBalances: strip(tx.postTokenBalances) };
      // what the Token instructions leave unknown, the roles of Raydium AMM v4 swaps (direct and under routers) give
      for (const [account, owner] of tokenOwnersFromRoles(stripped, tokenOwnersFromInstructions(stripped))) {
        if (!real.has(account)) continue;
        expect({ file, account, owner }).toEqual({ file, account, owner: real.get(account)! });
        found++;
      }
    }
    expect(found).toBeGreaterThanOrEqual(10);
  });

  test('an ATA create, an initializeAccount and a transfer authority give the Serum swap’s accounts their owner', async () => {
    const body = await decode(SOL_TO_USDC);
    const WALLET = 'D7XYERWodEGaoN2X855T2qLvse28BSjfkvfCyW2EDBWy';
    const usdcAccount = body.accountChanges.find((a) => a.address === '375DTPnEBUjCnvQpGQtg5nRQudwa6oXWEYB15X6MmJs6')!;
    expect(usdcAccount.token).toEqual({ mint: USDC, owner: WALLET, decimals: 6, before: '0', after: '14198095', change: '14198095' });
    // 0.1 SOL wrapped, sold; 0.02335776 SOL for the open-orders account; the ATA's rent apart
    expect(changes(body, WALLET)).toEqual({ SOL: '-123357760', [USDC]: '14198095' });
    expect(body.ownerChanges.find((o) => o.owner === WALLET)!.tokenAccountRentLamports).toBe(2039280);
  });

  test('the transaction’s own word wins over the chain’s account as it is now', async () => {
    const body = await decode(SOL_TO_USDC, new Map([['375DTPnEBUjCnvQpGQtg5nRQudwa6oXWEYB15X6MmJs6', 'GBWgHXLf1fX4J1p5fAkQoEbnjpgjxUtr4mrVgtj9wW8a']]));
    expect(body.accountChanges.find((a) => a.address === '375DTPnEBUjCnvQpGQtg5nRQudwa6oXWEYB15X6MmJs6')!.token!.owner).toBe('D7XYERWodEGaoN2X855T2qLvse28BSjfkvfCyW2EDBWy');
  });

  test('only accounts the transaction leaves without an owner are looked up', async () => {
    const tx = normalizeTransaction(await loadRecorded(TWO_MARKETS));
    expect(ownerlessTokenAccounts(tx)).toHaveLength(7);
    // the wallet's BTC and USDC accounts (its transfer authority) and the markets' vaults (their vault
    // signers' transfers) are named by the Token instructions; the ETH account that merely received by the
    // swap program's account roles (its `to` market's coin wallet, under the swap's authority): none is asked
    expect(tokenOwnersFromInstructions(tx).has('FT3A24vCezU25TzvDfPmDdHwpHDQdYZU4Z6Lt3Kf8WsT')).toBe(false);
    expect(ownersToLookUp(tx)).toEqual([]);
    // an SPL token-swap trade: the pool's vault by its authority; only the pool's fee accounts are asked
    const swap = normalizeTransaction(await loadRecorded(`${DIR}/spl-token-swap-swap-ownerless-2021-p2p.json`));
    expect(ownerlessTokenAccounts(swap)).toHaveLength(5);
    expect(ownersToLookUp(swap)).toEqual(['FuKSC9kecoxjWtvMKWjEHBNq7FiGGke25QfGekrUMwYA', '6PWov55cdXr9fXcrPMWXVVSDhw3egbkZZvr28He6FnAc']);
  });
});

describe('a two-market swap through an order-book router, read before as "an order placed, no balance change"', () => {
  const WALLET = 'DzrpNNxx1L6zjtGEWDygBovY1UJmU3woZzC8GXhN3fbU';
  const ETH_ACCOUNT = 'FT3A24vCezU25TzvDfPmDdHwpHDQdYZU4Z6Lt3Kf8WsT';

  test('from the transaction alone: BTC for USDC and ETH, the ETH account the wallet’s by the swap program’s account roles', async () => {
    const body = await decode(TWO_MARKETS);
    expect(body.kind).toBe('swap');
    expect(body.category).toBe('Swap');
    expect(body.summary).toBe('Swapped 0.001 9n4nbM…eJ9E for 0.238744 USDC and 0.013 2FPyTw…6Pxk via Serum DEX v3');
    expect(body.summary).not.toContain('no balance change');
    expect(body.accountChanges.find((a) => a.address === ETH_ACCOUNT)!.token).toMatchObject({ owner: WALLET, change: '13000' });
  });

  test('the account roles win over the chain’s account as it is now (it may have changed hands since)', async () => {
    const body = await decode(TWO_MARKETS, new Map([[ETH_ACCOUNT, 'GBWgHXLf1fX4J1p5fAkQoEbnjpgjxUtr4mrVgtj9wW8a']]));
    expect(body.summary).toBe('Swapped 0.001 9n4nbM…eJ9E for 0.238744 USDC and 0.013 2FPyTw…6Pxk via Serum DEX v3');
    expect(changes(body, WALLET)).toEqual({ [BTC]: '-1000', [USDC]: '238744', [ETH]: '13000' });
    expect(payerChanges(body).changes.map((c) => c.amount)).toEqual(['-0.001', '0.238744', '0.013']);
  });
});

describe('order-book orders placed and settled at once', () => {
  test('USDT for USDC on one Serum market: the USDC account (the swap’s pc wallet) is the authority’s, so a swap without any look-up', async () => {
    const WALLET = 'G8PrkEwmVx3kt3rXBin5o1bdDC1cvz7oBnXbHksNg7R4';
    const tx = normalizeTransaction(await loadRecorded(USDT_TO_USDC));
    // the Token instructions leave it unknown (it only received): the roles name it
    expect(tokenOwnersFromInstructions(tx).has('8TnZDzWSzkSrRVxwGY6uPTaPSt2NDBvKD6uA5SZD3P87')).toBe(false);
    expect(ownersToLookUp(tx)).toEqual([]);
    const after = await decode(USDT_TO_USDC);
    expect(after.kind).toBe('swap');
    expect(after.categoryFit).toBe('exact');
    expect(after.summary).toBe('Swapped 2 USDT for 1.993604 USDC via Serum DEX v3');
    expect(changes(after, WALLET)).toEqual({ Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: '-2000000', [USDC]: '1993604' });
  });

  test('USDC for SRM with the open-orders account’s rent kept apart from the price', async () => {
    const body = await decode(`${DIR}/serum-swap-usdc-to-srm-ownerless-2021-p2p.json`);
    expect(body.summary).toBe(
      'Swapped 4.458287 USDC for 0.5 SRMuAp…KWRt via Serum DEX v3 (plus 0.00203928 SOL rent for new token accounts; 0.02335776 SOL rent for 1 account it opened)',
    );
    expect(changes(body, 'D7XYERWodEGaoN2X855T2qLvse28BSjfkvfCyW2EDBWy')).toEqual({
      SOL: '-23357760',
      [USDC]: '-4458287',
      SRMuApVNdxXokk5GT7XD5cUUgXMBCoAz2LHeuAoKWRt: '500000',
    });
  });

  test('a market maker that places orders and settles, putting in both sides, stays an order placed', async () => {
    const body = await decode('getTransaction/openbook-v2-cancel-all-and-place-orders-block-sava.json');
    expect(body.actions.some((a) => a.name === 'settle_funds')).toBe(true);
    expect(body.kind).toBe('order_place');
  });
});
