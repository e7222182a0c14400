/**
 * Per-origin robots.txt cache: fetches `${origin}/robots.txt` once per origin
 * (concurrent callers share the one fetch), turns the answer into RobotsRules,
 * and applies a failure policy when the answer is not a 2xx.
 *
 * Entries live as long as the RobotsPolicy (one crawl run); RFC 9309 §2.4
 * asks not to use a cached copy for more than 24 hours, which a run is
 * expected not to exceed. A failed fetch is cached too: we do not retry it.
 */
import { CrawlerError } from '../errors.js';
import { RobotsRules } from './rules.js';

/** What the fetcher got: a final status and body (redirects already followed), or a failure. */
export type RobotsFetchResult = { status: number; body: Buffer } | { error: unknown };

/** Fetches one robots.txt URL. It may also throw or reject: that counts as `{ error }`. */
/**
 * Fetches a robots.txt URL for `origin`, redirects followed. `inTurn`, when
 * given, makes each request to another host (a redirect hop) in that host's
 * turn: a shared crawl's worker takes the turn through its store, so every
 * worker keeps that host's interval.
 */
export type RobotsFetcher = (robotsUrl: string, origin: string, inTurn?: HostTurn) => Promise<RobotsFetchResult>;

/** Runs `request` in `origin`'s turn (its politeness across every worker of the crawl). */
export type HostTurn = <T>(origin: string, request: () => Promise<T>) => Promise<T>;

/** What a robots.txt fetch that did not give 2xx means. */
export type RobotsFailurePolicy = (result: RobotsFetchResult) => 'allow' | 'disallow';

/**
 * The crawler's policy, RFC 9309 §2.3.1:
 *
 * - 2xx: not a failure ('allow'; RobotsPolicy parses the body instead).
 * - 3xx: the fetcher follows redirects (§2.3.1.2 "SHOULD follow at least five
 *   consecutive redirects"), so a 3xx that still arrives means too many
 *   redirects or one without a usable Location. §2.3.1.2 says "crawlers MAY
 *   assume that the robots.txt file is unavailable", and unavailable is
 *   allow-all (§2.3.1.3): 'allow'.
 * - 4xx: "unavailable", §2.3.1.3 "the crawler MAY access any resources on the
 *   server": 'allow'. Except 429 Too Many Requests, which is the server asking
 *   us to slow down, not saying there are no rules: we treat it like a server
 *   error, as Google does: 'disallow'.
 * - 5xx, a network failure, or a status outside 200–599: "unreachable",
 *   §2.3.1.4 "the crawler MUST assume complete disallow": 'disallow'.
 */
export const CRAWLER_FAILURE_POLICY: RobotsFailurePolicy = (result) => {
  if (!('status' in result)) return 'disallow';
  const s = result.status;
  if (s === 429) return 'disallow';
  if (s >= 200 && s < 500) return 'allow';
  return 'disallow';
};

/**
 * KeywordHunter's policy: robots.txt is advisory for it, so any non-200
 * answer or network failure means allow all.
 */
export const KEYWORD_HUNTER_FAILURE_POLICY: RobotsFailurePolicy = () => 'allow';

/** Options of a RobotsPolicy. */
export interface RobotsPolicyOptions {
  /** Our product token, or a User-Agent starting with it (see RobotsRules.parse). */
  userAgent: string;
  fetch: RobotsFetcher;
  onFailure: RobotsFailurePolicy;
  /** Seconds, default 30: a larger Crawl-delay is capped to this. */
  maxCrawlDelay?: number;
  /**
   * Bytes of the body parsed, default 500 KiB (RFC 9309 §2.5: "The parsing
   * limit MUST be at least 500 kibibytes"; smaller values are accepted for
   * tests). A line cut by the limit is dropped.
   */
  maxBytes?: number;
}

/** RobotsPolicyOptions.maxCrawlDelay's default, in seconds. */
export const DEFAULT_MAX_CRAWL_DELAY = 30;
/** RobotsPolicyOptions.maxBytes's default: 500 KiB. */
export const DEFAULT_MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * The first `maxBytes` of `body` as UTF-8 text. When the body is longer, the
 * last, partial line is dropped (a cut pattern would match more than was
 * written); a single line longer than the limit is cut at a character boundary.
 */
