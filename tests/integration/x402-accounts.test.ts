// An operator's first x402 setup, on the sandbox chain: what the gateway says about the accounts
// every payment depends on. A pay-to owner without a token account of the asset, or an asset that
// is no mint, stops the start with one line naming the account; an unfunded fee payer starts with
// a warning, /readyz says why payments fail, and each refused payment names the account at fault
// beside the facilitator's own reason.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X402_SETTLEMENT_FEE_LAMPORTS } from '../../src/config.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { keypairFile, payer, payingFetch, usdcAccount, USDC } from '../support/x402.ts';
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
  });

  test('an asset that is no mint stops the start, naming X402_ASSET', async () => {
    const a = await accounts({ payToAccount: true, feePayerLamports: 1_000_000_000n });
    const notAMint = (await sandbox.chain.newWallet(1_000_000n)).address;
    await expect(startGateway({ ...a.settings, x402Asset: notAMint })).rejects.toThrow(`X402_ASSET / --x402-asset: the asset ${notAMint} (X402_ASSET) is not a token mint`);
    const missing = (await keypairFile(dir, 'nothing.json')).signer.address;
    await expect(startGateway({ ...a.settings, x402Asset: missing })).rejects.toThrow(`the asset's mint ${missing} (X402_ASSET) does not exist`);
  });
});

describe('an unfunded fee payer', () => {
  let gw: TestGateway;
  afterAll(() => gw?.stop());

  test('starts, warns naming the fee payer, and /readyz stays ready while saying why x402 payments fail', async () => {
    const a = await accounts({ payToAccount: true, feePayerLamports: 0n });
    gw = await sandbox.gateway(a.settings);
    gw.services.readiness.start();
    const res = await readyWhen(gw, (x) => x.problems.length > 0);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ready: true, x402FeePayerLamports: 0 });
    expect(res.body.x402).toMatchObject({ tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', payToTokenAccount: await usdcAccount(a.payTo), payToTokenAccountExists: true, feePayer: a.feePayer });
    expect(res.body.x402.problems).toEqual([`the fee payer ${a.feePayer} holds 0 lamports, less than one settlement's fee (${X402_SETTLEMENT_FEE_LAMPORTS}): send it SOL`]);
    // Logged when the probe first sees it, and not again on the probes after (one every 333 ms here).
    const said = () => gw.logs.filter((l) => l.includes(`the fee payer ${a.feePayer} holds 0 lamports`)).length;
    await within(2_000, () => said() > 0);
    await Bun.sleep(1_000);
    expect(said()).toBe(1);
  });

  test('a payment is refused with the facilitator\'s reason and, beside it, the fee payer named', async () => {
    const client = await payer(sandbox.chain, 1_000_000n);
    const res = await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address));
    expect(res.status).toBe(402);
    const body = (await res.json()) as { code: string; reason: string };
    expect(body.code).toBe('x402_refused');
    expect(body.reason).toContain('Simulation failed');
    expect(body.reason).toContain(`the fee payer ${gw.services.readiness.check().x402!.feePayer} holds 0 lamports`);
  });

  test('funded below X402_FEE_PAYER_MIN_LAMPORTS: /readyz warns with the settlements left, and a payment goes through', async () => {
    const feePayer = gw.services.readiness.check().x402!.feePayer!;
    await sandbox.chain.transferSol(sandbox.chain.payer, feePayer as never, 5n * BigInt(X402_SETTLEMENT_FEE_LAMPORTS) + 1_000_000n);
    const res = await readyWhen(gw, (x) => x.problems.length === 0 && x.warnings.length > 0);
    expect(res.body.x402.warnings[0]).toContain(`the fee payer ${feePayer} holds`);
    expect(res.body.x402.warnings[0]).toContain('below X402_FEE_PAYER_MIN_LAMPORTS');
    const client = await payer(sandbox.chain, 1_000_000n);
    expect((await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address))).status).toBe(200);
  });
});

describe('a pay-to account missing when a payment comes', () => {
  test('the chain did not answer at start: the start goes on; the refusal names the pay-to owner and its account beside the facilitator\'s reason', async () => {
    const a = await accounts({ payToAccount: false, feePayerLamports: 1_000_000_000n });
    sandbox.chain.fault({ mode: 'http500' }, { methods: ['getMultipleAccounts'] });
    let gw: TestGateway;
    try {
      gw = await sandbox.gateway(a.settings);
    } finally {
      sandbox.chain.fault(null);
    }
    expect(gw.logs.join('\n')).toContain('x402 accounts not checked at start');
    const client = await payer(sandbox.chain, 1_000_000n);
    const res = await payingFetch(client, sandbox.chain)(gw.url + findAta(client.address));
    expect(res.status).toBe(402);
    const body = (await res.json()) as { reason: string };
    expect(body.reason).toContain('InvalidAccountData');
    expect(body.reason).toContain(`the pay-to owner ${a.payTo} (X402_PAY_TO, else GATEWAY_ADDRESS) has no token account for ${USDC}: create its associated token account ${await usdcAccount(a.payTo)}`);
  });
});
