/**
 * A real browser for tests of our HTML outputs (the crawl report, archive
 * replay): headless Debian chromium driven by playwright-core. .ci/run
 * installs chromium when it is missing; where it is still absent the tests
 * skip with browserSkipReason, so the summary counts them as skipped:
 *
 *   test('…', { skip: browserSkipReason }, async () => { await withBrowser(async (page) => { … }); });
 *
 * The page records console errors and every request it makes, so a test can
 * assert that a self-contained file asked the network for nothing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env['PC_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why browser tests are skipped here, or undefined when chromium is available. */
export const browserSkipReason: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `browser tests need Debian's chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does it)`;

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** What a page did while the test looked at it. */
export interface PageWatch {
  consoleErrors: string[];
  requests: string[];
}

/** Launches chromium, opens one page of the given viewport, and closes the browser afterwards. */
export async function withBrowser<T>(
  body: (page: Page, watch: PageWatch, browser: Browser) => Promise<T>,
  viewport = { width: 1280, height: 800 },
): Promise<T> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
  try {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const watch: PageWatch = { consoleErrors: [], requests: [] };
    page.on('console', (m) => {
      if (m.type() === 'error') watch.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => watch.consoleErrors.push(String(e)));
    page.on('request', (r) => watch.requests.push(r.url()));
    return await body(page, watch, browser);
  } finally {
    await browser.close();
  }
}
