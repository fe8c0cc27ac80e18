// The paid chain capabilities end to end: real server, real SQLite, a real key bought with a real
// deposit, and state built on the sandbox chain with real transactions.
import { beforeAll, describe, expect, test } from 'bun:test';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';

const PRICE = 2_200_000;
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

const sandbox = sandboxGateways();
let gw: TestGateway;
let key: string;
let H: Record<string, string>;

const credit = async () => (await gw.get('/api/keys/me', H)).body.creditLamports as number;
const rpc = async (method: string, params: unknown[]) =>
  (
    (await fetch(sandbox.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) =>
      r.json(),
    )) as any
  ).result;

/** A transfer built by hand (unsigned: zero signature), with any blockhash, as an agent would send to simulate. */
function transferTx(from: Address, to: Address, lamports: bigint, version: 'legacy' | 0 = 'legacy', hash = 'H3asooJct4u6fQmtgTGEKrBhhuSnaHJoYJuB4N1eNG4z') {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(from, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(hash), lastValidBlockHeight: 1n }, m),
    (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: createNoopSigner(from), destination: to, amount: lamports }), m),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

beforeAll(async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  gw = await sandbox.gateway({ gatewayAddress, webhookSecret: 'whsec_chain', freeCalls: 0 });
  ({ key } = await fundedKey(gw, sandbox.chain, 200 * PRICE));
  H = { 'x-api-key': key };
});

describe('token-accounts', () => {
  test('lists holdings under both token programs with exact amounts', async () => {
    const owner = await sandbox.chain.newWallet();
    const classic = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
    const t22 = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 9, tokenProgram: 'token-2022' });
    await sandbox.chain.mintTo(classic, sandbox.chain.payer, owner.address, 1_500_000n);
    await sandbox.chain.mintTo(t22, sandbox.chain.payer, owner.address, 18_446_744_073_709_551_615n); // u64::MAX, beyond 2^53
    const res = await gw.get(`/api/chain/token-accounts?wallet=${owner.address}`, H);
    expect(res.status).toBe(200);
    expect(res.body.tokenCount).toBe(2);
    const byMint = Object.fromEntries(res.body.tokens.map((t: any) => [t.mint, t]));
    expect(byMint[classic]).toMatchObject({ tokenProgram: TOKEN, amount: '1500000', decimals: 6, uiAmountString: '1.5' });
    expect(byMint[t22]).toMatchObject({ tokenProgram: TOKEN_2022, amount: '18446744073709551615', decimals: 9, uiAmountString: '18446744073.709551615' });
    const [ata] = await findAssociatedTokenPda({ owner: owner.address, mint: classic, tokenProgram: address(TOKEN) });
    expect(byMint[classic].account).toBe(ata);
    expect(res.headers.get('x-credits-remaining')).toBeTruthy();
  });

  test('a wallet without tokens has none', async () => {
    const empty = await generateKeyPairSigner();
    const res = await gw.get(`/api/chain/token-accounts?wallet=${empty.address}`, H);
    expect(res.body).toMatchObject({ tokenCount: 0, tokens: [], live_status: 'SUCCESS' });
  });
});

