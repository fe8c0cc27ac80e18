// Watch ingestion (issue 40) on the sandbox chain: each transaction touching a watched wallet, directly
// or only through one of its token accounts, is handed to the watches once, with the item exactly as
// `transactions?decode=true` lists it for that wallet; a node WebSocket cut for 30 s and a restart lose
// nothing (the gap fill from the durable cursors).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { findAssociatedTokenPda } from '@solana-program/token';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import * as cpmm from '../support/amm/raydium-cpmm.ts';
import { signedTransaction } from '../support/sandbox/testing.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { within } from '../support/poll.ts';
import { startTestIngestion, type TestIngestion } from '../support/watch-ingest.ts';
import { registry } from '../../src/metrics.ts';

const sandbox = sandboxGateways({ mint: true });
let gw: TestGateway;
let H: Record<string, string>;
let ing: TestIngestion;
let sender: KeyPairSigner;

beforeAll(async () => {
  const chain = sandbox.chain;
  gw = await sandbox.gateway({ gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_ingest', freeCalls: 0, rpcRetries: 0 });
  H = { 'x-api-key': (await fundedKey(gw, chain, 200_000_000)).key };
  sender = await chain.newWallet(20_000_000_000n);
  await chain.mintTo(sandbox.mint, chain.payer, sender.address, 10_000_000_000n);
  ing = await startTestIngestion({ rpcUrl: chain.url, subscriptionsOpen: () => chain.pubsub.open().subscriptions, settings: { watchFillSeconds: 3600 } });
});

afterAll(async () => {
  await ing?.stop();
});

/** A new wallet watched, once its ingestion is in place (cursor kept, subscription acknowledged). */
async function watched(lamports = 1_000_000_000n): Promise<KeyPairSigner> {
  const w = await sandbox.chain.newWallet(lamports);
  ing.sink.watch([w.address]);
  await ing.settled();
  return w;
}

/** The wallet's records once `n` are in (and a moment more, for a stray duplicate to show). */
async function recordsOf(wallet: Address, n: number, timeoutMs = 10_000) {
  expect(await within(timeoutMs, () => ing.sink.of(wallet).length >= n)).not.toBeNull();
  await ing.settled();
  return ing.sink.of(wallet);
}

/** The item `transactions?decode=true` lists for this signature, asked of the gateway. */
async function historyItem(wallet: Address, signature: string) {
  const res = await gw.get(`/api/chain/transactions?wallet=${wallet}&decode=true&limit=25`, H);
  expect(res.status).toBe(200);
  const item = res.body.transactions.find((t: { signature: string }) => t.signature === signature);
  expect(item).toBeDefined();
  return item;
}

async function expectExactlyOne(wallet: Address, signature: string) {
  const records = await recordsOf(wallet, 1);
  expect(records.map((r) => r.signature)).toEqual([signature]);
  const [r] = records;
  expect(r).toMatchObject({ network: 'mainnet-beta', commitment: 'confirmed' });
  expect({ slot: r!.slot, blockTime: r!.blockTime }).toEqual({ slot: r!.item.slot as number, blockTime: r!.item.blockTime as number });
  expect(r!.item).toEqual(await historyItem(wallet, signature));
  return r!;
}

describe('each transaction touching a watched wallet is handed over once, decoded as decode=true lists it', () => {
  test('SOL received', async () => {
    const w = await watched();
    const sig = await sandbox.chain.transferSol(sender, w.address, 123_000_000n);
    const r = await expectExactlyOne(w.address, sig);
    expect(r.item).toMatchObject({ foundVia: 'wallet', kind: 'transfer', status: 'SUCCESS' });
  });

  test('SPL token received (its token account created by the transfer), then a transfer naming only that token account', async () => {
    const w = await watched();
    const first = await sandbox.chain.transferToken(sandbox.mint, sender, w.address, 5_000_000n);
    await expectExactlyOne(w.address, first);
    // the new token account is listed and followed: a transfer into it that names no key of the wallet is found through it
    await ing.settled();
    const onlyAccount = await sandbox.chain.transferToken(sandbox.mint, sender, w.address, 7_000_000n, { createDestination: false });
    const records = await recordsOf(w.address, 2);
    expect(records.map((r) => r.signature)).toEqual([first, onlyAccount]);
    expect(records[1]!.item).toEqual(await historyItem(w.address, onlyAccount));
    expect(records[1]!.item).toMatchObject({ foundVia: 'token_account', kind: 'transfer' });
  });

  test('Token-2022 received', async () => {
    const mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 9, tokenProgram: 'token-2022' });
    await sandbox.chain.mintTo(mint, sandbox.chain.payer, sender.address, 1_000_000_000_000n);
    const w = await watched();
    const sig = await sandbox.chain.transferToken(mint, sender, w.address, 2_500_000_000n);
    const r = await expectExactlyOne(w.address, sig);
    expect((r.item.walletChanges as { changes: { asset: string; raw: string }[] }).changes).toContainEqual(expect.objectContaining({ asset: mint, raw: '2500000000' }));
  });

  test('an existing token account, made before the watch, named alone by the transfer', async () => {
    const w = await sandbox.chain.newWallet(1_000_000_000n);
    await sandbox.chain.createAta(w.address, sandbox.mint);
    ing.sink.watch([w.address]);
    await ing.settled();
    const sig = await sandbox.chain.transferToken(sandbox.mint, sender, w.address, 1_000_000n, { createDestination: false });
    const r = await expectExactlyOne(w.address, sig);
    expect(r.item).toMatchObject({ foundVia: 'token_account' });
  });

  test('a swap on Raydium CPMM (its real program)', async () => {
    const chain = sandbox.chain;
    chain.svm.addProgramFromFile(cpmm.RAYDIUM_CPMM, join(import.meta.dir, '../fixtures/programs/raydium_cpmm.so'));
    const creator = await chain.newWallet(5_000_000_000n);
    const mintX = await chain.createMint({ authority: chain.payer, decimals: 6 });
    const mintY = await chain.createMint({ authority: chain.payer, decimals: 9 });
    await chain.mintTo(mintX, chain.payer, creator.address, 10n ** 13n);
    await chain.mintTo(mintY, chain.payer, creator.address, 10n ** 16n);
    const ata = async (owner: Address, mint: Address) => (await findAssociatedTokenPda({ owner, mint, tokenProgram: cpmm.TOKEN_PROGRAM }))[0];
    const { ammConfig } = await cpmm.installCpmmConfig(chain.svm, chain.payer.address);
    const pool = await cpmm.poolAccounts(ammConfig, mintX, mintY);
    const run = async (signer: KeyPairSigner, ix: Parameters<typeof signedTransaction>[2][number]) => {
      const sent = await chain.send(await signedTransaction(chain.url, signer, [getSetComputeUnitLimitInstruction({ units: 1_400_000 }), ix]));
      expect(sent.err).toBeNull();
      return sent.signature;
    };
    await run(creator, cpmm.initialize(creator, ammConfig, pool, 1_000_000_000n, 2_000_000_000n, { token0: await ata(creator.address, pool.mint0), token1: await ata(creator.address, pool.mint1), lp: await ata(creator.address, pool.lpMint) }));
    const trader = await watched(2_000_000_000n);
    await chain.mintTo(mintX, chain.payer, trader.address, 50_000_000n);
    await chain.createAta(trader.address, mintY);
    await ing.settled();
    const before = ing.sink.of(trader.address).length;
    const sig = await run(trader, cpmm.swapBaseInput(trader, ammConfig, pool, mintX, 10_000_000n, 1n, { input: await ata(trader.address, mintX), output: await ata(trader.address, mintY) }));
    const records = await recordsOf(trader.address, before + 1);
    expect(records.filter((r) => r.signature === sig)).toHaveLength(1);
    const r = records.find((x) => x.signature === sig)!;
    expect(r.item).toEqual(await historyItem(trader.address, sig));
    expect(r.item).toMatchObject({ category: 'Swap', kind: 'swap', foundVia: 'wallet' });
  });

  test('a failed transaction of the wallet', async () => {
    const w = await watched();
    const sig = await sandbox.chain.failingTransaction(w);
    const r = await expectExactlyOne(w.address, sig);
    expect(r.item).toMatchObject({ status: 'FAILED', foundVia: 'wallet' });
    expect(r.item.err).not.toBeNull();
  });

  test('a wallet watched at finalized is ingested apart, its records told as finalized', async () => {
    const w = await sandbox.chain.newWallet(1_000_000_000n);
    ing.sink.watch([w.address], 'finalized');
    await ing.settled();
    const sig = await sandbox.chain.transferSol(sender, w.address, 9_000_000n);
    expect(await within(10_000, () => ing.sink.of(w.address, 'finalized').length === 1)).not.toBeNull();
    await ing.settled();
    const [r] = ing.sink.of(w.address, 'finalized');
    expect(r).toMatchObject({ signature: sig, commitment: 'finalized' });
    expect(r!.item).toEqual(await historyItem(w.address, sig));
    expect(ing.sink.of(w.address, 'confirmed')).toEqual([]);
    ing.sink.unwatch([w.address], 'finalized');
  });

  test('transactions before the watch are not news, and an unwatched wallet is not followed', async () => {
    const w = await sandbox.chain.newWallet(1_000_000_000n);
    await sandbox.chain.transferSol(sender, w.address, 1_000_000n);
    ing.sink.watch([w.address]);
    await ing.settled();
    ing.sink.unwatch([w.address]);
    await ing.settled();
    await sandbox.chain.transferSol(sender, w.address, 2_000_000n);
    await Bun.sleep(500);
    expect(ing.sink.of(w.address)).toEqual([]);
  });
});

