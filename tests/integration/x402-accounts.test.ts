// An operator's first x402 setup, on the sandbox chain: what the gateway says about the accounts
// every payment depends on. A pay-to owner without a token account of the asset, or an asset that
// is no mint, stops the start with one line naming the account. A fault that appears later (a fee
// payer short of SOL, a facilitator that does not answer) takes x402 out of the 402 while it lasts,
// is one ERROR line, a /readyz problem and a metric, and the offer is back within 2 s of the fix; a
// client that pays meanwhile hears 503 and nothing of the operator's accounts.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X402_FEE_PAYER_FLOOR_LAMPORTS, X402_SETTLEMENT_FEE_LAMPORTS } from '../../src/config.ts';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { LAMPORTS_PER_SOL } from '../support/sandbox/index.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { craftPayment, keypairFile, payer, payingFetch, startFacilitator, usdcAccount, usdcOf, USDC } from '../support/x402.ts';
import { within } from '../support/poll.ts';

setDefaultTimeout(30_000);

const PRICE = 10_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const sandbox = sandboxGateways();
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-accounts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const findAta = (wallet: string) => `/api/chain/find-ata?wallet=${wallet}&mint=${USDC}`;

/** A pay-to owner with (or without) its USDC account, and a fee payer holding `lamports`. */
async function accounts(opts: { payToAccount: boolean; feePayerLamports: bigint }) {
  const feePayer = await keypairFile(dir, `fee-payer-${crypto.randomUUID()}.json`);
  if (opts.feePayerLamports > 0n) await sandbox.chain.transferSol(sandbox.chain.payer, feePayer.signer.address, opts.feePayerLamports);
  const owner = await sandbox.chain.newWallet(1_000_000n);
  if (opts.payToAccount) await sandbox.chain.createAta(owner.address, USDC);
  return { feePayer: feePayer.signer.address, payTo: owner.address, settings: { ...sandbox.rpcUrls, gatewayAddress: owner.address, x402Price: PRICE, x402FeePayerKeypair: feePayer.path, x402SettleSeconds: 5, readyWindowSeconds: 1 } };
}

/** /readyz once the probe has read the x402 accounts and `ok` holds. */
async function readyWhen(gw: TestGateway, ok: (x402: { problems: string[]; warnings: string[] }) => boolean) {
  let res: Awaited<ReturnType<TestGateway['get']>> | undefined;
  const shown = async () => {
    res = await gw.get('/readyz');
    return Boolean(res.body.x402 && ok(res.body.x402));
  };
  if ((await within(5_000, shown)) !== null) return res!;
  throw new Error(`/readyz never showed it: ${JSON.stringify(res?.body)}`);
}

describe('x402 accounts at start', () => {
  test('a pay-to owner without a token account for the asset: the process stops (exit 2) with one line naming the owner and the account to create', async () => {
    const a = await accounts({ payToAccount: false, feePayerLamports: 1_000_000_000n });
    const env = {
      PATH: process.env.PATH!,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'refused.sqlite'),
      MAINNET_RPC_URLS: sandbox.chain.url,
      DEVNET_RPC_URLS: sandbox.chain.url,
      GATEWAY_ADDRESS: a.payTo,
      X402_PRICE: String(PRICE),
      X402_FEE_PAYER_KEYPAIR: a.settings.x402FeePayerKeypair,
    };
    // Killed if it starts serving instead: the assertions then fail rather than wait.
    const p = Bun.spawn(['bun', MAIN], { env, stdout: 'pipe', stderr: 'pipe', timeout: 15_000, killSignal: 'SIGKILL' });
    const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(2);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
    expect(err).toContain('GATEWAY_ADDRESS');
    expect(err).toContain(`the pay-to owner ${a.payTo}`);
    expect(err).toContain(await usdcAccount(a.payTo));
    // The chain is on this machine (the sandbox): its own way to create the account, no spl-token needed.
    expect(err).toContain(`on the sandbox chain, from a source checkout: bun run wallet -- usdc 0 --to ${a.payTo}`);
  });

  test('an asset that is no mint stops the start, naming X402_ASSET', async () => {
    const a = await accounts({ payToAccount: true, feePayerLamports: 1_000_000_000n });
    const notAMint = (await sandbox.chain.newWallet(1_000_000n)).address;
    await expect(startGateway({ ...a.settings, x402Asset: notAMint })).rejects.toThrow(`X402_ASSET / --x402-asset: the asset ${notAMint} (X402_ASSET) is not a token mint`);
    const missing = (await keypairFile(dir, 'nothing.json')).signer.address;
    await expect(startGateway({ ...a.settings, x402Asset: missing })).rejects.toThrow(`the asset's mint ${missing} (X402_ASSET) does not exist`);
  });
});