describe('transactions', () => {
  let wallet: KeyPairSigner;
  const sigs: string[] = [];

  beforeAll(async () => {
    wallet = await sandbox.chain.newWallet(5_000_000_000n);
    const other = await generateKeyPairSigner();
    for (let i = 0; i < 4; i++) sigs.push(await sandbox.chain.transferSol(wallet, other.address, BigInt(1_000_000 + i), i === 2 ? { memo: 'rent for March' } : {}));
    sigs.push(await sandbox.chain.failingTransaction(wallet));
  });

  test('newest first, with slot, time, error, memo and status; limit and a before cursor page back', async () => {
    const first = await gw.get(`/api/chain/transactions?wallet=${wallet.address}&limit=3`, H);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(3);
    expect(first.body.transactions.map((t: any) => t.signature)).toEqual([sigs[4], sigs[3], sigs[2]]);
    const [failed, , withMemo] = first.body.transactions;
    expect(failed.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    // A signature list carries no logs, so the failing program cannot be named, only the code.
    expect(failed.error).toEqual({ message: 'instruction 0 failed: custom program error 0x1 (1)', instructionIndex: 0, programId: null, failedProgramId: null, customCode: 1, name: null, raw: failed.err });
    // the node writes "[14] rent for March": the text, without its length prefix
    expect(withMemo).toMatchObject({ memo: 'rent for March', err: null, error: null, confirmationStatus: 'finalized' });
    expect(Number.isInteger(withMemo.blockTime)).toBe(true);
    expect(first.body.nextBefore).toBe(sigs[2]);

    const next = await gw.get(`/api/chain/transactions?wallet=${wallet.address}&limit=3&before=${first.body.nextBefore}`, H);
    const older = next.body.transactions.map((t: any) => t.signature);
    expect(older.slice(0, 2)).toEqual([sigs[1], sigs[0]]);
    expect(older).not.toContain(sigs[2]);
  });

  test('the default limit is 10', async () => {
    const busy = await sandbox.chain.newWallet(5_000_000_000n);
    for (let i = 0; i < 12; i++) await sandbox.chain.transferSol(busy, sandbox.chain.payer.address, BigInt(1000 + i));
    const res = await gw.get(`/api/chain/transactions?wallet=${busy.address}`, H);
    expect(res.body.count).toBe(10);
  });

  test.each(['0', '101', '2.5', 'ten', '-1'])('limit=%s is a 400 that costs nothing', async (limit) => {
    const before = await credit();
    const res = await gw.get(`/api/chain/transactions?wallet=${wallet.address}&limit=${limit}`, H);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid limit');
    expect(await credit()).toBe(before);
  });
});

describe('find-ata', () => {
  test("derives with the mint's own program and says whether the account exists", async () => {
    const owner = await sandbox.chain.newWallet();
    const t22 = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 2, tokenProgram: 'token-2022' });
    const [expected] = await findAssociatedTokenPda({ owner: owner.address, mint: t22, tokenProgram: address(TOKEN_2022) });
    const before = await gw.get(`/api/chain/find-ata?wallet=${owner.address}&mint=${t22}`, H);
    expect(before.body).toMatchObject({ ataAddress: expected, tokenProgram: TOKEN_2022, exists: false });
    await sandbox.chain.mintTo(t22, sandbox.chain.payer, owner.address, 12_345n);
    const after = await gw.get(`/api/chain/find-ata?wallet=${owner.address}&mint=${t22}`, H);
    expect(after.body).toMatchObject({ ataAddress: expected, exists: true, amount: '12345', decimals: 2, uiAmountString: '123.45' });
    // An answer with the account is reused for a second (and still charged); one without never is.
    const reads = sandbox.chain.calls('getMultipleAccounts');
    const again = await gw.get(`/api/chain/find-ata?wallet=${owner.address}&mint=${t22}`, H);
    expect(again.body).toEqual(after.body);
    expect(sandbox.chain.calls('getMultipleAccounts')).toBe(reads);
    expect(Number(again.headers.get('x-credits-remaining'))).toBeLessThan(Number(after.headers.get('x-credits-remaining')));
    const stranger = await generateKeyPairSigner();
    for (let i = 0; i < 2; i++) expect((await gw.get(`/api/chain/find-ata?wallet=${stranger.address}&mint=${t22}`, H)).body.exists).toBe(false);
    expect(sandbox.chain.calls('getMultipleAccounts')).toBe(reads + 2);
  });

  test('an address that is not a mint is a 404 and is refunded', async () => {
    const owner = await sandbox.chain.newWallet();
    const before = await credit();
    const res = await gw.get(`/api/chain/find-ata?wallet=${owner.address}&mint=${owner.address}`, H);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not a token mint');
    expect(await credit()).toBe(before);
  });
});

