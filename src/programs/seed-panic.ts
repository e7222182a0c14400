/**
 * The TSE crawler's seed PANIC (SeedPanic, below): when the seed cannot be
 * crawled, why, and what to do about it, for the private crawl and a
 * worker of a shared one alike; with the words it is told in (what a
 * robots.txt answer that means "disallow all" says, the hints of its
 * second line).
 */
import { CrawlerError, describeError } from '../errors.js';
import { ConnectError } from '../http/connect-error.js';
import { isCertificateFailure } from '../net-errors.js';
import { CRAWLER_FAILURE_POLICY, type RobotsFetcher } from '../robots/policy.js';
import { parseHttpUrl, type HttpUrl } from '../url/http-url.js';

/**
 * How a robots.txt answer that means "disallow all" (RFC 9309: 5xx, or
 * unreachable) is told, in the PANIC and on stderr alike; undefined for an
 * answer that does not mean it. `status` 0: nothing arrived (`error` says why, when known).
 */
function robotsDisallowAll(robotsUrl: string, status: number, error?: unknown): string | undefined {
  if (status === 0) return `${robotsUrl} could not be fetched${error === undefined ? '' : ` (${describeError(error)})`}, which means disallow all (RFC 9309)`;
  if (CRAWLER_FAILURE_POLICY({ status, body: Buffer.alloc(0) }) !== 'disallow') return undefined;
  return `${robotsUrl} answered HTTP ${status}, which means disallow all (RFC 9309)`;
}

/** The PANIC's second line when robots.txt decided (its rules, or an answer that means disallow all). */
export const ROBOTS_HINT = 'Use --ignore-robots to crawl it anyway.';

/**
 * What to do about a host that cannot be reached: the PANIC's second line.
 * Never --ignore-robots: no server said anything, so robots.txt decided nothing.
 */
function unreachableHint(error: ConnectError): string {
  switch (error.code) {
    case 'ERR_DNS':
      return 'Check the host name in the URL; if it is right, check this machine\'s network and name servers.';
    case 'ERR_CONNECT':
      return error.systemCode === 'ECONNREFUSED' ? 'Check the URL\'s host and port, and that the server is running.' : 'Check the URL\'s host, and this machine\'s network.';
    case 'ERR_CONNECT_TIMEOUT':
      return 'Check the URL\'s host and port, and the network; --connect-timeout waits longer.';
    case 'ERR_TLS':
      return isCertificateFailure(error.systemCode)
        ? 'The server\'s certificate could not be verified; --insecure skips the check (test servers only).'
        : 'Check that the server speaks https on that port (for plain http, the URL starts with http://).';
  }
}

/** A URL the crawl made (a key, a robots.txt URL), parsed again; undefined if it cannot be. */
export function parsed(key: string): HttpUrl | undefined {
  try {
    return parseHttpUrl(key, Number.MAX_SAFE_INTEGER);
  } catch {
    return undefined;
  }
}

/** True when `error` is `url`'s host (and port, once it resolved) not being reached. */
function unreachable(error: unknown, url: HttpUrl): error is ConnectError {
  return error instanceof ConnectError && error.host === url.hostname && (error.port === undefined || error.port === url.port);
}

/**
 * The seed PANIC: when the seed itself (the only page at depth 0, before any
 * page is saved) cannot be crawled, the crawl has nothing to do and exits 1
 * with `PANIC: cannot crawl SEED: why`, and a second line saying what to do
 * when there is something to do. Every way the seed can fail goes through
 * here: a failed fetch or a rejected response, robots.txt, a redirect.
 *
 * The cause comes first (spec decision "Errors name their cause first"): a
 * host that cannot be reached is named so, with or without robots.txt
 * (whose fetch is then what found it out), and robots.txt is named only
 * when its own answer decided.
 *
 * With several seeds (--seeds), one that cannot be crawled leaves the
 * others to crawl: it is a `Failed` line like any page (each method below
 * then answers false), and the crawl is a PANIC only when it ends with no
 * page saved (`ended`): `PANIC: cannot crawl any of the N seeds`, with the
 * first one's cause.
 */
export class SeedPanic {
  /** Why a host's robots.txt means "disallow all", by origin: its answer in words, or the host not being reached. */
  private readonly robotsFailures = new Map<string, string | ConnectError>();
  private error: CrawlerError | undefined;
  /** With several seeds: the first one that failed, and why (with what to do, when there is something). */
  private first: { url: string; why: string; hint: string | undefined } | undefined;

  /** `seeds`: how many seeds the crawl has (the positional one and those of --seeds). */
  constructor(
    private readonly seed: HttpUrl,
    private readonly seeds = 1,
  ) {}

