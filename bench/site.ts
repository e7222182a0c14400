/**
 * A deterministic synthetic web site for the crawl benchmark, written as
 * static files (so nginx can serve it), with the set of pages a crawler
 * must save computed exactly by a breadth-first walk of the link graph.
 *
 * Layout: `/index.html` (page 0) and pages 1..N-1 at `/sX/tY/pK.html`, so
 * relative links need `../`. A BFS tree (page k's children are
 * b*k+1 .. b*k+b, b the smallest branching whose tree of depth 6 holds N
 * pages) guarantees every page is within depth 6; random cross links make
 * most pages much shallower. Each page has 10 to 40 real `<a href>` links:
 * home and parent, tree children, cross links, in every form (relative,
 * `./`, `../`, root-absolute, absolute, with a fragment), fragment-only
 * links, duplicates written differently, queries, non-HTML files (that
 * exist), external hosts, mailto/javascript, 404s; plus look-alike links in
 * comments and scripts (pointing at `/nope...` URLs, which 404), and the
 * filler text and noise of synthetic-page.ts.
 *
 * Queries: nginx serves the file and ignores `?query`, so a query link is a
 * distinct URL with the same content (a duplicate by content). Both crawlers
 * fetch and save it once per distinct URL, and the expected set counts it.
 * To keep their number bounded, query links only point at "hub" pages
 * (the first max(10, N/100) pages), in 3 variants each.
 *
 * Anchors are written in spellings every HTML parser agrees on (double,
 * single quotes, upper case, extra attributes, `&amp;` in queries), so a
 * crawler that misses a page misses it for a reason worth knowing, not
 * because of an exotic character reference (extract-bench covers those).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRandom, generatePage } from './synthetic-page.js';

export interface SiteOptions {
  pages: number;
  /** Origin written into absolute links, e.g. `http://127.0.0.1:8080`. */
  origin: string;
  seed?: number;
  /** Crawl depth the expected set is computed for (default 6). */
  maxDepth?: number;
}

export interface Site {
  root: string;
  pages: number;
  origin: string;
  seedUrl: string;
  maxDepth: number;
  /** Tree branching factor. */
  branching: number;
  /** Every HTML URL (path and query) a crawler to maxDepth must save. */
  expected: Set<string>;
  /** Non-HTML URLs linked from pages above maxDepth (wget fetches them, ours skips them). */
  expectedAssets: Set<string>;
  /** Distinct 404 URLs linked as real anchors from pages above maxDepth. */
  expected404: Set<string>;
  /** Page files written (pages + assets + robots.txt) and their total bytes. */
  files: number;
  htmlBytes: number;
  /** Real anchors over all pages, and links by kind. */
  links: number;
  linkKinds: Record<string, number>;
  /** Deepest BFS depth of a page file. */
  deepest: number;
  /** How many pages sit at each BFS depth. */
  depthHistogram: number[];
  /** Paths of the page files, page 0 first (for the ceiling loop and the extractors). */
  pagePaths: string[];
}

type Random = () => number;
const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** The path of page k. */
export function pagePath(k: number): string {
  return k === 0 ? '/index.html' : `/s${k % 10}/t${Math.floor(k / 10) % 10}/p${k}.html`;
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1);
}

/** A relative reference from the directory of `from` to `to` (both root paths), with `../` as needed. */
export function relativePath(from: string, to: string): string {
  const a = dirOf(from).split('/').filter(Boolean);
  const b = to.split('/').filter(Boolean);
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  return '../'.repeat(a.length - common) + b.slice(common).join('/');
}

/** The smallest branching b >= 2 whose complete tree of the given depth holds n nodes. */
export function branchingFor(n: number, depth: number): number {
  for (let b = 2; ; b++) {
    let total = 0;
    for (let d = 0, w = 1; d <= depth; d++, w *= b) total += w;
    if (total >= n) return b;
  }
}

const ASSETS = [
  ...Array.from({ length: 12 }, (_, k) => `/assets/img${k}.png`),
  ...Array.from({ length: 6 }, (_, k) => `/docs/doc${k}.pdf`),
  '/assets/site.css',
  '/assets/app.js',
  '/data/feed.xml',
];
const EXTERNAL = [
  'http://external.example/index.html',
  'https://www.example.org/about.html',
  '//cdn.example.com/lib/jquery.js',
  'http://127.0.0.1.example/p1.html',
  'mailto:webmaster@example.com',
  'javascript:void(0)',
];
const QUERY_VARIANTS = ['?sort=asc', '?sort=desc', '?page=2&sort=desc'];

/** One real link: where it goes (a root path with query, or undefined for external) and how it is written. */
interface Link {
  href: string;
  kind: string;
  /** The URL it resolves to within the site (path + query, no fragment), undefined when external. */
  target: string | undefined;
}

