/**
 * Throughput of the link extractors (and of htmlparser2, for comparison) on
 * synthetic pages. Run after building: `node dist/bench/extract-bench.js
 * [seconds] [pages]`.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { HtmlLinkExtractor } from '../src/extract/html.js';
import { HrefPatternExtractor } from '../src/extract/href-pattern.js';
import type { LinkExtractor } from '../src/extract/types.js';
import { generateCorpus } from './synthetic-page.js';

/** The part of the htmlparser2 module the benchmark uses (type-only import: nothing is loaded). */
export type Htmlparser2 = typeof import('htmlparser2');

/** One benchmark row: throughput in MB/s (10^6 bytes per second) and the links found in one pass. */
export interface BenchResult {
  name: string;
  mbPerSecond: number;
  links: number;
}

/**
 * htmlparser2 as a LinkExtractor: every `<a>` start tag's href, entities
 * decoded, trimmed of ASCII whitespace like HtmlLinkExtractor does.
 */
export function htmlparser2Extractor(h: Htmlparser2): LinkExtractor {
  return {
    extract(body: Buffer) {
      const hrefs: string[] = [];
      let base: string | undefined;
      const parser = new h.Parser(
        {
          onopentag(name, attribs) {
            const href = attribs['href'];
            if (href === undefined) return;
            if (name === 'a') hrefs.push(trimAsciiWhitespace(href));
            else if (name === 'base' && base === undefined) base = trimAsciiWhitespace(href);
          },
        },
        { decodeEntities: true },
      );
      parser.end(body.toString('utf8'));
      return { hrefs, base };
    },
  };
}

/** Strips leading/trailing ASCII whitespace (TAB, LF, FF, CR, SPACE) only. */
export function trimAsciiWhitespace(s: string): string {
  return s.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
}

/** Loads htmlparser2 (a devDependency) if it is installed, without a static import. */
export async function loadHtmlparser2(): Promise<Htmlparser2 | undefined> {
  try {
    return await import('htmlparser2');
  } catch {
    return undefined;
  }
}

/** Synchronous fallback for benchExtractors: require(esm) works on Node >= 20.19. */
function requireHtmlparser2(): Htmlparser2 | undefined {
  try {
    return createRequire(import.meta.url)('htmlparser2') as Htmlparser2;
  } catch {
    return undefined;
  }
}

/**
 * One timed run's throughput: MB per second of wall time, and MB per second
 * of this process's CPU time (user + system, all threads). The second is the
 * steadier figure on a loaded machine, where wall time includes the time
 * other processes held the cores.
 */
export interface Rate {
  wall: number;
  cpu: number;
}

/** Runs `extractor` over all pages repeatedly for about `seconds` of wall time (after a warm-up). */
export function measureRate(extractor: LinkExtractor, pages: Buffer[], bytes: number, seconds: number): Rate {
  // Warm-up: let V8 optimise the hot loops before timing them.
  const warmUntil = performance.now() + Math.min(300, seconds * 250);
  while (performance.now() < warmUntil) for (const p of pages) extractor.extract(p);
  let rounds = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let elapsed = 0;
  do {
    for (const p of pages) extractor.extract(p);
    rounds++;
    elapsed = (performance.now() - start) / 1000;
  } while (elapsed < seconds);
  const cpu = process.cpuUsage(cpuStart);
  const megabytes = (rounds * bytes) / 1e6;
  return { wall: megabytes / elapsed, cpu: megabytes / ((cpu.user + cpu.system) / 1e6) };
}

/** Runs `extractor` over all pages repeatedly for about `seconds` (after a warm-up) and returns MB/s of wall time. */
export function measure(extractor: LinkExtractor, pages: Buffer[], bytes: number, seconds: number): number {
  return measureRate(extractor, pages, bytes, seconds).wall;
}

/**
 * Measures each extractor on `pages` for about `seconds` each: the HTML
 * extractor, the KeywordHunter pattern matcher and, when it can be loaded
 * (pass it in, or it is required synchronously), htmlparser2.
 */
export function benchExtractors(pages: Buffer[], seconds = 2, htmlparser2: Htmlparser2 | undefined = requireHtmlparser2()): BenchResult[] {
  const bytes = pages.reduce((a, p) => a + p.length, 0);
  const extractors: Array<[string, LinkExtractor]> = [
    ['HtmlLinkExtractor', new HtmlLinkExtractor()],
    ['HrefPatternExtractor', new HrefPatternExtractor()],
  ];
  if (htmlparser2 !== undefined) extractors.push(['htmlparser2 (Parser, decodeEntities)', htmlparser2Extractor(htmlparser2)]);
  return extractors.map(([name, extractor]) => {
    const links = pages.reduce((a, p) => a + extractor.extract(p).hrefs.length, 0);
    return { name, mbPerSecond: measure(extractor, pages, bytes, seconds), links };
  });
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 2);
  const count = Number(process.argv[3] ?? 200);
  const corpus = generateCorpus(count, 42);
  const pages = corpus.map((p) => Buffer.from(p.html, 'utf8'));
  const bytes = pages.reduce((a, p) => a + p.length, 0);
  const expected = corpus.reduce((a, p) => a + p.links.length, 0);
  console.log(`${pages.length} synthetic pages, ${(bytes / 1e6).toFixed(2)} MB (avg ${(bytes / pages.length / 1024).toFixed(1)} KiB), ${expected} real <a href> links`);
  for (const r of benchExtractors(pages, seconds, await loadHtmlparser2())) {
    console.log(`${r.name.padEnd(38)} ${r.mbPerSecond.toFixed(1).padStart(8)} MB/s   ${r.links} links`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
