/**
 * A scanned page as both schedulers hold it until the frontier has taken
 * its links: the links to queue, and an event for each link in document
 * order. Duplicates are the frontier's to say (a URL seen before, or a
 * repeat on the page), so the link events are told only after `complete`.
 */
import type { CrawlEvent } from './events.js';
import type { HttpUrl } from '../url/http-url.js';

export type LinkEvent = CrawlEvent & { type: 'link' };

export class PageScan<L> {
  readonly links: L[] = [];
  readonly events: LinkEvent[] = [];
  /** For each link to queue, the index of its event. */
  private readonly queued: number[] = [];

  constructor(
    readonly page: HttpUrl,
    readonly depth: number,
  ) {}

  /** A link of the page: `queue` is what goes to the frontier when the link is followed. */
  push(event: LinkEvent, queue: L | undefined): void {
    if (queue !== undefined && event.action === 'follow') {
      this.queued.push(this.events.length);
      this.links.push(queue);
    }
    this.events.push(event);
  }

  /** The page's events once the frontier said which links were new: scanning, then each link (a link not queued is a duplicate). */
  told(added: readonly boolean[]): CrawlEvent[] {
    this.queued.forEach((at, i) => {
      if (added[i] !== true) (this.events[at] as LinkEvent).action = 'duplicate';
    });
    return [{ type: 'scanning', url: this.page, depth: this.depth }, ...this.events];
  }
}