/** Writes `targetPath` as seen from page `from` in a random form. */
function pageLink(r: Random, from: string, targetPath: string, origin: string, kind: string): Link {
  const x = r();
  let href: string;
  if (x < 0.4) href = relativePath(from, targetPath);
  else if (x < 0.45) href = './' + relativePath(from, targetPath).replace(/^\.\//, '');
  else if (x < 0.7) href = targetPath;
  else if (x < 0.85) href = origin + targetPath;
  else href = (r() < 0.5 ? targetPath : relativePath(from, targetPath)) + pick(r, ['#top', '#comments', '#sec-2', '#']);
  if (href.startsWith('./../')) href = href.slice(2);
  return { href, kind, target: targetPath };
}

/** An anchor in one of the spellings all parsers agree on; `&` written as `&amp;`. */
function anchor(r: Random, href: string, text: string): string {
  const v = href.replace(/&/g, '&amp;');
  switch (int(r, 0, 5)) {
    case 0: return `<A HREF="${v}">${text}</A>`;
    case 1: return `<a href='${v}'>${text}</a>`;
    case 2: return `<a class="nav-link" href="${v}" title="${text}">${text}</a>`;
    case 3: return `<a\n  href="${v}"\n  rel="nofollow">${text}</a>`;
    default: return `<a href="${v}">${text}</a>`;
  }
}

/** The real links of page k (in document order). */
function linksOf(k: number, n: number, b: number, origin: string, r: Random): Link[] {
  const self = pagePath(k);
  const links: Link[] = [];
  const total = int(r, 10, 40);
  if (k > 0) {
    links.push({ href: pick(r, ['/index.html', relativePath(self, '/index.html'), origin + '/index.html']), kind: 'home', target: '/index.html' });
    links.push(pageLink(r, self, pagePath(Math.floor((k - 1) / b)), origin, 'parent'));
  }
  for (let c = b * k + 1; c <= b * k + b && c < n; c++) links.push(pageLink(r, self, pagePath(c), origin, 'child'));
  links.push({ href: pick(r, ['#top', '#main', '#']), kind: 'fragment-only', target: self });
  if (r() < 0.5) links.push({ href: pick(r, ASSETS.map((a) => (r() < 0.5 ? a : relativePath(self, a)))), kind: 'non-html', target: undefined });
  links.push({ href: pick(r, EXTERNAL), kind: 'external', target: undefined });
  if (r() < 0.3) links.push({ href: `/gone/p${int(r, 0, Math.max(10, Math.floor(n / 20)) - 1)}.html`, kind: '404', target: undefined });
  if (r() < 0.3) {
    const hub = int(r, 0, Math.min(n, Math.max(10, Math.ceil(n / 100))) - 1);
    const q = pick(r, QUERY_VARIANTS);
    const l = pageLink(r, self, pagePath(hub), origin, 'query');
    const hash = l.href.indexOf('#');
    links.push({ href: (hash === -1 ? l.href : l.href.slice(0, hash)) + q, kind: 'query', target: pagePath(hub) + q });
  }
  const extras = Math.max(1, total - links.length - 1);
  for (let j = 0; j < extras; j++) links.push(pageLink(r, self, pagePath(int(r, 0, n - 1)), origin, 'cross'));
  // A duplicate: an earlier in-site link again, written another way.
  const earlier = links.filter((l) => l.target !== undefined && l.kind !== 'fragment-only' && l.kind !== 'query');
  if (earlier.length > 0) {
    const d = pick(r, earlier);
    links.push(pageLink(r, self, d.target!, origin, 'duplicate'));
  }
  // Non-page links (assets, externals, 404s) resolve to root paths too; keep them for the expected sets.
  for (const l of links) {
    if (l.kind === 'non-html' || l.kind === '404') l.target = l.href.startsWith('/') ? l.href : new URL(l.href, 'http://x' + self).pathname;
  }
  // Shuffle lightly so the tree links are not always first (keeps home/parent near the top, like a nav).
  for (let j = links.length - 1; j > 2; j--) {
    const m = int(r, 2, j);
    [links[j], links[m]] = [links[m]!, links[j]!];
  }
  return links;
}

/** Builds page k's HTML: synthetic-page filler with the links spliced in, plus comment and script look-alikes. */
function renderPage(k: number, links: Link[], r: Random): string {
  const linkBytes = links.reduce((a, l) => a + l.href.length + 40, 0);
  const filler = generatePage(k * 7919 + 17, [], { targetSize: Math.max(4000, int(r, 10_000, 30_000) - linkBytes - 300) });
  const anchors = links.map((l) => anchor(r, l.href, `link ${l.kind}`));
  const nopes =
    `<!-- old menu: <a href="/nope/old${k % 10}.html">archive</a> -->\n` +
    `<script>var more = '<a href="/nope/js${k % 10}.html">more</a>'; if (1 < 2) { document.write(more); }</script>\n`;
  const navCount = Math.min(anchors.length, int(r, 3, 8));
  const nav = `<nav class="menu"><ul>${anchors.slice(0, navCount).map((a) => `<li>${a}</li>`).join('\n')}</ul></nav>\n`;
  const rest = anchors.slice(navCount);
  const parts = filler.split('</p>\n');
  // Inline links at paragraph ends, the remainder in a "related" list before the footer.
  const inlineSlots = Math.max(0, parts.length - 1);
  let next = 0;
  const out: string[] = [];
  for (let j = 0; j < parts.length; j++) {
    let part = parts[j]!;
    if (j === 0) part = part.replace('<body class="page">\n', `<body class="page">\n${nav}${nopes}`);
    if (j === parts.length - 1) {
      const related = rest.slice(next);
      part = part.replace('<footer>', `<section class="related"><h2>Related</h2><ul>${related.map((a) => `<li>${a}</li>`).join('\n')}</ul></section>\n<footer>`);
    }
    out.push(part);
    if (j < parts.length - 1) {
      if (next < rest.length && r() < 0.5 && inlineSlots > 0) out.push(' See ' + rest[next++]! + '.');
      out.push('</p>\n');
    }
  }
  return out.join('');
}

/** A small valid PNG-ish / PDF-ish body for the non-HTML files (content does not matter). */
function assetBody(path: string): Buffer {
  const body = Buffer.alloc(2048 + (path.length % 7) * 512, 0x41);
  if (path.endsWith('.png')) Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(body);
  if (path.endsWith('.pdf')) Buffer.from('%PDF-1.4\n').copy(body);
  return body;
}

function writeFile(root: string, path: string, data: string | Buffer): number {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, data);
  return typeof data === 'string' ? Buffer.byteLength(data) : data.length;
}