describe('nothing is lost', () => {
  test("the node's WebSocket cut for 30 s: reconnected with backoff, the gap filled, each transaction once", async () => {
    const w = await watched();
    const chain = sandbox.chain;
    const before = await chain.transferSol(sender, w.address, 1_000_000n);
    await recordsOf(w.address, 1);
    chain.pubsub.cut();
    const during: string[] = [];
    for (let i = 0; i < 3; i++) {
      during.push(await chain.transferSol(sender, w.address, 1_000_000n + BigInt(i)));
      await Bun.sleep(10_000);
    }
    expect(chain.pubsub.open().connections).toBe(0);
    expect(ing.sink.of(w.address).map((r) => r.signature)).toEqual([before]); // no socket, and the interval is an hour
    chain.pubsub.restore();
    const records = await recordsOf(w.address, 4, 45_000);
    expect(records.map((r) => r.signature)).toEqual([before, ...during]);
    for (const r of records.slice(1)) expect(r.item).toEqual(await historyItem(w.address, r.signature));
    // and the socket carries notifications again
    const after = await chain.transferSol(sender, w.address, 5_000_000n);
    expect((await recordsOf(w.address, 5)).map((r) => r.signature)).toEqual([before, ...during, after]);
  }, 90_000);

  test('a restart resumes from the cursor: what landed while stopped is handed over, nothing before it again', async () => {
    const chain = sandbox.chain;
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const path = join(mkdtempSync(join(tmpdir(), 'cig-ingest-restart-')), 'gateway.sqlite');
    const w = await chain.newWallet(1_000_000_000n);
    const first = await startTestIngestion({ rpcUrl: chain.url, sqlitePath: path, subscriptionsOpen: () => chain.pubsub.open().subscriptions });
    first.sink.watch([w.address]);
    await first.settled();
    const seen = await chain.transferSol(sender, w.address, 1_000_000n);
    expect(await within(10_000, () => first.sink.of(w.address).length === 1)).not.toBeNull();
    await first.stop();
    const missed = [await chain.transferSol(sender, w.address, 2_000_000n), await chain.transferSol(sender, w.address, 3_000_000n)];
    const second = await startTestIngestion({ rpcUrl: chain.url, sqlitePath: path, subscriptionsOpen: () => chain.pubsub.open().subscriptions });
    try {
      second.sink.watch([w.address]);
      expect(await within(10_000, () => second.sink.of(w.address).length >= 2)).not.toBeNull();
      await second.settled();
      expect(second.sink.of(w.address).map((r) => r.signature)).toEqual(missed);
      expect(first.sink.of(w.address).map((r) => r.signature)).toEqual([seen]);
    } finally {
      await second.stop();
    }
  });

  test('the watches refusing a record (storage away) hold the cursor: handed over again once they take it', async () => {
    const w = await watched();
    ing.sink.failing = true;
    const sig = await sandbox.chain.transferSol(sender, w.address, 4_000_000n);
    expect(await within(5000, () => ing.sink.calls > 0 && ing.sink.of(w.address).length === 0)).not.toBeNull();
    await Bun.sleep(1000);
    ing.sink.failing = false;
    await expectExactlyOne(w.address, sig);
  });
});