describe('token-profile', () => {
  test('a Token-2022 mint with a transfer fee and a permanent delegate, holders resolved to owners', async () => {
    const holderA = await sandbox.chain.newWallet();
    const holderB = await sandbox.chain.newWallet();
    const [pool] = await getProgramDerivedAddress({ programAddress: address('675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8'), seeds: ['pool-vault'] });
    const mint = await sandbox.chain.createMint({
      authority: sandbox.chain.payer,
      decimals: 6,
      tokenProgram: 'token-2022',
      extensions: { transferFee: { basisPoints: 250, maximumFee: 5_000_000n }, permanentDelegate: sandbox.chain.payer.address },
    });
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, holderA.address, 600_000_000n);
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, pool, 300_000_000n);
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, holderB.address, 100_000_000n);

    const res = await gw.get(`/api/chain/token-profile?mint=${mint}`, H);
    expect(res.status).toBe(200);
    const p = res.body;
    expect(p).toMatchObject({ mint, tokenProgram: TOKEN_2022, decimals: 6, supply: '1000000000', uiSupply: '1000', mintAuthority: sandbox.chain.payer.address, freezeAuthority: null });
    const fee = p.extensions.find((e: any) => e.extension === 'transferFeeConfig');
    expect(fee.state.newerTransferFee.transferFeeBasisPoints).toBe(250);
    expect(p.extensions.find((e: any) => e.extension === 'permanentDelegate').state.delegate).toBe(sandbox.chain.payer.address);

    expect(p.topHolders.map((h: any) => [h.owner, h.kind, h.percent])).toEqual([
      [holderA.address, 'wallet', 60],
      [pool, 'program', 30],
      [holderB.address, 'wallet', 10],
    ]);
    expect(p.security.riskLevel).toBe('HIGH');
    expect(p.security.isHoneypotRisk).toBe(true);
    expect(p.security.flags).toEqual(expect.arrayContaining(['TRANSFER_FEE', 'PERMANENT_DELEGATE', 'MINT_AUTHORITY', 'HOLDER_CONCENTRATION_HIGH']));
    expect(p.security.flags).not.toContain('FREEZE_AUTHORITY');
    expect(p.security.concentration.all.top1Percent).toBe(60);
    expect(p.security.concentration.excludingProgramAndBurn.top10Percent).toBe(70);
    expect(typeof p.security.analysis).toBe('string');
  });

  test('a classic mint with both authorities revoked and spread holders reads LOW', async () => {
    const mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 0 });
    // 40 equal holders: the top 10 hold 25% of supply, under every concentration threshold.
    for (let i = 0; i < 40; i++) await sandbox.chain.mintTo(mint, sandbox.chain.payer, (await generateKeyPairSigner()).address, 1000n);
    await sandbox.chain.setMintAuthority(mint, sandbox.chain.payer, null);
    const res = await gw.get(`/api/chain/token-profile?mint=${mint}`, H);
    expect(res.body).toMatchObject({ mintAuthority: null, freezeAuthority: null, tokenProgram: TOKEN });
    expect(res.body.topHolders).toHaveLength(10);
    expect(res.body.security.riskLevel).toBe('LOW');
    expect(res.body.security.isHoneypotRisk).toBe(false);
  });

  test('when the node refuses the holder index (a recorded Helius error), the profile still answers and says so', async () => {
    const mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 3, freezeAuthority: sandbox.chain.payer.address });
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, sandbox.chain.payer.address, 5_000n);
    sandbox.chain.fault({ mode: 'rpcError', code: -32603, message: 'account index service overloaded, please try again.' }, { methods: ['getTokenLargestAccounts'] });
    const res = await gw.get(`/api/chain/token-profile?mint=${mint}`, H);
    sandbox.chain.fault(null);
    expect(res.status).toBe(200);
    expect(res.body.topHolders).toEqual([]);
    expect(res.body.security.flags).toEqual(expect.arrayContaining(['FREEZE_AUTHORITY', 'HOLDERS_UNAVAILABLE']));
  });

  test('a wallet address is not a mint: 404, refunded', async () => {
    const owner = await sandbox.chain.newWallet();
    const before = await credit();
    const res = await gw.get(`/api/chain/token-profile?mint=${owner.address}`, H);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not a token mint');
    expect(await credit()).toBe(before);
  });
});