/** Whether a 402 for a keyless call carries the x402 offer (both versions' places), with the SOL key offer beside it either way. */
async function offersX402(gw: TestGateway, wallet: string): Promise<boolean> {
  const res = await gw.get(findAta(wallet));
  expect(res.status).toBe(402);
  expect(res.body).toMatchObject({ error: 'Payment required', code: 'no_key', payTo: expect.any(String), priceLamports: expect.any(Number) });
  // The header may carry a sign-in challenge alone (no `accepts`) while x402 cannot settle.
  const header = res.headers.get('payment-required');
  const headerAccepts = header === null ? 0 : decodePaymentRequiredHeader(header).accepts.length;
  expect(headerAccepts > 0).toBe(res.body.accepts !== undefined);
  return headerAccepts > 0;
}

/** A metric's value as /metrics shows it (null: absent). */
async function metric(gw: TestGateway, series: string): Promise<number | null> {
  const text = (await gw.get('/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/** Nothing the client hears names the operator's accounts or balances. */
function expectNothingOfTheOperator(text: string, feePayer: string) {
  expect(text).not.toContain(feePayer);
  expect(text).not.toMatch(/lamports|[Ff]ee payer|pay-to|X402_[A-Z]|GATEWAY_ADDRESS/);
}

describe('an unfunded fee payer', () => {
  let gw: TestGateway;
  let a: Awaited<ReturnType<typeof accounts>>;
  afterAll(() => gw?.stop());

  test('takes x402 out of the 402 (the SOL key offer stays), is one ERROR line, a /readyz problem and a metric', async () => {
    a = await accounts({ payToAccount: true, feePayerLamports: 0n });
    gw = await sandbox.gateway(a.settings);
    gw.services.readiness.start();
    const res = await readyWhen(gw, (x) => x.problems.length > 0);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ready: true, x402FeePayerLamports: 0 });
    expect(res.body.x402).toMatchObject({ offered: false, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', payToTokenAccount: await usdcAccount(a.payTo), payToTokenAccountExists: true, feePayer: a.feePayer });
    expect(res.body.x402.problems).toEqual([`the fee payer ${a.feePayer} holds 0 lamports, less than one settlement needs (${X402_FEE_PAYER_FLOOR_LAMPORTS}): send it SOL`]);
    expect(await offersX402(gw, a.payTo)).toBe(false);
    expect(await metric(gw, 'gateway_x402_offered')).toBe(0);
    expect(await metric(gw, 'gateway_x402_fault{cause="fee_payer"}')).toBe(1);
    // One line for the episode, not one per probe (one a second while it lasts).
    const errors = () => gw.logs.filter((l) => l.includes('ERROR') && l.includes('x402'));
    await Bun.sleep(2_500);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toContain(`the fee payer ${a.feePayer} holds 0 lamports`);
  });

  test('a payment presented anyway: 503 with Retry-After, nothing settled, and nothing of the operator\'s accounts', async () => {
    const client = await payer(sandbox.chain, 1_000_000n);
    const accepted = { scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', amount: String(PRICE), asset: USDC, payTo: a.payTo, maxTimeoutSeconds: 60, extra: { feePayer: a.feePayer } };
    const header = await craftPayment(sandbox.chain, { accepted: accepted as never, from: client });
    const res = await fetch(gw.url + findAta(client.address), { headers: { 'payment-signature': header } });
    const text = await res.text();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(text)).toMatchObject({ code: 'x402_unavailable' });
    // The answer OpenAPI promises for it on paid routes.
    const doc = (await gw.get('/openapi.json')).body;
    expect(doc.paths['/api/chain/find-ata'].get.responses['503']).toEqual({ $ref: '#/components/responses/X402Unavailable' });
    expect(Object.keys(doc.components.responses.X402Unavailable.headers)).toEqual(['Retry-After']);
    expectNothingOfTheOperator(text, a.feePayer);
    expect(await usdcOf(sandbox.chain, client.address)).toBe(1_000_000n);
  });

  test('funded: the offer is back within 2 s, and a payment goes through', async () => {
    await sandbox.chain.transferSol(sandbox.chain.payer, a.feePayer as never, LAMPORTS_PER_SOL);
    const back = await within(2_000, () => offersX402(gw, a.payTo), 20);
    console.info(`x402 offer back ${back} ms after the fee payer was funded`);
    expect(back).not.toBeNull();
    expect((await gw.get('/readyz')).body.x402).toMatchObject({ offered: true, problems: [] });
    expect(gw.logs.filter((l) => l.includes('x402 payments can settle again'))).toHaveLength(1);
    const client = await payer(sandbox.chain, 1_000_000n);
    expect((await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address))).status).toBe(200);
    expect(await usdcOf(sandbox.chain, client.address)).toBe(1_000_000n - BigInt(PRICE));
  });

  test('below X402_FEE_PAYER_MIN_LAMPORTS but above what one settlement needs: /readyz warns with the settlements left, the offer stays', async () => {
    const { signer, path } = await keypairFile(dir, `fee-payer-low-${crypto.randomUUID()}.json`);
    await sandbox.chain.transferSol(sandbox.chain.payer, signer.address, BigInt(X402_FEE_PAYER_FLOOR_LAMPORTS) + 5n * BigInt(X402_SETTLEMENT_FEE_LAMPORTS));
    const low = await sandbox.gateway({ ...a.settings, x402FeePayerKeypair: path });
    try {
      low.services.readiness.start();
      const res = await readyWhen(low, (x) => x.warnings.length > 0);
      expect(res.body.x402).toMatchObject({ offered: true, problems: [] });
      expect(res.body.x402.warnings[0]).toContain(`the fee payer ${signer.address} holds`);
      expect(res.body.x402.warnings[0]).toContain('below X402_FEE_PAYER_MIN_LAMPORTS');
      const client = await payer(sandbox.chain, 1_000_000n);
      expect((await payingFetch(client, sandbox.chain)(low.url + findAta(client.address))).status).toBe(200);
    } finally {
      await low.stop();
    }
  });

  test('drained while a payment is on its way: 503 with Retry-After, nothing settled, and the offer goes', async () => {
    const { signer, path } = await keypairFile(dir, `fee-payer-drained-${crypto.randomUUID()}.json`);
    await sandbox.chain.transferSol(sandbox.chain.payer, signer.address, LAMPORTS_PER_SOL);
    const racing = await sandbox.gateway({ ...a.settings, x402FeePayerKeypair: path });
    try {
      const offer = await racing.get(findAta(a.payTo));
      const accepted = decodePaymentRequiredHeader(offer.headers.get('payment-required')!).accepts[0]!;
      const client = await payer(sandbox.chain, 1_000_000n);
      const header = await craftPayment(sandbox.chain, { accepted, from: client });
      // The whole balance but the transfer's own fee leaves: no probe runs here, so only the payment finds out.
      await sandbox.chain.transferSol(signer, sandbox.chain.payer.address, LAMPORTS_PER_SOL - 5_000n);
      const res = await fetch(racing.url + findAta(client.address), { headers: { 'payment-signature': header } });
      const text = await res.text();
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expectNothingOfTheOperator(text, signer.address);
      expect(await usdcOf(sandbox.chain, client.address)).toBe(1_000_000n);
      expect(await offersX402(racing, a.payTo)).toBe(false);
      expect(racing.logs.filter((l) => l.includes('ERROR') && l.includes(`the fee payer ${signer.address} holds 0 lamports`))).toHaveLength(1);
    } finally {
      await racing.stop();
    }
  });
});

describe('a burst of payments the chain refuses for their own reasons', () => {
  test('20 at once from a wallet without the USDC: each a 402 naming the payment, none a 503; the accounts are read a few times, not 20', async () => {
    const a = await accounts({ payToAccount: true, feePayerLamports: LAMPORTS_PER_SOL });
    const gw = await sandbox.gateway(a.settings);
    try {
      const accepted = decodePaymentRequiredHeader((await gw.get(findAta(a.payTo))).headers.get('payment-required')!).accepts[0]!;
      const broke = await payer(sandbox.chain, 0n);
      const headers = await Promise.all(Array.from({ length: 20 }, () => craftPayment(sandbox.chain, { accepted, from: broke })));
      sandbox.chain.resetCalls();
      const answers = await Promise.all(headers.map((h) => gw.get(findAta(broke.address), { 'payment-signature': h })));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(402));
      for (const r of answers) expect(r.body).toMatchObject({ code: 'x402_refused', reason: expect.stringContaining('simulation') });
      const reads = sandbox.chain.calls('getMultipleAccounts');
      console.info(`20 refused payments read the accounts ${reads} times`);
      expect(reads).toBeGreaterThan(0);
      expect(reads).toBeLessThanOrEqual(4);
      expect((await gw.get('/readyz')).body.x402).toMatchObject({ offered: true, problems: [] });
    } finally {
      await gw.stop();
    }
  });
});

