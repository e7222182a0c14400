/**
 * A fetch that keeps the host's turn: wait until the host's politeness
 * interval has passed since its last request start, then request, stamping
 * the start when the request bytes are written. Pages and robots.txt both
 * go through it, so robots requests count against the delay too.
 */
import { connectionsFor, HostSlots } from './host-slots.js';
import { CrawlerError, isCrawlerError } from '../errors.js';
import type { Politeness } from '../frontier/politeness.js';
import type { FetchOptions, FetchResponse, HttpClient } from '../http/client.js';
import { responseRetryAfter } from '../http/retry-after.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { HttpUrl } from '../url/http-url.js';
import { isPushback } from './pushback.js';
import { followRedirects, type FetchOutcome } from './redirects.js';

/** Header fields a request carries beyond the standard ones, in order. */
export type RequestHeaders = ReadonlyArray<readonly [string, string]>;

/** What a page request asks beyond the URL: a refresh's validators, and whether an answer's body is of use (see FetchOptions). */
export type PageAsk = Pick<FetchOptions, 'headers' | 'wantsBody'>;

/** Default of --max-retry-after: the longest pause a server's Retry-After is granted. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;

export interface PoliteFetcherOptions {
  /** A Retry-After longer than this is not waited for (a note says so). Default 120 s. */
  maxRetryAfterMs?: number;
  /** Double a host's interval per consecutive failure (429, 5xx, timeouts, resets), restored by a success (crawler: on). */
  backOff?: boolean;
  /**
   * --connections-per-host: most requests to one host in flight at once
   * when it asks for no interval, and one when it does (HostSlots). Absent:
   * no cap here (the caller keeps to one).
   */
  connectionsPerHost?: number;
}

export class PoliteFetcher {
  private readonly maxRetryAfterMs: number;
  private readonly backOff: boolean;
  private readonly slots: HostSlots | undefined;

  constructor(
    private readonly client: HttpClient,
    private readonly politeness: Politeness,
    private readonly signal?: AbortSignal,
    options: PoliteFetcherOptions = {},
  ) {
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    this.backOff = options.backOff ?? false;
    const perHost = options.connectionsPerHost;
    this.slots = perHost === undefined ? undefined : new HostSlots(connectionsFor(politeness, perHost));
  }

  /**
   * One request to `url` in the host's turn (after its politeness wait).
   * `signal` stops a wait early; `ask.headers` are sent after the standard
   * ones (a refresh's conditional request), `ask.wantsBody` lets the client
   * leave a useless body unread.
   */
  fetch(url: HttpUrl, signal: AbortSignal | undefined = this.signal, ask: PageAsk = {}): Promise<FetchResponse> {
    const slots = this.slots;
    // A free slot is taken at once: no promise more on the path of every page.
    const slot = slots?.tryTake(url.origin);
    if (slots === undefined || slot !== undefined) return this.fetchInSlot(url, signal, ask, slot);
    return slots.take(url.origin, signal).then((taken) => this.fetchInSlot(url, signal, ask, taken));
  }

  /** `fetch` once the host's slot is taken (`slot` its release; undefined without slots). */
  private async fetchInSlot(url: HttpUrl, signal: AbortSignal | undefined, ask: PageAsk, slot: (() => void) | undefined): Promise<FetchResponse> {
    try {
      this.checkRefusal(url);
      let release = await this.politeness.turn(url.origin, signal);
      // A stop signal ends the wait early; the request must then not be sent.
      const checkStop = (): void => {
        if (signal?.aborted) throw new CrawlerError('ERR_ABORTED', `stopped before requesting ${url.href}`, { url: url.href });
        this.checkRefusal(url);
      };
      try {
        checkStop();
        let startedAt = 0;
        // The start as politeness stamped it (its clock): the answer's first byte may move it later.
        let stamped: number | undefined;
        let response: FetchResponse;
        try {
          response = await this.client.fetch(url, {
            headers: ask.headers,
            wantsBody: ask.wantsBody,
            onRequestWritten: () => {
              startedAt = performance.now();
              release();
              stamped = this.politeness.lastStartOf(url.origin);
            },
            onFirstByte: () => {
              if (stamped !== undefined) this.politeness.answered(url.origin, stamped);
            },
            // A request re-sent because the kept-alive connection was closed is a new request start: it waits its turn.
            beforeResend: async () => {
              release();
              release = await this.politeness.turn(url.origin, signal);
              checkStop();
            },
          });
        } catch (err) {
          if (this.backOff && isCrawlerError(err) && isPushback({ error: err })) this.politeness.failed(url.origin);
          throw err;
        }
        this.politeness.responded(url.origin, performance.now() - startedAt);
        // The pause first: of what the crawl state keeps for --resume, it is what must not be lost.
        this.listen(response);
        // With back-off: a pushback doubles the host's interval, any other answer restores it.
        if (this.backOff) {
          if (isPushback({ response })) this.politeness.failed(url.origin);
          else this.politeness.succeeded(url.origin);
        }
        return response;
      } finally {
        // A failed connect still counts as an attempt on the host.
        release();
      }
    } finally {
      slot?.();
    }
  }

