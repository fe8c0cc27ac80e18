/// <reference lib="dom" />
// The API reference page in real headless Chromium: served from the binary, it renders every
// operation of the registry without a single request leaving the machine.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { restPath } from '../../src/capabilities/capability.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { browserAvailable, launchBrowser, type TestBrowser } from '../support/browser.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

const run = browserAvailable();
/** Chromium parsing Scalar's 4 MB bundle on a busy 2-core machine can take a minute. */
const PAGE_MS = 120_000;

describe.skipIf(!run)('docs page (/swagger, /docs)', () => {
  let gw: TestGateway;
  let chromium: TestBrowser;

  beforeAll(async () => {
    gw = await startGateway();
    chromium = await launchBrowser();
  }, PAGE_MS);
  afterAll(async () => {
    await chromium?.close();
    await gw?.stop();
  }, PAGE_MS);

  test('/docs renders all nine operations with zero blocked requests', async () => {
    const page = await chromium.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const blockedBefore = chromium.blocked.length;
    const res = await page.goto(gw.url + '/docs', { waitUntil: 'networkidle0', timeout: PAGE_MS });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
    // Each operation by its summary (the capability's title) in the viewer's navigation; the
    // operations' own sections render lazily as the reader scrolls.
    const titles = CAPABILITIES.map((c) => c.title);
    expect(titles).toHaveLength(9);
    const nav = () => page.evaluate(() => [...document.querySelectorAll('aside, nav')].map((e) => (e as HTMLElement).innerText).join('\n'));
    await page.waitForFunction((want: string[]) => {
      const text = [...document.querySelectorAll('aside, nav')].map((e) => (e as HTMLElement).innerText).join('\n');
      return want.every((t) => text.includes(t));
    }, { timeout: PAGE_MS }, titles);
    const listed = await nav();
    for (const t of titles) expect(listed).toContain(t);
    // The viewer read the gateway's own document, not an example: the first operation's path is shown.
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('Chain Intelligence Gateway');
    expect(text).toContain(restPath(CAPABILITIES[0]!));
    await page.screenshot({ path: '/tmp/cig-docs.png', fullPage: false });
    expect(chromium.blocked.slice(blockedBefore)).toEqual([]);
    expect(chromium.errors).toEqual([]);
    await page.close();
  }, 2 * PAGE_MS + 10_000);

  test('/swagger is the same page', async () => {
    const [docs, swagger] = await Promise.all(['/docs', '/swagger'].map((p) => fetch(gw.url + p).then((r) => r.text())));
    expect(swagger).toBe(docs);
  });

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