describe('optimal-fee', () => {
  test('tiers are the 25/50/75th percentiles of the non-zero fees that landed, priced for compute units', async () => {
    const payer = await sandbox.chain.newWallet(10_000_000_000n);
    const prices = [100, 7_000, 2_500, 40_000, 1_200, 90_000, 15_000, 3_300, 500_000, 8_800, 61_000, 4_400];
    for (const price of prices) await sandbox.chain.transferSol(payer, sandbox.chain.payer.address, 1000n, { computeUnitPrice: BigInt(price) });
    // The expectation comes from the node's own samples, by plain sorting (not the code under test).
    const samples: { prioritizationFee: number }[] = await rpc('getRecentPrioritizationFees', []);
    const nonZero = samples.map((s) => s.prioritizationFee).filter((f) => f > 0).sort((a, b) => a - b);
    expect(nonZero).toEqual([...prices].sort((a, b) => a - b));
    const rank = (p: number) => nonZero[Math.ceil((p / 100) * nonZero.length) - 1]!;

    const res = await gw.get('/api/chain/optimal-fee?computeUnits=200000', H);
    expect(res.status).toBe(200);
    const floor = (v: number) => Math.max(v, 1000);
    expect(res.body.unit).toBe('microLamportsPerComputeUnit');
    expect(res.body.tiers.low.microLamportsPerComputeUnit).toBe(floor(rank(25)));
    expect(res.body.tiers.medium.microLamportsPerComputeUnit).toBe(floor(rank(50)));
    expect(res.body.tiers.high.microLamportsPerComputeUnit).toBe(floor(rank(75)));
    expect(res.body.tiers.high.totalLamports).toBe(Math.ceil((floor(rank(75)) * 200_000) / 1e6));
    expect(res.body.sampleSize).toBe(12);
    expect(res.body.window.slots).toBe(150);
    expect(res.body.policy).toContain('non-zero');
    expect(['low', 'moderate', 'high']).toContain(res.body.congestion);
  });

  test('accounts narrow the sample and are echoed; a bad account list is a 400 that costs nothing', async () => {
    const writer = await sandbox.chain.newWallet();
    const ok = await gw.get(`/api/chain/optimal-fee?accounts=${writer.address},${sandbox.chain.payer.address}`, H);
    expect(ok.status).toBe(200);
    expect(ok.body.accounts).toEqual([writer.address, sandbox.chain.payer.address]);
    const before = await credit();
    const bad = await gw.get('/api/chain/optimal-fee?accounts=notanaddress', H);
    expect(bad.status).toBe(400);
    expect((await gw.get('/api/chain/optimal-fee?computeUnits=0', H)).status).toBe(400);
    expect((await gw.get('/api/chain/optimal-fee?computeUnits=1400001', H)).status).toBe(400);
    expect(await credit()).toBe(before);
  });

  test('when the cluster gives no fees: 500 "Could not fetch prioritization fees from cluster", refunded', async () => {
    const before = await credit();
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getRecentPrioritizationFees'] });
    const res = await gw.get('/api/chain/optimal-fee?network=devnet&computeUnits=777', H);
    sandbox.chain.fault(null);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Could not fetch prioritization fees from cluster', live_status: 'FAILED' });
    expect(await credit()).toBe(before);
  });
});