describe('a pay-to account missing when a payment comes', () => {
  test('the chain did not answer at start: the start goes on; the payment is answered 503, untouched, and the offer goes until the account exists', async () => {
    const a = await accounts({ payToAccount: false, feePayerLamports: 1_000_000_000n });
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getMultipleAccounts'] });
    let gw: TestGateway;
    try {
      gw = await sandbox.gateway(a.settings);
    } finally {
      sandbox.chain.fault(null);
    }
    try {
      expect(gw.logs.join('\n')).toContain('x402 accounts not checked at start');
      const client = await payer(sandbox.chain, 1_000_000n);
      const res = await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address));
      const text = await res.text();
      expect(res.status).toBe(503);
      expectNothingOfTheOperator(text, a.feePayer);
      expect(text).not.toContain(a.payTo);
      expect(await usdcOf(sandbox.chain, client.address)).toBe(1_000_000n);
      expect(await offersX402(gw, a.payTo)).toBe(false);
      const said = gw.logs.filter((l) => l.includes('ERROR') && l.includes('x402'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`the pay-to owner ${a.payTo} (X402_PAY_TO, else GATEWAY_ADDRESS) has no token account for ${USDC}: create its associated token account ${await usdcAccount(a.payTo)}`);
      gw.services.readiness.start();
      await sandbox.chain.createAta(a.payTo as never, USDC);
      expect(await within(2_000, () => offersX402(gw, a.payTo), 20)).not.toBeNull();
    } finally {
      await gw.stop();
    }
  });
});

