/**
 * Which robots.txt redirects the TSE crawler follows, and the stderr note
 * of one it does not: the rule its robots.txt fetcher is built with
 * (tse-run.ts).
 */
import type { HttpUrl } from '../url/http-url.js';
import type { Scope } from '../url/scope.js';

/**
 * Whether a robots.txt redirect is followed (spec decision "One crawl,
 * whatever runs it"): to any host in the crawl's scope, in every mode (RFC
 * 9309 §2.3.1.2), each hop in its host's turn; never off the crawl
 * ("external URLs are never requested"), and `note` says so once per host.
 */
export function robotsRedirectRule(inScope: Scope, note: (text: string) => void): (next: HttpUrl, from: HttpUrl) => boolean {
  const told = new Set<string>();
  return (next, from) => {
    if (next.origin === from.origin || inScope(next)) return true;
    if (!told.has(from.origin)) {
      told.add(from.origin);
      note(`crawler: ${from.key} redirects to ${next.key}, outside the crawl: not followed, robots.txt treated as unavailable (allow all)\n`);
    }
    return false;
  };
}
