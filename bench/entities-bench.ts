/**
 * Character references in attribute values: this build's HtmlLinkExtractor
 * against another build's (say, one with another entity decoder), same
 * answers and MB/s. Run after building:
 *
 *   node dist/bench/entities-bench.js [seconds] [rounds] [OTHER/src/extract/html.js]
 *
 * To compare with an earlier commit, build that commit's tree into a
 * directory of its own (`npx tsc -p tsconfig.json --outDir dist-before`,
 * inside this checkout so that node_modules resolves) and pass its html.js.
 * Without it, only this build is measured.
 *
 * Two corpora: the synthetic pages of synthetic-page.ts (few references, as
 * on the web) and entity-heavy pages whose hrefs are mostly references,
 * edge cases included. Before timing, both builds extract a large set of
 * generated entity-heavy hrefs and every answer is compared. Rounds
 * alternate the builds (the order flips each round) and medians are
 * reported, because a loaded machine makes single timings unreliable; so
 * is MB per CPU second, which the other processes on the machine sway less.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HtmlLinkExtractor } from '../src/extract/html.js';
import type { LinkExtractor } from '../src/extract/types.js';
import { measureRate, type Rate } from './extract-bench.js';
import { createRandom, generateCorpus } from './synthetic-page.js';

type Random = () => number;
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Named references with `;`: ASCII, Latin-1, astral, two-code-unit results, the longest name, case variants. */
const NAMES = [
  'amp', 'AMP', 'lt', 'LT', 'gt', 'quot', 'QUOT', 'apos', 'nbsp', 'copy', 'COPY', 'reg', 'eacute', 'Eacute', 'szlig',
  'hellip', 'mdash', 'euro', 'trade', 'rarr', 'notin', 'not', 'sol', 'num', 'quest', 'equals', 'period', 'Afr',
  'NotEqualTilde', 'CounterClockwiseContourIntegral', 'acE', 'bne', 'ThickSpace', 'fjlig', 'Tab', 'NewLine', 'zwj',
  'frac12', 'sup1', 'supe', 'sup', 'Amp', 'aMp', 'ampx', 'bogus', 'notit', 'x', 'A',
];
/** Legacy names (they also match without `;`) and prefixes and extensions of them. */
const LEGACY = ['amp', 'AMP', 'lt', 'gt', 'quot', 'copy', 'not', 'nbsp', 'reg', 'eacute', 'frac12', 'frac34', 'sup1', 'sup2', 'yuml', 'brvbar', 'curren', 'times', 'micro', 'shy', 'ETH', 'THORN'];
const PREFIXES = ['am', 'no', 'noti', 'notin', 'nbs', 'cop', 'copyx', 'frac1', 'frac123', 'supx', 'ampamp', 'ltgt', 'lte', 'eacut', 'brvba', 'timesb', 'timesbar'];
/** What may follow a reference written without `;`: the attribute rule decodes only before a non-alphanumeric other than `=`. */
const AFTER = ['', '=', 'a', 'Z', '0', '9', '/', '.', '-', '?', '&', ';', '#', ' ', '=x', '_', '\u00e9'];
/** Code points for numeric references: NUL, C1 (all of 0x80-0x9F), surrogates, the Unicode limit, noncharacters, controls, CR. */
const CODE_POINTS = [
  0, 9, 10, 13, 32, 38, 47, 61, 65, 0x7f, 0xa0, 0xe9, 0x20ac, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfdd0, 0xfffe,
  0xffff, 0x10000, 0x1f600, 0x10fffe, 0x10ffff, 0x110000, 0x7fffffff, 0xffffffff,
  ...Array.from({ length: 32 }, (_, k) => 0x80 + k),
];
const LITERAL = ['/', 'a', 'path', '?q=1', '=', '#frag', ' ', '\t', '\r\n', '\r', '\0', 'caf\u00e9', '\u65e5\u672c', '\u{1f680}', "'", '<', '>', '&', '&;', '&#', '&#x', '&#;', '&#x;', '&#xg', '&#-1;', '&# 1;'];

/** One numeric reference to `cp` (or beyond, with absurdly many digits), in a random spelling. */
function numericRef(r: Random, cp: number): string {
  const zeros = r() < 0.2 ? '0'.repeat(1 + Math.floor(r() * 30)) : '';
  const semi = r() < 0.7 ? ';' : pick(r, AFTER);
  if (r() < 0.03) return `&#${'9'.repeat(20 + Math.floor(r() * 200))}${semi}`; // overflow far past U+10FFFF
  if (r() < 0.5) return `&#${zeros}${cp}${semi}`;
  const hex = r() < 0.5 ? cp.toString(16) : cp.toString(16).toUpperCase();
  return `&#${r() < 0.5 ? 'x' : 'X'}${zeros}${hex}${semi}`;
}

