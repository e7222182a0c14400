/**
 * What the crawl report keeps of a crawl: compact records, one per crawl
 * event it needs (links that are not followed only as counts per page).
 * They are small JSON arrays, so a private crawl can append them to a file
 * in its page directory and a resumed crawl can read them back: the report
 * then covers the whole crawl, across runs.
 */

/** What is known of the run that wrote the records after it. */
export interface RunInfo {
  program: 'crawler' | 'KeywordHunter';
  /** The command line as given (program name first). */
  command: string[];
  /** Versions: ours and Node's. */
  versions: string;
  /** Epoch ms. */
  startedAt: number;
  /** The crawl-wide least interval between request starts to one host (--delay), ms. */
  delayMs: number;
  /** crawler: the page directory (saved pages are linked from the report). */
  pageDir?: string | undefined;
  /** KeywordHunter: the keyword searched. */
  keyword?: string | undefined;
  /** crawler --since: the earlier crawl's directory, as given (the run is a refresh of it). */
  since?: string | undefined;
}

/** What a page saved by a refresh was to the earlier crawl (see the engine's Refreshed). */
export type RefreshState = 'new' | 'changed' | 'unchanged';

/**
 * Why a link was not followed, as --json gives it (output/cs50-words.ts
 * linkLeftOut), and a redirect not followed. A report journaled before
 * 'excluded', 'extension' and 'too-long' counted those as 'external' and
 * 'invalid'.
 */
export type SkipReason = 'duplicate' | 'external' | 'excluded' | 'extension' | 'too-long' | 'robots' | 'invalid' | 'redirect';

export type ReportRecord =
  | ['run', RunInfo]
  /** A run ended: when, and why. */
  | ['end', number, string]
  /** One request on the wire: origin, URL, start and end (epoch ms), status (0: none), response bytes, error message. */
  | ['x', string, string, number, number, number, number, string?]
  /** A page's answer: URL, depth, status (0: none), error message. */
  | ['resp', string, number, number, string?]
  /** A page saved: URL, depth, ID; in a refresh, what it was to the earlier crawl and (unchanged) the bytes not sent again. */
  | ['saved', string, number, number, RefreshState?, number?]
  /** A refresh that ran to its end: how many pages of the earlier crawl it did not save, and the first of them. */
  | ['gone', number, string[]]
  | ['failed', string, number, string]
  /** A followed link: URL, its depth, the page it was found on (or the URL that redirected to it). */
  | ['follow', string, number, string]
  /** Links of a page that were not followed, by reason. */
  | ['skips', string, Partial<Record<SkipReason, number>>]
  /** A host's robots.txt rules: origin, source, group, rule count, Crawl-delay (s). */
  | ['robots', string, string, string, number, number | null]
  /** A host's robots.txt answer as a shared store holds it: origin, status. */
  | ['robots-status', string, number]
  /** A host's pacing: origin, at (epoch ms), interval ms, paused until (epoch ms, 0: none), consecutive failures. */
  | ['host', string, number, number, number, number]
  /** --page-requisites: a requisite of a page (the page's URL), how it ended, and why when it was not fetched. */
  | ['req', string, string, string?]
  /** KeywordHunter's match: URL, depth, the line. */
  | ['match', string, number, string];

/** The origin of a URL key ("http://host:port/..." → "http://host:port"). */
export function originOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  return m === null ? url : m[0];
}
