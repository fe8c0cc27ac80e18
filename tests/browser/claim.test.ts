/// <reference lib="dom" />
// The claim page in real headless Chromium, with test wallets registered through the Wallet
// Standard in the page. Each wallet signs with a real Ed25519 key (in the test process) whose owner
// deposits real SOL on the sandbox chain; every request to a host other than loopback is blocked.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, signBytes, type KeyPairSigner } from '@solana/kit';
import type { Page } from 'puppeteer-core';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { claim as claimBy, deposit, signChallenge } from '../support/agent.ts';
import { MAIN } from '../support/process.ts';
import { browserAvailable, inkOfCharacter, launchBrowser, type TestBrowser } from '../support/browser.ts';

const run = browserAvailable();
const PRICE = 2_200_000;
/** Generous: a busy machine slows Chromium, and a timed-out test makes bun kill the browser. */
const STEP_MS = 60_000;
const TEST_MS = 180_000;

/** Page-side Wallet Standard wallet: reports `address`, asks the test process to sign as `signer`. */
function registerWalletScript(name: string, address: string, signer: string) {
  return `(() => {
    const account = { address: ${JSON.stringify(address)}, publicKey: new Uint8Array(32), chains: ['solana:mainnet', 'solana:devnet'], features: ['solana:signMessage'], label: ${JSON.stringify(name)} };
    let connected = false;
    const b64 = (bytes) => btoa(String.fromCharCode(...bytes));
    const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    const wallet = {
      version: '1.0.0',
      name: ${JSON.stringify(name)},
      icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=',
      chains: ['solana:mainnet', 'solana:devnet'],
      get accounts() { return connected ? [account] : []; },
      features: {
        'standard:connect': { version: '1.0.0', connect: async () => { connected = true; return { accounts: [account] }; } },
        'standard:events': { version: '1.0.0', on: () => () => {} },
        'solana:signMessage': {
          version: '1.0.0',
          signMessage: async (...inputs) => Promise.all(inputs.map(async ({ message }) => ({
            signedMessage: message,
            signature: unb64(await window.__testWalletSign(${JSON.stringify(signer)}, b64(message))),
          }))),
        },
      },
    };
    const callback = ({ register }) => register(wallet);
    try { window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback })); } catch {}
    window.addEventListener('wallet-standard:app-ready', ({ detail }) => callback(detail));
  })();`;
}

