/**
 * The broad section's site (issue 30), as pure functions that the site's
 * server process and the bench share: which loopback address each host
 * has, what each page says, and which URLs a crawl to depth 2 must save.
 *
 * Host k (0-based) is 127.0.A.B with A = 1 + floor(k / 250) and
 * B = 1 + k mod 250 (127.0.0.0/8 is all loopback on Linux; 127.0.0.x is
 * left to the other sections). Every host serves, on one port:
 *
 * - `/robots.txt`: allows everything, no Crawl-delay;
 * - `/`, its root, linking to the host's other pages `/p1.html` ..
 *   `/p{P-1}.html` (P pages in all), so that they are one step below it;
 * - `/p{J}.html`, linking back to the root, to the next page of the host
 *   and to the next host's root (links a crawler has seen already);
 * - on host 0 only, `/hub.html`, the seed, linking to every host's root.
 *
 * So breadth first from the hub (depth 0) reaches every root at depth 1 and
 * the other P-1 pages of each host at depth 2: a crawl to maxDepth 2 saves
 * hosts x P + 1 pages. Every other path answers 404.
 */

/** The site's size. */
export interface BroadShape {
  hosts: number;
  /** Pages per host, its root included. */
  pages: number;
}

/** Hosts per third octet: addresses end in .1 to .250 (never .0 or .255). */
const PER_OCTET = 250;

/** The largest site the addresses allow (third octets 1 to 254). */
export const MAX_HOSTS = PER_OCTET * 254;

/** The loopback address of host k (0-based): 127.0.1.1, 127.0.1.2, ... */
export function hostAddress(k: number): string {
  if (!Number.isInteger(k) || k < 0 || k >= MAX_HOSTS) throw new RangeError(`host ${k} is outside 0..${MAX_HOSTS - 1}`);
  return `127.0.${1 + Math.floor(k / PER_OCTET)}.${1 + (k % PER_OCTET)}`;
}

/** `http://127.0.A.B:PORT` for host k. */
export function origin(k: number, port: number): string {
  return `http://${hostAddress(k)}:${port}`;
}

/** The seed: the hub page on host 0. */
export function seedUrl(port: number): string {
  return `${origin(0, port)}/hub.html`;
}

/** The path of page j (0 = the root) of any host. */
export function pagePath(j: number): string {
  return j === 0 ? '/' : `/p${j}.html`;
}

/** Every URL a crawl from the seed to maxDepth 2 must save: the hub, then each host's pages. */
export function expectedUrls(shape: BroadShape, port: number): Set<string> {
  const urls = new Set<string>([seedUrl(port)]);
  for (let k = 0; k < shape.hosts; k++) for (let j = 0; j < shape.pages; j++) urls.add(`${origin(k, port)}${pagePath(j)}`);
  return urls;
}

/** The robots.txt every host serves. */
export const ROBOTS_TXT = 'User-agent: *\nAllow: /\n';

// About 1 KB of text per page, so that a page is not only links.
const FILLER = `<p>${'A broad crawl spans many hosts; its speed is how close it comes to the politeness bound. '.repeat(10)}</p>\n`;

function html(title: string, links: readonly string[]): string {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${title}</title></head><body>\n<h1>${title}</h1>\n${FILLER}<ul>\n${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('\n')}\n</ul>\n</body></html>\n`;
}

/**
 * The body of `path` on host k, or undefined when the site has no such page
 * (robots.txt is not a page: see ROBOTS_TXT).
 */
export function pageBody(shape: BroadShape, port: number, k: number, path: string): string | undefined {
  if (k < 0 || k >= shape.hosts) return undefined;
  if (path === '/hub.html') return k === 0 ? html('hub', Array.from({ length: shape.hosts }, (_, h) => `${origin(h, port)}/`)) : undefined;
  if (path === '/') return html(`host ${k}`, Array.from({ length: shape.pages - 1 }, (_, j) => `p${j + 1}.html`));
  const m = /^\/p([1-9][0-9]*)\.html$/.exec(path);
  if (m === null) return undefined;
  const j = Number(m[1]);
  if (j >= shape.pages) return undefined;
  const next = (j % (shape.pages - 1)) + 1;
  return html(`host ${k} page ${j}`, ['/', `/p${next}.html`, `${origin((k + 1) % shape.hosts, port)}/`]);
}