describe('decode-tx', () => {
  test('a real SOL transfer: Transfer, amount and counterparty, slot/fee/time from the chain', async () => {
    const from = await sandbox.chain.newWallet(2_000_000_000n);
    const to = await generateKeyPairSigner();
    const sig = await sandbox.chain.transferSol(from, to.address, 123_456_789n);
    const res = await gw.get(`/api/chain/decode-tx?signature=${sig}`, H);
    expect(res.status).toBe(200);
    const chainTx = await rpc('getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(res.body).toMatchObject({ signature: sig, network: 'mainnet-beta', category: 'Transfer', live_status: 'SUCCESS' });
    expect(res.body.details).toEqual({ slot: chainTx.slot, fee: chainTx.meta.fee, timestamp: chainTx.blockTime, status: 'SUCCESS' });
    expect(res.body.summary).toContain('0.123456789 SOL');
    expect(res.body.summary).toContain(to.address.slice(0, 6));
    expect(res.body.raw_logs).toEqual(chainTx.meta.logMessages);
    expect(res.body.llm_context).toContain('Transfer');
  });

  test('a real token transfer names the token amount', async () => {
    const alice = await sandbox.chain.newWallet();
    const bob = await generateKeyPairSigner();
    const mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, alice.address, 10_000_000n);
    const sig = await sandbox.chain.transferToken(mint, alice, bob.address, 2_500_000n);
    const res = await gw.get(`/api/chain/decode-tx?signature=${sig}`, H);
    expect(res.body.category).toBe('Transfer');
    expect(res.body.summary).toContain('2.5');
  });

  test('a real failed transaction: details.status FAILED, the error named, the call itself a success', async () => {
    const wallet = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await sandbox.chain.failingTransaction(wallet);
    const res = await gw.get(`/api/chain/decode-tx?signature=${sig}`, H);
    expect(res.status).toBe(200);
    expect(res.body.details.status).toBe('FAILED');
    expect(res.body.live_status).toBe('SUCCESS');
    expect(res.body.summary).toMatch(/^Failed: /);
    expect(res.body.summary).toContain('0x1');
  });

  test('an unknown signature is 404 "Transaction not found or not yet confirmed", refunded', async () => {
    const before = await credit();
    const res = await gw.get(`/api/chain/decode-tx?signature=${'4'.repeat(88)}`, H);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Transaction not found or not yet confirmed');
    expect(await credit()).toBe(before);
  });

  test('a finalized transaction is read from the node once, then from the cache', async () => {
    const wallet = await sandbox.chain.newWallet(1_000_000_000n);
    const sig = await sandbox.chain.transferSol(wallet, sandbox.chain.payer.address, 5_000n);
    sandbox.chain.resetCalls();
    const first = await gw.get(`/api/chain/decode-tx?signature=${sig}`, H);
    const second = await gw.get(`/api/chain/decode-tx?signature=${sig}`, H);
    expect(second.body).toEqual(first.body);
    expect(sandbox.chain.calls('getTransaction')).toBe(1);
  });

  test.each([
    ['missing', '', 'Missing parameters'],
    ['not base58', '0OIl'.repeat(22), 'Invalid signature'],
    ['an address, not a signature', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'Invalid signature'],
  ])('signature %s: 400', async (_name, value, error) => {
    const res = await gw.get(`/api/chain/decode-tx?signature=${value}`, H);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
  });
});

