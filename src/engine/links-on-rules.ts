/**
 * A page's links to a host, told as soon as the host's robots.txt rules
 * come: what a private crawl fetches ahead while the page waits for the
 * robots.txt of its other new hosts. A page that links to 2,000 new hosts
 * is judged when the last of their robots.txt files has come (its links are
 * classified in document order, so that what is told is the same whichever
 * answer came first); meanwhile each host whose rules are in may be asked
 * for its pages, each in its own turn, instead of all of them waiting for
 * the slowest robots.txt, which at thousands of hosts comes long after the
 * first (docs/performance.md, The window and the fetch ahead).
 */
import type { FrontierEntry } from '../frontier/private-store.js';
import type { RobotsRules } from '../robots/rules.js';
import type { HttpUrl } from '../url/http-url.js';
import type { LinkAction } from './events.js';
import type { PageLink } from './page-links.js';

/** Links to fetch ahead, each with its frontier entry. */
export type AheadLinks = Array<{ entry: FrontierEntry; url: HttpUrl }>;

/**
 * For RobotsGate.learnAll: as each host's rules come, the page's links to
 * it that are still undecided (`actions[i]` undefined: in scope and not
 * seen, only their host's rules were not known) and that the rules allow,
 * in document order and each key once, at `depth`, told to `ahead`.
 * Nothing is told once `signal` has aborted.
 */
export function linksOnRules(
  links: readonly PageLink[],
  actions: ReadonlyArray<LinkAction | undefined>,
  depth: number,
  signal: AbortSignal,
  ahead: (links: AheadLinks) => void,
): (origin: string, rules: RobotsRules) => void {
  const byOrigin = new Map<string, HttpUrl[]>();
  for (let i = 0; i < links.length; i++) {
    const url = (links[i] as PageLink).url;
    if (url === undefined || actions[i] !== undefined) continue;
    const list = byOrigin.get(url.origin);
    if (list === undefined) byOrigin.set(url.origin, [url]);
    else list.push(url);
  }
  return (origin, rules) => {
    const urls = byOrigin.get(origin);
    if (urls === undefined || signal.aborted) return;
    byOrigin.delete(origin);
    const keys = new Set<string>();
    const out: AheadLinks = [];
    for (const url of urls) {
      if (keys.has(url.key) || !rules.isAllowed(url.target)) continue;
      keys.add(url.key);
      out.push({ entry: { key: url.key, url: url.href, depth }, url });
    }
    if (out.length > 0) ahead(out);
  };
}