  /** The PANIC, when the seed failed. */
  get panic(): CrawlerError | undefined {
    return this.error;
  }

  /** `fetch`, noting each robots.txt answer that means "disallow all" and why, for the PANIC. */
  watching(fetch: RobotsFetcher): RobotsFetcher {
    return async (robotsUrl, origin, inTurn) => {
      const result = await fetch(robotsUrl, origin, inTurn);
      if ('status' in result) {
        const failure = robotsDisallowAll(robotsUrl, result.status);
        if (failure !== undefined) this.robotsFailures.set(origin, failure);
      } else {
        // The robots.txt request found the host unreachable: that is the cause, not what robots.txt would have said.
        const robots = parsed(robotsUrl);
        const why = robots !== undefined && unreachable(result.error, robots) ? result.error : robotsDisallowAll(robotsUrl, 0, result.error);
        if (why !== undefined) this.robotsFailures.set(origin, why);
      }
      return result;
    };
  }

  /**
   * The stderr note of a robots.txt answer that means "disallow all" (a
   * shared crawl's worker tells each it fetched), or undefined: the cause
   * first when the host could not be reached, with what that means.
   */
  robotsNote(robotsUrl: string, status: number): string | undefined {
    const failure = this.robotsFailures.get(parsed(robotsUrl)?.origin ?? '');
    if (failure instanceof ConnectError) return `${failure.message}: ${robotsUrl} could not be fetched, which means disallow all (RFC 9309)`;
    return status === 0 && failure !== undefined ? failure : robotsDisallowAll(robotsUrl, status);
  }

  /**
   * True when a URL at `depth` 0 failed while nothing was saved yet: `why` is
   * then the PANIC, or `error` when it is the host not being reached. Every
   * URL at depth 0 is the seed or the target of its redirects (followed in
   * the same step by a private crawl, queued at depth 0 by a worker of a
   * shared one), so either way the seed cannot be crawled. With several
   * seeds, false: the failure of `url` is noted for `ended`, and the caller
   * logs its Failed line.
   */
  failed(depth: number, nothingSaved: boolean, why: string, error?: CrawlerError, url = this.seed.key): boolean {
    if (depth !== 0 || !nothingSaved) return false;
    if (error instanceof ConnectError) return this.panicWith(url, error.message, unreachableHint(error));
    return this.panicWith(url, why);
  }

  /**
   * A URL at depth 0 (the seed, or a shared crawl's redirect target of it)
   * is disallowed by robots.txt, or robots.txt failed so that it disallows
   * all. True when that is the PANIC (false with several seeds).
   */
  disallowed(url: HttpUrl | string = this.seed): boolean {
    const key = typeof url === 'string' ? url : url.key;
    const failure = this.robotsFailures.get(typeof url === 'string' ? (parsed(url)?.origin ?? this.seed.origin) : url.origin);
    if (failure instanceof ConnectError) return this.panicWith(key, failure.message, unreachableHint(failure));
    return this.panicWith(key, failure ?? 'robots.txt disallows it', ROBOTS_HINT);
  }

  /**
   * The seed is not fetched because of where it redirects (`by`: the URL
   * that redirected, when not the seed). True when that is the PANIC (false
   * with several seeds).
   */
  redirected(by: HttpUrl, target: string, why: string): boolean {
    const via = by.key === this.seed.key || this.seeds > 1 ? '' : ` (by ${by.key})`;
    return this.panicWith(by.key, `redirected to ${target}${via}: ${why}`);
  }

  /**
   * The crawl ended with no page saved (and not by a stop or a page limit):
   * with several seeds, none could be crawled, and that is the PANIC, with
   * the first one's cause (a worker of a shared crawl may know none: another
   * worker's log then says why).
   */
  ended(): void {
    if (this.seeds === 1 || this.error !== undefined) return;
    const first = this.first;
    const why = first === undefined ? 'no page was saved' : `the first, ${first.url}: ${first.why}`;
    this.error = new CrawlerError('ERR_SEED', `PANIC: cannot crawl any of the ${this.seeds} seeds; ${why}`, { url: this.seed.key, ...(first?.hint === undefined ? {} : { hint: first.hint }) });
  }

  /** The PANIC for the seed (true); with several seeds, only noted for `ended` (false: the caller logs a Failed line). */
  private panicWith(url: string, why: string, hint?: string): boolean {
    if (this.seeds > 1) {
      this.first ??= { url, why, hint };
      return false;
    }
    this.error = new CrawlerError('ERR_SEED', `PANIC: cannot crawl ${this.seed.key}: ${why}`, { url: this.seed.key, ...(hint === undefined ? {} : { hint }) });
    return true;
  }
}
