/**
 * KeywordHunter's page policy: the spec's link resolution (a URL without a
 * path means /index.html) and what an answer is worth. Every link is
 * followed (any host); a page answered 200 is saved in OutputDir and
 * searched for the keyword (keyword-search.ts), and the first one holding
 * it stops the crawl; any other status is neither saved nor told. Pure
 * functions; the run (keyword-hunter.ts) builds on them.
 */
import type { PagePolicy } from '../engine/page-policy.js';
import { resolveHttpUrl, type HttpUrl } from '../url/http-url.js';
import { anyScope } from '../url/scope.js';
import { findLine } from './keyword-search.js';
import type { KeywordHunterSettings } from './keyword-settings.js';

/** The spec's link resolution: RFC 3986, and a URL without a path means /index.html. */
export function resolveKhLink(href: string, base: HttpUrl, maxLength: number): HttpUrl {
  const url = resolveHttpUrl(href, base, maxLength);
  if (!url.pathWasEmpty) return url;
  return resolveHttpUrl(url.query === undefined ? '/index.html' : `/index.html?${url.query}`, url, maxLength);
}

/**
 * The spec's search as a page policy: a 200 page is kept, and either holds
 * the keyword (the line where it is: the crawl stops there) or is scanned
 * for links; any other status is not kept, and nothing is told of it. The
 * verdict reads the body, so it is asked once per answer: the page path
 * (PagePath.judge) remembers it for every later ask of the same response.
 */
export function keywordPolicy(settings: Pick<KeywordHunterSettings, 'keyword'>, resolve: (href: string, base: HttpUrl) => HttpUrl): PagePolicy {
  const needle = Buffer.from(settings.keyword, 'utf8');
  return {
    resolveLink: resolve,
    inScope: anyScope,
    verdict: ({ response }) => {
      if (response.status !== 200) return { keep: false };
      const line = findLine(response.body, needle);
      return line === undefined ? { keep: true, scan: true } : { keep: true, scan: false, match: line };
    },
    failureReason: (error) => error.message,
  };
}
