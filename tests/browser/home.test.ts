/// <reference lib="dom" />
// GET / in a browser: a small landing page whose links work, drawn whole at 1x and 2x and on a
// phone's width, with the favicon; an agent still gets JSON. With x402 on, the landing page, the
// claim page and /docs' introduction name it; with it off, none does.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { browserAvailable, launchBrowser, type TestBrowser } from '../support/browser.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { keypairFile } from '../support/x402.ts';
import { HOME } from '../../src/app.ts';

const run = browserAvailable();
/** Chromium parsing Scalar's 4 MB bundle on a busy 2-core machine can take a minute. */
const PAGE_MS = 120_000;

describe.skipIf(!run)('landing page (/), favicon, x402 named on the pages', () => {
  let plain: TestGateway;
  let x402: TestGateway;
  let chromium: TestBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'cig-home-'));

  beforeAll(async () => {
    plain = await startGateway();
    // No chain to read: x402's accounts go unchecked at start, and the pages say what the settings say.
    const feePayer = await keypairFile(dir);
    x402 = await startGateway({ mainnetRpcUrls: ['http://127.0.0.1:9'], gatewayAddress: (await generateKeyPairSigner()).address, x402Price: 10_000, x402FeePayerKeypair: feePayer.path, rpcTimeoutMs: 300 });
    chromium = await launchBrowser();
  }, PAGE_MS);
  afterAll(async () => {
    await chromium?.close();
    await plain?.stop();
    await x402?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, PAGE_MS);

  test('a browser gets the landing page, its links work, it is whole at 1x, 2x and a phone\'s width; an agent gets JSON', async () => {
    const page = await chromium.newPage();
    const res = await page.goto(plain.url + '/', { waitUntil: 'networkidle0', timeout: PAGE_MS });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toStartWith('text/html');
    expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
    const links = await page.$$eval('a', (as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
    for (const want of [HOME.docs, HOME.claim, HOME.llmsTxt]) expect(links).toContain(want);
    for (const path of links) expect({ path, status: (await fetch(plain.url + path)).status }).toEqual({ path, status: 200 });
    expect(await page.$eval('body', (b) => (b as HTMLElement).innerText)).not.toContain('x402');
    for (const [width, scale] of [[1000, 1], [1000, 2], [375, 2]] as const) {
      await page.setViewport({ width, height: 800, deviceScaleFactor: scale });
      const laidOut = await page.evaluate(() => ({
        overflow: document.documentElement.scrollWidth > window.innerWidth,
        hidden: [...document.querySelectorAll('a')].filter((a) => a.getClientRects().length === 0 || a.getBoundingClientRect().right > window.innerWidth).length,
      }));
      expect({ width, scale, ...laidOut }).toEqual({ width, scale, overflow: false, hidden: 0 });
      await page.screenshot({ path: `/tmp/cig-home-${width}-${scale}x.png` });
    }
    // The icon the pages name is a real 32x32 image.
    const icon = await page.evaluate(async () => {
      const img = new Image();
      img.src = '/favicon.ico';
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
    expect(icon).toEqual([32, 32]);
    expect(await page.$eval('link[rel=icon]', (l) => (l as HTMLLinkElement).getAttribute('href'))).toBe('/favicon.ico');
    await page.close();
    // fetch, curl and agents: the JSON as before.
    for (const accept of ['*/*', 'application/json']) {
      const agent = await fetch(plain.url + '/', { headers: { accept } });
      expect(agent.headers.get('content-type')).toStartWith('application/json');
      expect(agent.headers.get('vary')).toBe('accept');
      expect(await agent.json()).toEqual(JSON.parse(JSON.stringify(HOME)));
    }
  }, PAGE_MS);

  test('with x402 on: the landing page, the claim page and /docs\' introduction name it', async () => {
    const page = await chromium.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(x402.url + '/', { waitUntil: 'networkidle0', timeout: PAGE_MS });
    expect(await page.$eval('#x402', (e) => (e as HTMLElement).innerText)).toContain('pay per call without an account (x402');
    await page.goto(x402.url + '/claim', { waitUntil: 'networkidle0', timeout: PAGE_MS });
    expect(await page.$eval('#x402-note', (e) => (e as HTMLElement).innerText)).toContain('10000 atomic units of the SPL token EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    await page.screenshot({ path: '/tmp/cig-claim-x402.png' });
    await page.goto(x402.url + '/docs', { waitUntil: 'networkidle0', timeout: PAGE_MS });
    await page.waitForFunction(() => document.body.innerText.includes('Processed Solana data for AI agents'), { timeout: PAGE_MS });
    await page.waitForFunction(() => document.body.innerText.includes('pay per call without an account (x402'), { timeout: PAGE_MS });
    await page.goto(plain.url + '/claim', { waitUntil: 'networkidle0', timeout: PAGE_MS });
    expect(await page.$('#x402-note')).toBeNull();
    await page.close();
    expect(chromium.blocked).toEqual([]);
  }, PAGE_MS);
});