export function decodeRobotsBody(body: Buffer, maxBytes: number): string {
  if (body.length <= maxBytes) return body.toString('utf8');
  let end = maxBytes;
  // The byte at `end` is the first one dropped; if it starts a line, keep all.
  const next = body[end] as number;
  if (next !== 0x0a && next !== 0x0d) {
    let nl = end - 1;
    while (nl >= 0 && body[nl] !== 0x0a && body[nl] !== 0x0d) nl--;
    if (nl >= 0) end = nl + 1;
    else while (end > 0 && ((body[end] as number) & 0xc0) === 0x80) end--; // no newline: keep whole characters
  }
  return body.subarray(0, end).toString('utf8');
}

/**
 * The rules a robots.txt answer gives: the parsed body for a 2xx (the first
 * `maxBytes`, Crawl-delay capped at `maxCrawlDelay`), otherwise allow-all or
 * disallow-all as the failure policy says.
 */
export function rulesFromAnswer(result: RobotsFetchResult, options: Required<Omit<RobotsPolicyOptions, 'fetch'>>): RobotsRules {
  if ('status' in result && result.status >= 200 && result.status < 300) {
    return RobotsRules.parse(decodeRobotsBody(result.body, options.maxBytes), options.userAgent).withMaxCrawlDelay(options.maxCrawlDelay);
  }
  const status = 'status' in result ? result.status : 0;
  return options.onFailure(result) === 'allow' ? RobotsRules.allowAll(status) : RobotsRules.disallowAll(status);
}

/** The robots.txt rules of each origin a crawl touches, fetched once each. */
export class RobotsPolicy {
  readonly #options: Required<RobotsPolicyOptions>;
  readonly #cache = new Map<string, RobotsRules>();
  readonly #inflight = new Map<string, Promise<RobotsRules>>();

  constructor(options: RobotsPolicyOptions) {
    const maxCrawlDelay = options.maxCrawlDelay ?? DEFAULT_MAX_CRAWL_DELAY;
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_ROBOTS_BYTES;
    if (!Number.isFinite(maxCrawlDelay) || maxCrawlDelay < 0) {
      throw new CrawlerError('ERR_INVALID_OPTION', `robots: maxCrawlDelay must be a non-negative number of seconds, got ${maxCrawlDelay}`);
    }
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new CrawlerError('ERR_INVALID_OPTION', `robots: maxBytes must be a positive integer, got ${maxBytes}`);
    }
    this.#options = { ...options, maxCrawlDelay, maxBytes };
  }

  /** The rules for an origin ("http://host:port", as the caller keys it), fetching robots.txt once; concurrent callers share one fetch. */
  rulesFor(origin: string): Promise<RobotsRules> {
    const cached = this.#cache.get(origin);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = this.#inflight.get(origin);
    if (pending !== undefined) return pending;
    const load = this.#load(origin).then(
      (rules) => {
        this.#inflight.delete(origin);
        // A set() while the fetch was running wins.
        const seeded = this.#cache.get(origin);
        if (seeded !== undefined) return seeded;
        this.#cache.set(origin, rules);
        return rules;
      },
      (err: unknown) => {
        this.#inflight.delete(origin);
        throw err;
      },
    );
    this.#inflight.set(origin, load);
    return load;
  }

  /** The cached rules, or undefined when not fetched yet. */
  cached(origin: string): RobotsRules | undefined {
    return this.#cache.get(origin);
  }

  /** Seed the cache (e.g. rules restored from a durable store). */
  set(origin: string, rules: RobotsRules): void {
    this.#cache.set(origin, rules);
  }

  async #load(origin: string): Promise<RobotsRules> {
    const { fetch, onFailure, userAgent, maxBytes, maxCrawlDelay } = this.#options;
    const url = `${origin.replace(/\/+$/, '')}/robots.txt`;
    let result: RobotsFetchResult;
    try {
      result = await fetch(url, origin);
    } catch (error) {
      result = { error };
    }
    return rulesFromAnswer(result, { userAgent, onFailure, maxBytes, maxCrawlDelay });
  }
}
