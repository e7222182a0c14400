/**
 * One crawl event as a line of the scheduler scenario table, with the
 * sites' origins named (H the site, O the other host, R the raw server):
 * what the table pins, and what every runner's events are compared on.
 */
import type { CrawlEvent } from '../../src/engine/events.js';

/** The line of an event that belongs to the visit; undefined for wire exchanges, pacing and a worker's robots.txt note. */
export function line(e: CrawlEvent): string | undefined {
  switch (e.type) {
    case 'response':
      return `response ${e.depth} ${e.url.key} ${e.status}${e.error === undefined ? '' : ` ${e.error.code}`}`;
    case 'redirect':
      return `redirect ${e.depth} ${e.from.key} -> ${e.target?.key ?? `raw:${e.raw}`} ${e.action}${e.error === undefined ? '' : ` (${e.error.message})`}`;
    case 'saved':
      return `saved ${e.depth} ${e.url.key} #${e.id}`;
    case 'scanning':
      return `scanning ${e.depth} ${e.url.key}`;
    case 'link':
      return `link ${e.depth} ${e.url?.key ?? `raw:${e.raw}`} ${e.action}`;
    case 'failed':
      return `failed ${e.depth} ${e.url} ${e.reason}`;
    case 'disallowed':
      return `disallowed ${e.depth} ${e.url}`;
    case 'lost':
      return `lost ${e.depth} ${e.url}`;
    case 'robots':
      return `robots ${e.origin} ${e.source} group=${e.group} rules=${e.rules}`;
    case 'match':
      return `match ${e.url.key}`;
    case 'sitemap':
      return `sitemap ${e.url?.key ?? '-'} ${e.outcome} found=${e.found} queued=${e.queued}`;
    default:
      return undefined; // exchange, host, robots-txt: not the visit's
  }
}
