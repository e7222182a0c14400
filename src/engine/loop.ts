/**
 * The loop around a visit, written once for every scheduler: take a turn,
 * wait while the output's reader is behind, visit it, complete it (the
 * scheduler publishes the page under its ID and tells what the visit came
 * to), tell what depends on the links the frontier found new, stop where the
 * program says so, and read the sitemaps of a seed's host once its page is
 * in. A private crawl runs one loop over its ordered window; a shared
 * worker runs one per lane over its claims.
 */
import type { CrawlEventSink } from './events.js';
import type { PagePath } from './page-path.js';
import type { SitemapLinks, SitemapLinksOptions, SitemapSettings } from './sitemap-links.js';
import type { Turn, Turns, TurnsEnd } from './turns.js';
import { tellScanned, tellSettled } from './visit-events.js';

export interface LoopOptions {
  path: PagePath;
  onEvent: CrawlEventSink;
  /** The user's stop (SIGINT): checked before each turn. */
  signal: AbortSignal | undefined;
  /** The seeds' depth: a seed's page read in has its host's sitemaps read after it. */
  seedDepth: number;
  maxDepth: number;
  /** Asked before each turn: a promise while the output's reader is behind (the loop waits for it), else undefined. */
  outputRoom?: (() => Promise<void> | undefined) | undefined;
  /** --sitemaps: read once a seed's page is saved, their URLs queued after its links. */
  sitemaps?: SitemapLinks | undefined;
}

/** Why a loop ended: its turns ran out, or the program stopped it at a page (KeywordHunter's match). */
export type LoopEnd = TurnsEnd | 'program';

/** Runs turns until there are none, a stop, or the program's stop. Rejects only on errors that stop the crawl (the store's, the disk's). */
export async function runLoop<T extends Turn>(turns: Turns<T>, o: LoopOptions): Promise<LoopEnd> {
  const { path, onEvent } = o;
  for (;;) {
    if (o.signal?.aborted) return 'signal';
    const room = o.outputRoom?.();
    if (room !== undefined) {
      await room;
      continue; // the stop is checked again: the wait may have been long
    }
    const turn = await turns.next();
    if (typeof turn === 'string') return turn;
    const visit = await path.visit(turn);
    if (visit.end === 'aborted') {
      await turns.release(turn);
      return 'signal';
    }
    const done = visit.end === 'done' ? visit : undefined;
    const completed = await turns.complete(turn, done, (documentId) => {
      if (done !== undefined) tellSettled(onEvent, done, documentId);
    });
    if (done === undefined || completed === undefined) continue; // queued again (a retry), or lost: nothing more to tell
    tellScanned(onEvent, done, completed.added);
    if (done.stop) return 'program';
    // A seed's page is in: its host's sitemaps give links at the next depth, after the seed's own.
    if (o.sitemaps !== undefined && done.page !== undefined && done.url !== undefined && turn.entry.depth === o.seedDepth && turn.entry.depth < o.maxDepth) {
      await o.sitemaps.queueLinks(done.url.origin, turn.entry.depth + 1, (links) => turns.add(links));
    }
  }
}

/**
 * Sitemap reading (--sitemaps) with the crawl's fetcher, robots.txt,
 * classifier, events and stop, for either scheduler. Loaded only then: a
 * crawl without sitemaps never loads the XML parser or zlib.
 */
export async function openSitemaps(settings: SitemapSettings, o: Omit<SitemapLinksOptions, 'maxUrlLength' | 'limits'>): Promise<SitemapLinks> {
  const { SitemapLinks } = await import('./sitemap-links.js');
  return new SitemapLinks({ ...o, maxUrlLength: settings.maxUrlLength, limits: settings.limits });
}
