/**
 * A fetch that keeps the host's turn: wait until the host's politeness
 * interval has passed since its last request start, then request, stamping
 * the start when the request bytes are written. Pages and robots.txt both
 * go through it, so robots requests count against the delay too.
 */
import { CrawlerError } from '../errors.js';
import type { Politeness } from '../frontier/politeness.js';
import type { FetchResponse, HttpClient } from '../http/client.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { HttpUrl } from '../url/http-url.js';
import { followRedirects, type FetchOutcome } from './redirects.js';

export class PoliteFetcher {
  constructor(
    private readonly client: HttpClient,
    private readonly politeness: Politeness,
    private readonly signal?: AbortSignal,
  ) {}

  /** One request to `url` in the host's turn (after its politeness wait). `signal` stops a wait early. */
  async fetch(url: HttpUrl, signal: AbortSignal | undefined = this.signal): Promise<FetchResponse> {
    let release = await this.politeness.turn(url.origin, signal);
    // A stop signal ends the wait early; the request must then not be sent.
    const checkStop = (): void => {
      if (signal?.aborted) throw new CrawlerError('ERR_ABORTED', `stopped before requesting ${url.href}`, { url: url.href });
    };
    try {
      checkStop();
      return await this.client.fetch(url, {
        onRequestWritten: () => release(),
        // A request re-sent because the kept-alive connection was closed is a new request start: it waits its turn.
        beforeResend: async () => {
          release();
          release = await this.politeness.turn(url.origin, signal);
          checkStop();
        },
      });
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
        const end = await followRedirects(parse(robotsUrl), {
          fetch: (url) => this.outcome(url),
          maxRedirects,
          resolve,
          // Any step that is not a target to follow ends the fetch with its 3xx answer.
          follow: (step, from) => step.kind === 'target' && mayFollow(step.target, from),
        });
        const { response, error } = end.outcome;
        return response === undefined ? { error } : { status: response.status, body: response.body };
      } catch (err) {
        return { error: err };
      }
    };
  }

  /** `fetch`, with a failure as a value. */
  outcome(url: HttpUrl, signal: AbortSignal | undefined = this.signal): Promise<FetchOutcome> {
    return this.fetch(url, signal).then(
      (response) => ({ response }),
      (error: unknown) => ({ error: error as CrawlerError }),
    );
  }
}