describe.skipIf(!run)('claim page (/claim)', () => {
  const sandbox = sandboxGateways();
  let gw: TestGateway;
  let chromium: TestBrowser;
  const signers = new Map<string, KeyPairSigner>();

  beforeAll(async () => {
    const gatewayAddress = (await generateKeyPairSigner()).address;
    gw = await sandbox.gateway({ gatewayAddress, freeCalls: 2, depositPollSeconds: 0.1 });
    gw.services.watcher!.start(0.1);
    chromium = await launchBrowser();
  }, TEST_MS);
  afterAll(async () => {
    await chromium?.close();
  }, TEST_MS);

  /** A page with the given wallets registered: [shown name, reported wallet, wallet that really signs]. */
  async function openClaimPage(wallets: [name: string, reports: KeyPairSigner, signs: KeyPairSigner][], base = gw.url): Promise<Page> {
    const page = await chromium.newPage();
    await page.setViewport({ width: 1000, height: 1100 });
    await page.exposeFunction('__testWalletSign', async (who: string, messageB64: string) => {
      const signer = signers.get(who)!;
      const sig = await signBytes(signer.keyPair.privateKey, Uint8Array.from(Buffer.from(messageB64, 'base64')));
      return Buffer.from(new Uint8Array(sig)).toString('base64');
    });
    for (const [name, reports, signs] of wallets) {
      signers.set(signs.address, signs);
      await page.evaluateOnNewDocument(registerWalletScript(name, reports.address, signs.address));
    }
    const res = await page.goto(base + '/claim', { waitUntil: 'networkidle0', timeout: STEP_MS });
    expect(res?.status()).toBe(200);
    return page;
  }

  const text = (page: Page, id: string) => page.$eval(`#${id}`, (e) => (e as HTMLElement).innerText);
  const visible = (page: Page, id: string) => page.$eval(`#${id}`, (e) => !(e as HTMLElement).hidden);
  /** Laid out on the page: what a person sees, whatever hides it. */
  const shown = (page: Page, id: string) => page.$eval(`#${id}`, (e) => (e as HTMLElement).getClientRects().length > 0);
  const waitForText = (page: Page, id: string, needle: string, timeout = STEP_MS) =>
    page.waitForFunction((i: string, n: string) => document.getElementById(i)?.innerText.includes(n), { timeout }, id, needle);
  /** Until the watcher has seen a deposit from `wallet`. */
  const waitForDeposit = async (wallet: string) => {
    for (let i = 0; i < 200 && (await gw.get(`/api/keys/deposit?wallet=${wallet}`)).body.status !== 'claimable'; i++) await Bun.sleep(50);
  };
  const clickWallet = (page: Page, name: string) =>
    page.evaluate((n: string) => [...document.querySelectorAll<HTMLButtonElement>('#wallets button')].find((b) => b.innerText.includes(n))!.click(), name);

  test('shows the gateway address, network and minimum deposit', async () => {
    const page = await openClaimPage([]);
    expect(await text(page, 'gateway-address')).toBe(gw.config.gatewayAddress!);
    expect(await shown(page, 'copy-address')).toBe(true);
    expect(await text(page, 'network')).toBe('mainnet-beta');
    expect(await text(page, 'min-deposit')).toContain('0.0022 SOL');
    expect(await text(page, 'wallets-msg')).toContain('No browser wallet found');
    await page.close();
  }, TEST_MS);

  test('a gateway without a deposit address says plainly that it sells no keys', async () => {
    const bare = await startGateway({ mainnetRpcUrls: [sandbox.chain.url] });
    try {
      const page = await openClaimPage([], bare.url);
      expect(await text(page, 'gateway-address')).toBe('not configured');
      expect(await shown(page, 'copy-address')).toBe(false);
      expect(await text(page, 'gateway-msg')).toContain('does not sell keys');
      await page.close();
    } finally {
      await bare.stop();
    }
  }, TEST_MS);

  test('a wallet with no deposit gets a clear message and cannot claim', async () => {
    const nobody = await sandbox.chain.newWallet(100_000_000n);
    const page = await openClaimPage([['Empty Wallet', nobody, nobody]]);
    await clickWallet(page, 'Empty Wallet');
    await waitForText(page, 'deposit-msg', 'No deposit from');
    expect(await text(page, 'deposit-msg')).toContain(nobody.address);
    expect(await text(page, 'deposit-msg')).toContain('0.0022 SOL');
    expect(await page.$eval('#sign-claim', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    await page.screenshot({ path: '/tmp/cig-claim-nodeposit.png' });
    await page.close();
  }, TEST_MS);

  test('deposit -> connect -> sign -> a working key, shown once and kept nowhere', async () => {
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    const page = await openClaimPage([['Test Wallet', agent, agent]]);
    await clickWallet(page, 'Test Wallet');
    await waitForText(page, 'deposit-msg', 'No deposit from');
    // The deposit lands while the page is open; the page notices on its own.
    await deposit(sandbox.chain, agent, gw.config.gatewayAddress as never, BigInt(3 * PRICE));
    await waitForText(page, 'deposit-msg', 'is waiting');
    await page.click('#sign-claim');
    await page.waitForFunction(() => !document.getElementById('result')!.hidden, { timeout: STEP_MS });
    const key = await page.$eval('#api-key', (e) => e.textContent!);
    expect(key).toMatch(/^cig_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    // The whole key is drawn at 1x and 2x: the underscore of "cig_" too (an input's box once cut it at 1x).
    for (const scale of [1, 2]) {
      await page.setViewport({ width: 1000, height: 1100, deviceScaleFactor: scale });
      const box = await page.$eval('#api-key', (e) => ({ scroll: [e.scrollWidth, e.scrollHeight], client: [e.clientWidth, e.clientHeight], text: (e as HTMLElement).innerText }));
      expect(box.text).toBe(key);
      expect(box.scroll[0]! <= box.client[0]! && box.scroll[1]! <= box.client[1]!).toBe(true);
      expect(await inkOfCharacter(page, '#api-key', 3)).toBeGreaterThan(0.5);
      await (await page.$('#result'))!.screenshot({ path: `/tmp/cig-claim-key-${scale}x.png` });
    }

    // It works.
    const me = await gw.get('/api/keys/me', { 'x-api-key': key });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ wallet: agent.address, creditLamports: 3 * PRICE, freeCallsRemaining: 2 });
    expect(await text(page, 'mcp-config')).toContain(`${gw.url}/mcp`);
    expect(await text(page, 'rest-example')).toContain('x-api-key');

    // Not in the URL, storage, cookies or the gateway's logs.
    const kept = await page.evaluate(() => ({ url: location.href, local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }), cookie: document.cookie }));
    expect(JSON.stringify(kept)).not.toContain(key);
    expect(kept).toMatchObject({ local: '{}', session: '{}', cookie: '' });
    expect(gw.logs.join('\n')).not.toContain(key);

    // A reload does not show it again, and the deposit is spent.
    await page.reload({ waitUntil: 'networkidle0', timeout: STEP_MS });
    expect(await visible(page, 'result')).toBe(false);
    expect(await page.$eval('#api-key', (e) => e.textContent)).toBe('');
    expect(await page.content()).not.toContain(key);
    await clickWallet(page, 'Test Wallet');
    await waitForText(page, 'deposit-msg', 'No deposit from');
    await page.close();
  }, TEST_MS);

  test('a wallet that signs with another key is told so, and the deposit stays claimable', async () => {
    const owner = await sandbox.chain.newWallet(1_000_000_000n);
    const impostor = await sandbox.chain.newWallet(100_000_000n);
    await deposit(sandbox.chain, owner, gw.config.gatewayAddress as never, BigInt(PRICE));
    const page = await openClaimPage([['Odd Wallet', owner, impostor]]);
    await clickWallet(page, 'Odd Wallet');
    await waitForText(page, 'deposit-msg', 'is waiting');
    await page.click('#sign-claim');
    await waitForText(page, 'claim-msg', 'was not made by wallet');
    expect(await text(page, 'claim-msg')).toContain(owner.address);
    expect(await visible(page, 'result')).toBe(false);
    expect((await gw.get(`/api/keys/deposit?wallet=${owner.address}`)).body.status).toBe('claimable');
    await page.close();
  }, TEST_MS);

  test('without an extension: the exact challenge text, signed elsewhere and pasted, claims the key', async () => {
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    await deposit(sandbox.chain, agent, gw.config.gatewayAddress as never, BigInt(PRICE));
    const page = await openClaimPage([]);
    await page.click('#manual summary');
    await page.type('#manual-wallet', agent.address);
    await page.click('#manual-challenge');
    await page.waitForFunction(() => !document.getElementById('manual-step2')!.hidden, { timeout: STEP_MS });
    const challenge = await text(page, 'manual-text');
    expect(challenge).toMatch(/^[0-9a-f]{64}$/);
    // A signature by another wallet over the right text is refused with a clear message.
    await page.type('#manual-signature', await signChallenge(await generateKeyPairSigner(), challenge));
    await page.click('#manual-claim');
    await waitForText(page, 'claim-msg', 'was not made by wallet');
    await page.$eval('#manual-signature', (e) => ((e as HTMLInputElement).value = ''));
    await page.type('#manual-signature', await signChallenge(agent, challenge));
    await page.click('#manual-claim');
    await page.waitForFunction(() => !document.getElementById('result')!.hidden, { timeout: STEP_MS });
    const key = await page.$eval('#api-key', (e) => e.textContent!);
    expect((await gw.get('/api/keys/me', { 'x-api-key': key })).body.wallet).toBe(agent.address);
    await page.close();
  }, TEST_MS);

  test('a wallet whose key the operator revoked: the claim says the credit it still holds and how to get a new key', async () => {
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    await deposit(sandbox.chain, agent, gw.config.gatewayAddress as never, BigInt(3 * PRICE));
    await waitForDeposit(agent.address);
    const first = await claimBy(gw, agent);
    expect(first.status).toBe(200);
    const revoke = Bun.spawnSync(['bun', MAIN, 'keys', 'revoke', agent.address], { env: { PATH: process.env.PATH!, DATABASE_PATH: gw.config.databasePath } });
    expect(revoke.exitCode).toBe(0);
    const page = await openClaimPage([]);
    await page.click('#manual summary');
    await page.type('#manual-wallet', agent.address);
    await page.click('#manual-challenge');
    await page.waitForFunction(() => !document.getElementById('manual-step2')!.hidden, { timeout: STEP_MS });
    await page.type('#manual-signature', await signChallenge(agent, await text(page, 'manual-text')));
    await page.click('#manual-claim');
    await waitForText(page, 'claim-msg', 'still holds');
    const said = await text(page, 'claim-msg');
    expect(said).toContain(`${agent.address} still holds 0.0066 SOL of credit and 2 free calls`);
    expect(said).toContain('Send at least 0.0022 SOL to the gateway address on mainnet-beta from this wallet, then claim again: the new key carries the credit');
    await page.screenshot({ path: '/tmp/cig-claim-revoked.png' });
    await page.close();
  }, TEST_MS);

  test('an expired challenge is named as such', async () => {
    const shortLived = await startGateway({ mainnetRpcUrls: [sandbox.chain.url], gatewayAddress: gw.config.gatewayAddress, challengeTtlSeconds: 1 });
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    const page = await openClaimPage([], shortLived.url);
    await page.click('#manual summary');
    await page.type('#manual-wallet', agent.address);
    await page.click('#manual-challenge');
    await page.waitForFunction(() => !document.getElementById('manual-step2')!.hidden, { timeout: STEP_MS });
    const challenge = await text(page, 'manual-text');
    await page.type('#manual-signature', await signChallenge(agent, challenge));
    await Bun.sleep(2100); // a user who took too long
    await page.click('#manual-claim');
    await waitForText(page, 'claim-msg', 'challenge expired');
    await page.close();
    await shortLived.stop();
  }, TEST_MS);

  test('no request left the machine', () => {
    expect(chromium.blocked).toEqual([]);
  });
});