describe('simulate', () => {
  test('a good unsigned legacy transfer with a stale blockhash simulates successfully and changes nothing', async () => {
    const from = await sandbox.chain.newWallet(1_000_000_000n);
    const to = await generateKeyPairSigner();
    const res = await gw.post('/api/chain/simulate', { transaction: transferTx(from.address, to.address, 250_000_000n) }, H);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, err: null, error: null, network: 'mainnet-beta', live_status: 'SUCCESS' });
    expect(res.body.logs).toContain('Program 11111111111111111111111111111111 success');
    expect(res.body.unitsConsumed).toBeGreaterThan(0);
    expect(res.body.replacementBlockhash.blockhash).toBeTruthy();
    expect((await gw.get(`/api/chain/balance?wallet=${to.address}`)).body.balance_lamports).toBe(0);
  });

  test('a v0 transaction that fails: success false with the error named; network may come in the query', async () => {
    const from = await sandbox.chain.newWallet(1_000_000_000n);
    const res = await gw.post('/api/chain/simulate?network=devnet', { transaction: transferTx(from.address, sandbox.chain.payer.address, 50_000_000_000n, 0) }, H);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
    expect(res.body.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    // the same error object as decode-tx's, its instruction's program named from the transaction itself
    expect(res.body.error).toMatchObject({ instructionIndex: 0, programId: '11111111111111111111111111111111', customCode: 1, name: 'ResultWithNegativeLamports', raw: res.body.err });
    expect(res.body.error.message).toContain('ResultWithNegativeLamports');
    expect(res.body.network).toBe('devnet');
  });

  test.each([
    ['missing transaction', {}, 'Missing parameters'],
    ['not base64', { transaction: 'not base64!' }, 'Invalid transaction'],
    ['base64 that is not a transaction', { transaction: Buffer.from('hello world, not a transaction').toString('base64') }, 'Invalid transaction'],
    ['over 1232 bytes', { transaction: Buffer.alloc(1300, 1).toString('base64') }, 'Invalid transaction'],
    ['a bad network in the body', { transaction: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAEDdheBW1o5mpmLum60xlPLO5WkwivTyvoB7aqUo2OcEWDG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA7mR0xSJrpalfBq0I511boL3w/AERVbEygx5T81V4P1sBAgIAAQwCAAAAQEIPAAAAAAA=', network: 'localnet' }, 'Invalid network'],
  ])('%s: 400 that costs nothing', async (_name, body, error) => {
    const before = await credit();
    const res = await gw.post('/api/chain/simulate', body, H);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.body.live_status).toBe('FAILED');
    expect(await credit()).toBe(before);
  });

  test('a body that is not a JSON object is a 400', async () => {
    expect((await gw.post('/api/chain/simulate', '"just a string"', H)).status).toBe(400);
    expect((await gw.post('/api/chain/simulate', '[1,2]', H)).status).toBe(400);
  });
});

describe("every paid capability's 400s cost nothing", () => {
  const paid = CAPABILITIES.filter((c) => c.paid);

  test('there are seven paid capabilities', () => {
    expect(paid.map((c) => c.name).sort()).toEqual(['decode-tx', 'find-ata', 'optimal-fee', 'simulate', 'token-accounts', 'token-profile', 'transactions']);
  });

  for (const cap of paid) {
    test(`${cap.name}: missing, malformed and bad-network requests`, async () => {
      const before = await credit();
      const required = Object.entries(cap.params).filter(([, p]) => p.required).map(([k]) => k);
      const valid = Object.fromEntries(required.map((k) => [k, cap.params[k]!.example!]));
      const send = (fields: Record<string, string>) =>
        cap.method === 'GET' ? gw.get(`/api/chain/${cap.name}?${new URLSearchParams(fields)}`, H) : gw.post(`/api/chain/${cap.name}`, fields, H);
      const attempts: Record<string, string>[] = [{ ...valid, network: 'mainnet' }];
      for (const k of required) {
        const { [k]: _dropped, ...rest } = valid;
        attempts.push(rest, { ...valid, [k]: 'x' });
      }
      if (!required.length) attempts.push({ network: '' + 'testnet' });
      for (const fields of attempts) {
        const res = await send(fields);
        expect(res.status).toBe(400);
        expect(res.body.live_status).toBe('FAILED');
        expect(res.body.hint).toBeTruthy();
      }
      expect(await credit()).toBe(before);
    });
  }
});
