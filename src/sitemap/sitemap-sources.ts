/**
 * Where a crawl's sitemaps are (spec decision "Sitemaps"): the `Sitemap:`
 * lines of the seed host's robots.txt (RobotsRules.sitemaps), or, when it
 * names none that can be read, `/sitemap.xml` at the seed's origin.
 */
import { describeError } from '../errors.js';
import { DEFAULT_MAX_URL_LENGTH, parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../url/http-url.js';

/** The sitemap URLs to read, and a note for each `Sitemap:` value left out. */
export interface SitemapSources {
  /** In robots.txt's order, duplicates dropped; never empty. */
  urls: HttpUrl[];
  /** One line each, for stderr. */
  notes: string[];
}

/**
 * The sitemaps to read for a crawl whose seed is at `origin`
 * ("http://host:port", as RobotsPolicy keys it). `robotsSitemaps` are the
 * `Sitemap:` values of that origin's robots.txt, as written: each is taken
 * as a URL relative to the robots.txt (the protocol asks for an absolute
 * one; a relative one is read leniently, as RFC 9309 §2.2.4 lets a crawler
 * read other records), and one that is no http(s) URL is left out with a
 * note. They may name other hosts: robots.txt may point anywhere (the
 * sitemaps.org "cross submits" rule), and the fetcher applies that host's
 * robots.txt. When none is left, the list is `${origin}/sitemap.xml`.
 * Pure; throws a CrawlerError only when `origin` itself is no http(s) origin.
 */
export function sitemapSources(robotsSitemaps: readonly string[], origin: string, maxUrlLength = DEFAULT_MAX_URL_LENGTH): SitemapSources {
  const base = parseHttpUrl(`${origin.replace(/\/+$/, '')}/robots.txt`, maxUrlLength);
  const urls: HttpUrl[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const value of robotsSitemaps) {
    let url: HttpUrl;
    try {
      url = resolveHttpUrl(value, base, maxUrlLength);
    } catch (err) {
      notes.push(`robots.txt of ${base.origin}: Sitemap ${JSON.stringify(value)} is left out: ${describeError(err)}`);
      continue;
    }
    if (!seen.has(url.key)) {
      seen.add(url.key);
      urls.push(url);
    }
  }
  if (urls.length === 0) urls.push(resolveHttpUrl('/sitemap.xml', base, maxUrlLength));
  return { urls, notes };
}
