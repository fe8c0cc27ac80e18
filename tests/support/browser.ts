// Real headless Chromium (Debian's package) driven by puppeteer-core, with every request to a host
// other than loopback blocked and counted: a page that needs the internet shows it here.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether the browser tests can run. In CI (.ci/run sets REQUIRE_BROWSER=1) a missing browser is a
 * failure, not a skip; locally the tests skip and say why.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs it (apt-get install chromium)`);
  console.warn(`skipping browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  return false;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface TestBrowser {
  browser: Browser;
  /** Requests refused because they were for a host other than loopback, as URLs. */
  blocked: string[];
  /** Console errors and uncaught page errors, for diagnosis. */
  errors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'cig-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  const blocked: string[] = [];
  const errors: string[] = [];
  return {
    browser,
    blocked,
    errors,
    async newPage() {
      const page = await browser.newPage();
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const url = req.url();
        let host = '';
        try {
          const u = new URL(url);
          if (u.protocol === 'data:' || u.protocol === 'blob:') return void req.continue();
          host = u.hostname;
        } catch {}
        if (LOOPBACK.has(host)) return void req.continue();
        blocked.push(url);
        return void req.abort('blockedbyclient');
      });
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      return page;
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * How much ink the `index`th character of `selector`'s text leaves on screen at the page's scale:
 * the share of pixels, in its most inked row, that differ from the background (a screenshot of the
 * character's box and a little below, read back in the page). An underscore drawn whole has a row
 * of ink across it; one its box cuts off has none.
 */
export async function inkOfCharacter(page: Page, selector: string, index: number): Promise<number> {
  const rect = await page.$eval(
    selector,
    (e, i) => {
      const range = document.createRange();
      range.setStart(e.firstChild!, i);
      range.setEnd(e.firstChild!, i + 1);
      const b = range.getBoundingClientRect();
      return { x: b.x, y: b.y + window.scrollY, width: b.width, height: b.height + 4 };
    },
    index,
  );
  const png = await page.screenshot({ clip: rect, encoding: 'base64', captureBeyondViewport: true });
  return page.evaluate(async (b64: string) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const g = canvas.getContext('2d')!;
    g.drawImage(img, 0, 0);
    const { data } = g.getImageData(0, 0, canvas.width, canvas.height);
    const lum = (i: number) => 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
    const background = lum(0);
    let most = 0;
    for (let y = 0; y < canvas.height; y++) {
      let inked = 0;
      for (let x = 0; x < canvas.width; x++) if (Math.abs(lum((y * canvas.width + x) * 4) - background) > 60) inked++;
      most = Math.max(most, inked / canvas.width);
    }
    return most;
  }, png);
}