describe('an external facilitator that cannot be reached', () => {
  test('takes x402 out of the 402, is one ERROR line and a /readyz problem that never shows its URL; brought up, the offer is back within 2 s', async () => {
    const key = await keypairFile(dir, `external-${crypto.randomUUID()}.json`);
    await sandbox.chain.transferSol(sandbox.chain.payer, key.signer.address, LAMPORTS_PER_SOL);
    const owner = await sandbox.chain.newWallet(1_000_000n);
    await sandbox.chain.createAta(owner.address, USDC);
    // Its port, free again: the facilitator comes back there.
    const first = await startFacilitator(sandbox.chain, key.signer);
    await first.stop();
    const url = `${first.url}/secret-facilitator-token`;
    const gw = await sandbox.gateway({ ...sandbox.rpcUrls, gatewayAddress: owner.address, x402Price: PRICE, x402FacilitatorUrl: url, readyWindowSeconds: 1 });
    let facilitator: Awaited<ReturnType<typeof startFacilitator>> | undefined;
    try {
      gw.services.readiness.start();
      const res = await readyWhen(gw, (x) => x.problems.length > 0);
      expect(res.body.x402).toMatchObject({ offered: false });
      expect(res.body.x402.problems).toEqual([expect.stringMatching(/^the facilitator \(X402_FACILITATOR_URL\) cannot be used: \/supported failed \(/)]);
      expect(JSON.stringify(res.body)).not.toContain('secret-facilitator-token');
      expect(await offersX402(gw, owner.address)).toBe(false);
      expect(await metric(gw, 'gateway_x402_fault{cause="facilitator"}')).toBe(1);
      await Bun.sleep(1_500);
      const errors = gw.logs.filter((l) => l.includes('ERROR') && l.includes('x402'));
      expect(errors).toHaveLength(1);
      expect(errors.join('')).not.toContain('secret-facilitator-token');
      facilitator = await startFacilitator(sandbox.chain, key.signer, first.port);
      const back = await within(2_000, () => offersX402(gw, owner.address), 20);
      console.info(`x402 offer back ${back} ms after the facilitator came up`);
      expect(back).not.toBeNull();
      const client = await payer(sandbox.chain, 1_000_000n);
      expect((await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address))).status).toBe(200);
      expect(await metric(gw, 'gateway_x402_fault{cause="facilitator"}')).toBe(0);
    } finally {
      await gw.stop();
      await facilitator?.stop();
    }
  });
});
