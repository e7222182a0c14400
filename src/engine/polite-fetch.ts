/**
 * A fetch that keeps the host's turn: wait until the host's politeness
 * interval has passed since its last request start, then request, stamping
 * the start when the request bytes are written. Pages and robots.txt both
 * go through it, so robots requests count against the delay too.
 */
import { CrawlerError } from '../errors.js';
import type { Politeness } from '../frontier/politeness.js';
import type { FetchResponse, HttpClient } from '../http/client.js';
import { headerValue } from '../http/response-parser.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { HttpUrl } from '../url/http-url.js';

/** Statuses whose Location is followed (RFC 9110 §15.4). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The Location of a redirect response, or undefined when it is not one. */
export function redirectLocation(res: FetchResponse): string | undefined {
  return REDIRECT_STATUSES.has(res.status) ? headerValue(res.headers, 'location') : undefined;
}

export class PoliteFetcher {
  constructor(
    private readonly client: HttpClient,
    private readonly politeness: Politeness,
    private readonly signal?: AbortSignal,
  ) {}

  /** One request to `url` in the host's turn (after its politeness wait). `signal` stops a wait early. */
  async fetch(url: HttpUrl, signal: AbortSignal | undefined = this.signal): Promise<FetchResponse> {
    const release = await this.politeness.turn(url.origin, signal);
    try {
      // A stop signal ends the wait early; the request must then not be sent.
      if (signal?.aborted) throw new CrawlerError('ERR_ABORTED', `stopped before requesting ${url.href}`, { url: url.href });
      return await this.client.fetch(url, { onRequestWritten: release });
    } finally {
      // A failed connect still counts as an attempt on the host.
      release();
    }
  }

  /**
   * A RobotsFetcher over this fetcher: follows up to `maxRedirects` redirects
   * (RFC 9309 §2.3.1.2), each hop polite. A redirect whose target cannot be
   * resolved, or that `mayFollow` refuses (crawler: never off the crawl),
   * ends the fetch with that 3xx answer, which the failure policy reads as
   * "unavailable", like a chain too long.
   */
  robotsFetcher(
    parse: (href: string) => HttpUrl,
    resolve: (href: string, base: HttpUrl) => HttpUrl,
    maxRedirects: number,
    mayFollow: (next: HttpUrl, from: HttpUrl) => boolean = () => true,
  ): RobotsFetcher {
    return async (robotsUrl) => {
      try {
        let url = parse(robotsUrl);
        for (let hop = 0; ; hop++) {
          const res = await this.fetch(url);
          const location = redirectLocation(res);
          if (location === undefined || hop >= maxRedirects) return { status: res.status, body: res.body };
          let next: HttpUrl;
          try {
            next = resolve(location, url);
          } catch {
            return { status: res.status, body: res.body };
          }
          if (!mayFollow(next, url)) return { status: res.status, body: res.body };
          url = next;
        }
      } catch (err) {
        return { error: err };
      }
    };
  }
}
