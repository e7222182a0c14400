/**
 * What becomes of a link (or a redirect's target), decided in one order for
 * every mode: out of scope is `external`; then a URL seen before is a
 * `duplicate`; then robots.txt may say `robots`; else it is followed.
 * Robots-disallowed URLs are not remembered as seen, so every encounter says so.
 */
import type { HttpUrl } from '../url/http-url.js';
import type { LinkAction } from './events.js';
import type { RobotsGate } from './robots-gate.js';

export type { LinkAction };

export interface LinkClassifierOptions {
  /** False for a URL the crawl must never request (out of scope, not a page). */
  inScope: (url: HttpUrl) => boolean;
  /** Whether a URL's identity key was seen; absent where a shared store says so later (on completion). */
  isSeen?: (key: string) => boolean;
  robots: RobotsGate;
}

export class LinkClassifier {
  constructor(private readonly o: LinkClassifierOptions) {}

  /** The action, or undefined when it waits for the host's robots.txt (its rules are not known yet). */
  now(url: HttpUrl): LinkAction | undefined {
    if (!this.o.inScope(url)) return 'external';
    if (this.o.isSeen?.(url.key) === true) return 'duplicate';
    const allowed = this.o.robots.allowsNow(url);
    if (allowed === undefined) return undefined;
    return allowed ? 'follow' : 'robots';
  }

  /** The action, loading the host's robots.txt when needed. */
  async classify(url: HttpUrl): Promise<LinkAction> {
    return this.now(url) ?? ((await this.o.robots.allows(url)) ? 'follow' : 'robots');
  }
}