/**
 * An href made mostly of character references: named ones with and without
 * `;`, legacy names before each kind of following character, unknown and
 * truncated names, numeric references to every awkward code point, and
 * literal text, raw CR and NUL among it. It never holds a raw `"`, so it
 * fits a double-quoted attribute value.
 */
export function entityHeavyHref(r: Random): string {
  let out = '';
  for (let k = 1 + Math.floor(r() * 12); k > 0; k--) {
    const x = r();
    if (x < 0.25) out += `&${pick(r, NAMES)};`;
    else if (x < 0.45) out += `&${pick(r, LEGACY)}${pick(r, AFTER)}`;
    else if (x < 0.55) out += `&${pick(r, PREFIXES)}${pick(r, AFTER)}`;
    else if (x < 0.8) out += numericRef(r, r() < 0.8 ? pick(r, CODE_POINTS) : Math.floor(r() * 0x110000));
    else out += pick(r, LITERAL);
  }
  return out;
}

/** `count` pages of `perPage` `<a href="...">` links each, the hrefs from entityHeavyHref. */
export function entityHeavyPages(count: number, perPage: number, seed: number): Buffer[] {
  const r = createRandom(seed);
  const pages: Buffer[] = [];
  for (let p = 0; p < count; p++) {
    const parts = ['<!doctype html><html><body><p>'];
    for (let k = 0; k < perPage; k++) parts.push(`<a class="l" href="${entityHeavyHref(r)}">link ${k}</a> text &amp; more\n`);
    parts.push('</p></body></html>\n');
    pages.push(Buffer.from(parts.join(''), 'utf8'));
  }
  return pages;
}

/** Compares two extractors on `pages`, link by link; returns the links compared and the first differences. */
export function differences(a: LinkExtractor, b: LinkExtractor, pages: Buffer[], most = 10): { links: number; diffs: string[] } {
  let links = 0;
  const diffs: string[] = [];
  for (const page of pages) {
    const x = a.extract(page);
    const y = b.extract(page);
    links += x.hrefs.length;
    if (x.base !== y.base && diffs.length < most) diffs.push(`base ${JSON.stringify(x.base)} vs ${JSON.stringify(y.base)}`);
    const n = Math.max(x.hrefs.length, y.hrefs.length);
    for (let k = 0; k < n && diffs.length < most; k++) {
      if (x.hrefs[k] !== y.hrefs[k]) diffs.push(`${JSON.stringify(x.hrefs[k])} vs ${JSON.stringify(y.hrefs[k])}`);
    }
  }
  return { links, diffs };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 1);
  const rounds = Number(process.argv[3] ?? 5);
  const otherPath = process.argv[4];
  const builds: Array<[string, LinkExtractor]> = [['this build', new HtmlLinkExtractor()]];
  if (otherPath !== undefined) {
    const other = (await import(pathToFileURL(resolve(otherPath)).href)) as { HtmlLinkExtractor: new () => LinkExtractor };
    builds.push([`other (${otherPath})`, new other.HtmlLinkExtractor()]);
  }
  const corpora: Array<[string, Buffer[]]> = [
    ['synthetic pages', generateCorpus(200, 42).map((p) => Buffer.from(p.html, 'utf8'))],
    ['entity-heavy hrefs', entityHeavyPages(100, 200, 7)],
  ];
  if (builds.length === 2) {
    const check = [...entityHeavyPages(1000, 200, 11), ...corpora.flatMap(([, pages]) => pages)];
    const { links, diffs } = differences(builds[0]![1], builds[1]![1], check);
    console.log(`answers: ${links} links compared, ${diffs.length === 0 ? 'all identical' : 'DIFFERENCES:'}`);
    for (const d of diffs) console.log(`  ${d}`);
  }
  for (const [corpus, pages] of corpora) {
    const bytes = pages.reduce((a, p) => a + p.length, 0);
    const rates = builds.map((): Rate[] => []);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds.map((_, k) => k) : builds.map((_, k) => builds.length - 1 - k);
      for (const k of order) rates[k]!.push(measureRate(builds[k]![1], pages, bytes, seconds));
    }
    console.log(`${corpus}: ${pages.length} pages, ${(bytes / 1e6).toFixed(2)} MB, ${rounds} rounds of ${seconds} s`);
    const medians = rates.map((rs) => ({ wall: median(rs.map((x) => x.wall)), cpu: median(rs.map((x) => x.cpu)) }));
    builds.forEach(([name], k) => {
      const m = medians[k]!;
      const row = rates[k]!.map((x) => x.wall.toFixed(0)).join(' ');
      console.log(`  ${name.padEnd(40)} median ${m.wall.toFixed(1).padStart(7)} MB/s, ${m.cpu.toFixed(1).padStart(7)} MB per CPU s   (wall: ${row})`);
    });
    if (builds.length === 2) {
      const a = medians[0]!;
      const b = medians[1]!;
      console.log(`  this / other: ${(a.wall / b.wall).toFixed(3)} wall, ${(a.cpu / b.cpu).toFixed(3)} CPU`);
    }
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