  /** A host that asked for a pause beyond the cap is asked nothing more: its pages fail with the server's words. */
  private checkRefusal(url: HttpUrl): void {
    const reason = this.politeness.refusalOf(url.origin);
    if (reason !== undefined) throw new CrawlerError('ERR_HOST_REFUSED', reason, { url: url.href });
  }

  /**
   * Listens to a server that pushes back (spec decision "When the server
   * pushes back"): a 429 or 503 with Retry-After pauses the whole host, up to
   * the cap; the response's notes say so, for stderr.
   */
  private listen(res: FetchResponse): FetchResponse {
    const pause = responseRetryAfter(res);
    if (pause === undefined) return res;
    const { value, ms } = pause;
    let note: string;
    if (ms === undefined) note = `Retry-After: ${JSON.stringify(value)} is no delay and no HTTP-date: not waiting`;
    else if (ms > this.maxRetryAfterMs) {
      note = `Retry-After: ${value} asks for ${(ms / 1000).toFixed(1)} s, beyond --max-retry-after ${this.maxRetryAfterMs / 1000} s: not waiting, and asking this host nothing more`;
      this.politeness.refuse(res.url.origin, `not requested: the host answered HTTP ${res.status} with Retry-After: ${value}, beyond --max-retry-after ${this.maxRetryAfterMs / 1000} s`);
    }
    else {
      this.politeness.pause(res.url.origin, ms);
      note = `HTTP ${res.status} with Retry-After: ${value}: no request to this host for ${(ms / 1000).toFixed(1)} s`;
    }
    (res.notes ??= []).push(note);
    return res;
  }

  /**
   * A RobotsFetcher over this fetcher: follows up to `maxRedirects` redirects
   * (RFC 9309 §2.3.1.2), each hop polite. A redirect whose target cannot be
   * resolved, or that `mayFollow` refuses (crawler: never off the crawl),
   * ends the fetch with that 3xx answer, which the failure policy reads as
   * "unavailable", like a chain too long. A hop to another host than the
   * first request's is made in that host's turn: `inTurn` when the fetch is
   * given one (a shared worker's, through the store), else this fetcher's.
   */
  robotsFetcher(
    parse: (href: string) => HttpUrl,
    resolve: (href: string, base: HttpUrl) => HttpUrl,
    maxRedirects: number,
    mayFollow: (next: HttpUrl, from: HttpUrl) => boolean = () => true,
  ): RobotsFetcher {
    return async (robotsUrl, _origin, inTurn) => {
      try {
        const first = parse(robotsUrl);
        const end = await followRedirects(first, {
          fetch: (url) => (inTurn === undefined || url.origin === first.origin ? this.outcome(url) : inTurn(url.origin, () => this.outcome(url))),
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

  /**
   * `fetch`, with a failure as a value: the one place a request's failure
   * becomes an outcome, so every caller sees the same. A failure that is not
   * a CrawlerError (a bug below, a connector's own error) fails that
   * request alike, in words, rather than the crawl.
   */
  outcome(url: HttpUrl, signal: AbortSignal | undefined = this.signal, ask?: PageAsk): Promise<FetchOutcome> {
    return this.fetch(url, signal, ask).then(
      (response) => ({ response }),
      (error: unknown) => ({ error: isCrawlerError(error) ? error : new CrawlerError('ERR_SOCKET', `unexpected failure: ${String(error)}`, { url: url.href, cause: error }) }),
    );
  }
}