/** Generates the site into `root` (an existing, empty directory). */
export function generateSite(root: string, options: SiteOptions): Site {
  const n = Math.max(1, options.pages);
  const maxDepth = options.maxDepth ?? 6;
  const b = branchingFor(n, maxDepth);
  const origin = options.origin;
  const r = createRandom(options.seed ?? 2024);
  const outLinks: string[][] = [];
  const linkKinds: Record<string, number> = {};
  let links = 0;
  let htmlBytes = 0;
  const pagePaths: string[] = [];
  const assetsOf: string[][] = [];
  const missingOf: string[][] = [];
  for (let k = 0; k < n; k++) {
    const pr = createRandom(Math.floor(r() * 2 ** 32));
    const ls = linksOf(k, n, b, origin, pr);
    links += ls.length;
    for (const l of ls) linkKinds[l.kind] = (linkKinds[l.kind] ?? 0) + 1;
    outLinks.push(ls.filter((l) => l.target !== undefined && l.kind !== 'non-html' && l.kind !== '404').map((l) => l.target!));
    assetsOf.push(ls.filter((l) => l.kind === 'non-html').map((l) => l.target!));
    missingOf.push(ls.filter((l) => l.kind === '404').map((l) => l.target!));
    const path = pagePath(k);
    pagePaths.push(path);
    htmlBytes += writeFile(root, path, renderPage(k, ls, pr));
  }
  for (const a of ASSETS) writeFile(root, a, assetBody(a));
  writeFile(root, '/robots.txt', 'User-agent: *\nDisallow:\n');

  // The expected set: BFS over distinct URLs (a query variant has its file's links).
  const indexOfPath = new Map(pagePaths.map((p, k) => [p, k]));
  const depthOf = new Map<string, number>([['/index.html', 0]]);
  const queue = ['/index.html'];
  const expectedAssets = new Set<string>();
  const expected404 = new Set<string>();
  for (let q = 0; q < queue.length; q++) {
    const url = queue[q]!;
    const d = depthOf.get(url)!;
    if (d >= maxDepth) continue;
    const qm = url.indexOf('?');
    const k = indexOfPath.get(qm === -1 ? url : url.slice(0, qm))!;
    for (const a of assetsOf[k]!) expectedAssets.add(a);
    for (const m of missingOf[k]!) expected404.add(m);
    for (const t of outLinks[k]!) {
      if (!depthOf.has(t)) {
        depthOf.set(t, d + 1);
        queue.push(t);
      }
    }
  }
  const histogram: number[] = [];
  for (const d of depthOf.values()) histogram[d] = (histogram[d] ?? 0) + 1;
  return {
    root,
    pages: n,
    origin,
    seedUrl: origin + '/index.html',
    maxDepth,
    branching: b,
    expected: new Set(depthOf.keys()),
    expectedAssets,
    expected404,
    files: n + ASSETS.length + 1,
    htmlBytes,
    links,
    linkKinds,
    deepest: Math.max(...histogram.keys()),
    depthHistogram: Array.from(histogram, (x) => x ?? 0),
    pagePaths,
  };
}
