/**
 * What a completed visit tells, in the same order under every scheduler:
 * first what the visit came to once its page has an ID (`settled`: why it
 * failed, or the page saved and a match), then what depends on which links
 * the frontier found new (`scanned`: a queued redirect, then the page's
 * links). A scheduler calls `settled` where its durability needs it (a
 * private crawl before its entry is completed, so that the report's journal
 * holds every page the crawl state holds as done; a shared worker once the
 * store has given the ID), and the loop calls `scanned` after.
 */
import type { CrawlEventSink } from './events.js';
import type { VisitDone } from './visit-types.js';

/** Tells why a visit failed, or its page saved under `documentId` (and a match). */
export function tellSettled(onEvent: CrawlEventSink, visit: VisitDone, documentId: number | undefined): void {
  const p = visit.pending;
  for (const e of p.events) onEvent(e);
  const kept = p.kept;
  if (kept === undefined) return;
  if (documentId !== undefined) onEvent(kept.refresh === undefined ? { type: 'saved', url: kept.url, depth: kept.depth, id: documentId } : { type: 'saved', url: kept.url, depth: kept.depth, id: documentId, refresh: kept.refresh });
  if (kept.match !== undefined) onEvent({ type: 'match', url: kept.url, depth: kept.depth, line: kept.match });
}

/** Tells what depends on which links were new (`added`, in the order of `visit.links`): a queued redirect, then the scan. */
export function tellScanned(onEvent: CrawlEventSink, visit: VisitDone, added: readonly boolean[]): void {
  const p = visit.pending;
  if (p.redirect !== undefined) {
    const e = p.redirect;
    onEvent(e.action === 'follow' && added[0] !== true ? { ...e, action: 'duplicate' } : e);
  }
  if (p.scan !== undefined) for (const e of p.scan.told(added)) onEvent(e);
}
