/**
 * Replay equals live: each page, opened live in chromium and then replayed
 * from a WACZ by ReplayWeb.page (served on loopback by replay-server.ts),
 * has the same title and the same text. Every request the browser makes
 * must stay on loopback (anything else is aborted and fails the check), so
 * the app cannot have fetched a part of itself from a CDN.
 *
 * For the integrator: to check a real crawl, run
 * `crawler --warc X.warc.gz --wacz X.wacz SEED DIR N` against a loopback
 * site (scripts/demo.ts serves the demo site) and call
 * `assertReplayEqualsLive('X.wacz', urls)` with the pages' URLs, inside a
 * test skipped with `browserSkipReason ?? replaySkipReason`.
 */
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { withBrowser } from '../helpers/browser.js';
import { startReplayServer } from './replay-server.js';

/** What a reader sees of a page: its title and its text, white space collapsed. */
export interface PageView {
  title: string;
  text: string;
}

export interface ReplayCheckOptions {
  /** Runs after the live pages were read and before replay (a test may stop the live site here, to prove replay needs none of it). */
  beforeReplay?: () => Promise<void> | void;
  /** How long one replayed page may take to appear (default 60 s). */
  timeoutMs?: number;
  /** The capture to replay for each URL, by its 14-digit timestamp (default: the one ReplayWeb.page picks); the frame must show that one. */
  timestamps?: ReadonlyMap<string, string>;
}

const LOOPBACK = /^(https?|wss?):\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//;

async function viewOf(frame: Frame | Page): Promise<PageView> {
  const title = await frame.title();
  const text = await frame.locator('body').innerText();
  return { title, text: text.replace(/\s+/g, ' ').trim() };
}

/** The frame in which ReplayWeb.page shows `url` (`.../w/COLL/[:WACZ-HASH/]TSmp_/URL`), once it has loaded. */
export async function replayFrame(page: Page, url: string, timeoutMs: number, ts?: string): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  // The app's first load may race its own service worker's install and then show nothing (seen once in a
  // full test run, never alone): load the embed again now and then, as a user would press reload.
  let reloadAt = Date.now() + 40_000;
  for (;;) {
    if (Date.now() > reloadAt) {
      reloadAt = Date.now() + 40_000;
      await page.reload();
    }
    const frame = page.frames().find((f) => /\/w\/[^?#]+\/\d*mp_\//.test(f.url()) && f.url().endsWith(`${ts ?? ''}mp_/${url}`));
    if (frame !== undefined) {
      await frame.waitForLoadState('load');
      return frame;
    }
    if (Date.now() > deadline) {
      throw new assert.AssertionError({ message: `ReplayWeb.page did not show ${url} within ${timeoutMs} ms; frames: ${page.frames().map((f) => f.url()).join(' ')}` });
    }
    await page.waitForTimeout(200);
  }
}

/**
 * Opens each of `liveUrls` live, then replays it from the WACZ at
 * `waczPath`, and asserts that title and text are the same. Throws an
 * AssertionError naming the first page that differs.
 */
export async function assertReplayEqualsLive(waczPath: string, liveUrls: readonly string[], options: ReplayCheckOptions = {}): Promise<void> {
  // The first page waits for the service worker to install and load the archive: slow on a loaded machine.
  const timeoutMs = options.timeoutMs ?? 180_000;
  const replay = await startReplayServer(waczPath);
  try {
    await withBrowser(async (page) => {
      const offLoopback: string[] = [];
      await page.context().route('**/*', async (route) => {
        const url = route.request().url();
        if (LOOPBACK.test(url) || url.startsWith('blob:') || url.startsWith('data:')) await route.fallback();
        else {
          offLoopback.push(url);
          await route.abort();
        }
      });
      const live = new Map<string, PageView>();
      for (const url of liveUrls) {
        await page.goto(url);
        live.set(url, await viewOf(page));
      }
      await options.beforeReplay?.();
      for (const url of liveUrls) {
        const ts = options.timestamps?.get(url);
        await page.goto(replay.embedUrl(url, ts));
        const replayed = await viewOf(await replayFrame(page, url, timeoutMs, ts));
        assert.deepEqual(replayed, live.get(url), `replay of ${url} differs from the live page`);
      }
      assert.deepEqual(offLoopback, [], 'requests that left loopback');
    });
  } finally {
    await replay.close();
  }
}