describe('many subscriptions on few connections, and what operators see', () => {
  // Before the test below: the gauges are the process's, and its second ingester's stop sets them to its own count.
  test('/metrics: subscriptions and sockets open, transactions ingested by what found them, lag behind the node', async () => {
    const text = await registry.metrics();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    expect(value('gateway_watch_subscriptions{network="mainnet-beta",commitment="confirmed"}')).toBeGreaterThan(0);
    expect(value('gateway_watch_sockets{network="mainnet-beta",commitment="confirmed"}')).toBeGreaterThanOrEqual(1);
    expect(value('gateway_watch_ingested_total{network="mainnet-beta",via="notification"}')).toBeGreaterThan(0);
    expect(value('gateway_watch_ingested_total{network="mainnet-beta",via="fill"}')).toBeGreaterThan(0); // the 30 s cut
    expect(value('gateway_watch_lag_slots{network="mainnet-beta"}')).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain(sender.address);
  });

  test('WATCH_SUBSCRIPTIONS_PER_SOCKET: 5 addresses at 2 a socket open 3 connections, each address heard', async () => {
    const chain = sandbox.chain;
    const before = chain.pubsub.open().connections;
    const few = await startTestIngestion({ rpcUrl: chain.url, settings: { watchSubscriptionsPerSocket: 2, watchFillSeconds: 3600 }, subscriptionsOpen: () => chain.pubsub.open().subscriptions });
    try {
      const ws = await Promise.all(Array.from({ length: 5 }, () => chain.newWallet(1_000_000_000n)));
      few.sink.watch(ws.map((w) => w.address));
      await few.settled();
      expect(chain.pubsub.open().connections - before).toBe(3);
      const sigs = [];
      for (const w of ws) sigs.push(await chain.transferSol(sender, w.address, 1_500_000n));
      expect(await within(10_000, () => few.sink.records.length === 5)).not.toBeNull();
      expect(few.sink.records.map((r) => r.signature).sort()).toEqual([...sigs].sort());
      // followed no more: the connections close
      few.sink.unwatch(ws.map((w) => w.address));
      expect(await within(5000, () => chain.pubsub.open().connections === before)).not.toBeNull();
    } finally {
      await few.stop();
    }
  });
});
