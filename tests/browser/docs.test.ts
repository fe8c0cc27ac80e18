/// <reference lib="dom" />
// The API reference page in real headless Chromium: served from the binary, it renders every
// operation of the registry without a single request leaving the machine.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { restPath } from '../../src/capabilities/capability.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { browserAvailable, launchBrowser, type TestBrowser } from '../support/browser.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

const run = browserAvailable();

describe.skipIf(!run)('docs page (/swagger, /docs)', () => {
  let gw: TestGateway;
  let chromium: TestBrowser;

  beforeAll(async () => {
    gw = await startGateway();
    chromium = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await gw?.stop();
  });

  for (const path of ['/swagger', '/docs']) {
    test(`${path} renders all nine operations with zero blocked requests`, async () => {
      const page = await chromium.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      const blockedBefore = chromium.blocked.length;
      const res = await page.goto(gw.url + path, { waitUntil: 'networkidle0', timeout: 60_000 });
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
      const paths = CAPABILITIES.map((c) => restPath(c));
      expect(paths).toHaveLength(9);
      await page.waitForFunction((want: string[]) => want.every((p) => document.body.innerText.includes(p)), { timeout: 60_000 }, paths);
      const text = await page.evaluate(() => document.body.innerText);
      for (const p of paths) expect(text).toContain(p);
      // The viewer read the gateway's own document, not an example.
      expect(text).toContain('Chain Intelligence Gateway');
      if (path === '/docs') await page.screenshot({ path: '/tmp/cig-docs.png', fullPage: false });
      expect(chromium.blocked.slice(blockedBefore)).toEqual([]);
      expect(chromium.errors).toEqual([]);
      await page.close();
    }, 90_000);
  }

  test('the viewer script is pinned, versioned and served from the gateway itself', async () => {
    const html = await (await fetch(gw.url + '/docs')).text();
    const src = html.match(/<script src="([^"]+)"/)![1]!;
    expect(src).toMatch(/^\/docs\/assets\/scalar-api-reference-\d+\.\d+\.\d+\.js$/);
    expect(html).not.toMatch(/https?:\/\//);
    const asset = await fetch(gw.url + src);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.text()).length).toBeGreaterThan(1_000_000);
  });
});
