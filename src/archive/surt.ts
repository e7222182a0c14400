/**
 * SURT (Sort-friendly URI Reordering Transform), the key a CDXJ index is
 * sorted by: `http://www.Example.com:8080/a/b?z=1&a=2#f` becomes
 * `com,example:8080)/a/b?a=2&z=1`.
 *
 * ReplayWeb.page (wabac.js) computes this key itself for every URL it looks
 * up, with warcio's getSurt, and binary-searches the index for it; so the
 * rules here are exactly those, or a page would not be found:
 *
 * - only `http:` and `https:` URLs are transformed; any other string is its own key;
 * - a leading `www.`, `www2.`, ... is dropped from the host (as written, before lower-casing);
 * - the whole URL is lower-cased, then parsed as a WHATWG URL (which drops a
 *   default port and the fragment, and percent-encodes what needs it, in
 *   upper-case escapes, since the lower-casing came first);
 * - the host's labels are reversed and joined with commas (an IPv4 address
 *   too, as pywb's `surt` does by default), then `:port` when it is not the
 *   default, then `)`, the path, and `?` with the query's `&`-separated parts
 *   sorted (pywb sorts them too), when there is a query.
 *
 * pywb's canonicalizer does more (session IDs, `www` anywhere): those keys
 * would differ from ReplayWeb.page's lookups, so they are not applied.
 */
export function surt(url: string): string {
  if (!url.startsWith('http:') && !url.startsWith('https:')) return url;
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^(https?:\/\/)www\d*\./, '$1').toLowerCase());
  } catch {
    return url;
  }
  let key = parsed.hostname.split('.').reverse().join(',');
  if (parsed.port !== '') key += `:${parsed.port}`;
  key += `)${parsed.pathname}`;
  if (parsed.search !== '') key += `?${parsed.search.slice(1).split('&').sort().join('&')}`;
  return key;
}
