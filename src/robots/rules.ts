/**
 * The robots.txt matcher: picks the groups that apply to one product token
 * (RFC 9309 §2.2.1), compiles their Allow/Disallow patterns once, and answers
 * "may this path be fetched?" with the line that decided (§2.2.2, §2.2.3).
 *
 * Choices, where the RFC leaves room or Google's matcher differs:
 *
 * - Agents. A `User-agent:` value is reduced to its product token, the leading
 *   run of `A-Z a-z 0-9 _ -` (Google's "cut at the first space" extension, which
 *   we take: `User-agent: FooBot/2.1` and `User-agent: Foo Bar` name `FooBot` and
 *   `Foo`). Our own agent is reduced the same way, so callers may pass
 *   `polite-crawler/0.1 (+https://…)`. Digits are a deliberate lenience: the
 *   RFC's token has none, but real ones do (`ee122-KeywordHunter`, which the
 *   RFC's charset, and Google, would cut to `ee`). Tokens match by
 *   case-insensitive equality, never by prefix. `*` (alone, or followed by a
 *   blank) is the global group.
 * - Priority. "The most specific match is the match that has the most octets":
 *   we count the octets of the percent-encoded pattern as written (wildcards
 *   and a final `$` included), as Google does; Allow wins a tie.
 * - Percent-encoding (§2.2.2). Patterns are encoded here; the path comes in
 *   as the request target, already encoded by the caller (HttpUrl.target), as
 *   google/robotstxt expects. Both are then normalized: `%xx` hex is
 *   upper-cased, blanks and controls (and non-ASCII characters of patterns)
 *   are UTF-8 percent-encoded, and a literal `*` or `$` in
 *   the path (and a `$` inside a pattern) becomes `%2A` / `%24`, so the
 *   encoded pattern `/a-%2A` matches the path `/a-*` (§2.2.3). We do NOT decode
 *   `%62` to `b`: octets compare equal when encoded the same way, which is what
 *   Google's matcher does and its test suite expects (the RFC's Figure 4
 *   suggests decoding unreserved octets; a site cannot rely on either).
 * - The empty path is `/` (Google's empty-URL extension, and RFC 9110 §4.2.3).
 * - Crawl-delay (a record Google ignores; we honour it): a non-negative decimal
 *   number of seconds, fractions allowed; taken from the chosen groups only;
 *   when merged groups give several, the largest (the politest) wins.
 * - Google's "index.html is its directory" extension is NOT taken: an
 *   `Allow: /d/index.html` does not allow `/d/`.
 */
import { parseRobots, type RobotsHandler } from './parse.js';

/** Why a path is or is not allowed. */
export interface RobotsDecision {
  allowed: boolean;
  /** The robots.txt line of the deciding rule; 0 when no rule matched (or the rule is synthetic, see `rule`). */
  line: number;
  /** The deciding rule as written, e.g. "Disallow: /private"; undefined when no rule matched. */
  rule: string | undefined;
}

interface CompiledRule {
  readonly allow: boolean;
  readonly line: number;
  /** "Allow: <pattern as written>" */
  readonly text: string;
  /** Octets of the normalized pattern: the longest match wins. */
  readonly priority: number;
  /** The normalized pattern split at `*` (runs of `*` collapsed). */
  readonly segments: readonly string[];
  /** The pattern ended with `$`. */
  readonly anchored: boolean;
}

/** Characters that make `normalize` do any work. */
// eslint-disable-next-line no-control-regex
const NEEDS_NORMALIZING = /[%*$\u0000-\u0020\u007f-\uffff]/;
const HEX = '0123456789ABCDEF';
const PRODUCT_TOKEN_RE = /^[A-Za-z0-9_-]*/;
const CRAWL_DELAY_RE = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The product token of a user-agent value: its leading run of letters, `_`
 * and `-` (RFC 9309 §2.2.1) and digits (our lenience), e.g. "FooBot" for
 * "FooBot/1.2 (+https://x)". Empty when the value starts with anything else.
 */
export function productToken(agent: string): string {
  return (PRODUCT_TOKEN_RE.exec(agent.trim()) as RegExpExecArray)[0];
}

/**
 * A Crawl-delay value in seconds, or undefined when it is not a plain
 * non-negative decimal number ("10", "0.5", ".5"; not "-1", "1e3", "10s").
 */
export function parseCrawlDelay(value: string): number | undefined {
  const v = value.trim();
  if (!CRAWL_DELAY_RE.test(v)) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function pct(byte: number): string {
  return '%' + HEX.charAt(byte >> 4) + HEX.charAt(byte & 15);
}

/**
 * Normalizes a path (or, with `pattern`, a pattern whose final `$` is already
 * removed) for octet comparison; see the module comment.
 */
function normalize(s: string, pattern: boolean): string {
  if (!NEEDS_NORMALIZING.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2))) {
        out += '%' + s.charAt(i + 1).toUpperCase() + s.charAt(i + 2).toUpperCase();
        i += 2;
      } else {
        out += '%'; // a stray "%" stays as it is, on both sides
      }
    } else if (c === 0x2a) {
      out += pattern ? '*' : '%2A';
    } else if (c === 0x24) {
      out += '%24';
    } else if (c <= 0x20 || c === 0x7f) {
      out += pct(c);
    } else if (c < 0x80) {
      out += s.charAt(i);
    } else if (!pattern) {
      // Paths arrive as request targets, already percent-encoded by the
      // caller (HttpUrl.target, src/url/request-target.ts), as google/robotstxt
      // expects; a raw non-ASCII char left here is compared as it is.
      out += s.charAt(i);
    } else {
      const cp = s.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      // A lone surrogate encodes as U+FFFD, as the WHATWG URL parser does.
      for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) out += pct(b);
    }
  }
  return out;
}

function compile(allow: boolean, value: string, line: number): CompiledRule | undefined {
  const text = `${allow ? 'Allow' : 'Disallow'}: ${value}`;
  const anchored = value.endsWith('$');
  const body = normalize(anchored ? value.slice(0, -1) : value, true).replace(/\*{2,}/g, '*');
  if (body === '' && !anchored) return undefined; // an empty pattern matches nothing
  return { allow, line, text, priority: body.length + (anchored ? 1 : 0), segments: body.split('*'), anchored };
}

/** True when the normalized `path` matches the rule (from its first octet). */
function matches(rule: CompiledRule, path: string): boolean {
  const segs = rule.segments;
  const first = segs[0] as string;
  if (!path.startsWith(first)) return false;
  const last = segs.length - 1;
  if (last === 0) return !rule.anchored || path.length === first.length;
  let pos = first.length;
  // Leftmost placement of each middle segment leaves the most room for the rest.
  for (let i = 1; i < last; i++) {
    const seg = segs[i] as string;
    const at = path.indexOf(seg, pos);
    if (at === -1) return false;
    pos = at + seg.length;
  }
  const tail = segs[last] as string;
  if (rule.anchored) return path.length - tail.length >= pos && path.endsWith(tail);
  return tail === '' || path.indexOf(tail, pos) !== -1;
}

/** Longest first; Allow before Disallow on a tie; then file order. */
function byPriority(a: CompiledRule, b: CompiledRule): number {
  return b.priority - a.priority || Number(b.allow) - Number(a.allow) || a.line - b.line;
}

/** Collects the groups that apply to one product token, from parser events. */
class GroupCollector implements RobotsHandler {
  readonly specific: CompiledRule[] = [];
  readonly global: CompiledRule[] = [];
  readonly specificDelays: number[] = [];
  readonly globalDelays: number[] = [];
  /** A Set, not an array: a hostile robots.txt of 500 KiB holds some 30,000 Sitemap lines, and de-duplicating them by array search took seconds. */
  readonly sitemaps = new Set<string>();
  sawSpecific = false;
  sawGlobal = false;
  /** True while consecutive user-agent lines are building one group's header. */
  private inAgentLines = false;
  private groupSpecific = false;
  private groupGlobal = false;

  constructor(private readonly token: string) {}

  onUserAgent(value: string): void {
    if (!this.inAgentLines) {
      // A user-agent line after a rule (or the first one) starts a new group.
      this.inAgentLines = true;
      this.groupSpecific = false;
      this.groupGlobal = false;
    }
    if (value.charAt(0) === '*' && (value.length === 1 || /\s/.test(value.charAt(1)))) {
      this.groupGlobal = this.sawGlobal = true;
    } else if (this.token !== '' && productToken(value).toLowerCase() === this.token) {
      this.groupSpecific = this.sawSpecific = true;
    }
  }

  onAllow(value: string, line: number): void {
    this.rule(true, value, line);
  }

  onDisallow(value: string, line: number): void {
    this.rule(false, value, line);
  }

  onCrawlDelay(value: string): void {
    // Other records do not end a group's user-agent lines (§2.2.4).
    const delay = parseCrawlDelay(value);
    if (delay === undefined) return;
    if (this.groupSpecific) this.specificDelays.push(delay);
    if (this.groupGlobal) this.globalDelays.push(delay);
  }

  onSitemap(value: string): void {
    if (value !== '') this.sitemaps.add(value);
  }

  private rule(allow: boolean, value: string, line: number): void {
    this.inAgentLines = false;
    // Rules outside any group, or in groups for other agents, are ignored.
    if (!this.groupSpecific && !this.groupGlobal) return;
    const rule = compile(allow, value, line);
    if (rule === undefined) return;
    if (this.groupSpecific) this.specific.push(rule);
    if (this.groupGlobal) this.global.push(rule);
  }
}

function maxOf(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : Math.max(...values);
}

/** Where a host's rules came from: a robots.txt file, or its absence read as allow all or disallow all. */
export type RobotsSource = 'file' | 'allow-all' | 'disallow-all';

/** The rules one robots.txt gives one crawler. Immutable. */
export class RobotsRules {
  /** Seconds between requests asked by the chosen group (fractions allowed); undefined when absent or invalid. */
  readonly crawlDelay: number | undefined;
  /** The User-agent of the group applied: our product token, `*`, or '' when none applies (for the crawl report). */
  readonly group: string;
  readonly source: RobotsSource;
  /**
   * Every Sitemap URL in the file (whatever the group), as written, in file
   * order, duplicates removed; empty for allowAll and disallowAll. What a
   * crawl reads with --sitemaps (src/sitemap/sitemap-sources.ts).
   */
  readonly sitemaps: readonly string[];
  /** For rules that are no file's (allow-all, disallow-all): the robots.txt answer's status that made them, 0 when none arrived; undefined when not known. */
  readonly status: number | undefined;
  readonly #rules: readonly CompiledRule[];

  /** `crawlDelay` in ms: the host's own least interval, for politeness (which takes the larger of it and --delay). */
  get crawlDelayMs(): number | undefined {
    return this.crawlDelay === undefined ? undefined : this.crawlDelay * 1000;
  }

  private constructor(rules: readonly CompiledRule[], crawlDelay: number | undefined, sitemaps: Iterable<string>, group = '', source: RobotsSource = 'file', status?: number) {
    this.#rules = rules;
    this.crawlDelay = crawlDelay;
    this.group = group;
    this.source = source;
    this.sitemaps = Object.freeze([...sitemaps]);
    this.status = status;
  }

  /**
   * Parses a robots.txt body for `userAgent` (a product token, or a
   * User-Agent that starts with one). The groups naming that token are merged;
   * when none does, the `*` groups apply; when there are none, nothing is disallowed.
   */
  static parse(body: string, userAgent: string): RobotsRules {
    const token = productToken(userAgent);
    const collector = new GroupCollector(token.toLowerCase());
    parseRobots(body, collector);
    const specific = collector.sawSpecific;
    const rules = specific ? collector.specific : collector.sawGlobal ? collector.global : [];
    const delay = maxOf(specific ? collector.specificDelays : collector.globalDelays);
    return new RobotsRules(rules.sort(byPriority), delay, collector.sitemaps, specific ? token : collector.sawGlobal ? '*' : '');
  }

  /** Rules that allow everything (e.g. robots.txt answered 404: `status`, when known). */
  static allowAll(status?: number): RobotsRules {
    return new RobotsRules([], undefined, [], '', 'allow-all', status);
  }

  /**
   * Rules that disallow everything but /robots.txt (e.g. robots.txt
   * unreachable). Their decisions name the synthetic rule "Disallow: /" on line 0.
   */
  static disallowAll(status?: number): RobotsRules {
    const rule = compile(false, '/', 0) as CompiledRule;
    return new RobotsRules([rule], undefined, [], '', 'disallow-all', status);
  }

  /** The same rules with `crawlDelay` capped at `maxSeconds` (this object when already within it). */
  withMaxCrawlDelay(maxSeconds: number): RobotsRules {
    if (this.crawlDelay === undefined || this.crawlDelay <= maxSeconds) return this;
    return new RobotsRules(this.#rules, maxSeconds, this.sitemaps, this.group, this.source, this.status);
  }

  /** How many Allow and Disallow rules apply. */
  get ruleCount(): number {
    return this.#rules.length;
  }

  /**
   * Decides one request. `pathAndQuery` is the request target as it goes on
   * the wire: path plus `?query`, percent-encoded (RFC 9309 §2.2.2 encodes
   * both sides before comparison; patterns are encoded here, the target by
   * the caller: HttpUrl.target). A `#fragment` is ignored.
   */
  check(pathAndQuery: string): RobotsDecision {
    const path = normalizePath(pathAndQuery);
    if (path === '/robots.txt') return { allowed: true, line: 0, rule: undefined }; // §2.2.2: "implicitly allowed"
    for (const rule of this.#rules) {
      if (matches(rule, path)) return { allowed: rule.allow, line: rule.line, rule: rule.text };
    }
    return { allowed: true, line: 0, rule: undefined };
  }

  /** `check(pathAndQuery).allowed`. */
  isAllowed(pathAndQuery: string): boolean {
    return this.check(pathAndQuery).allowed;
  }
}

function normalizePath(pathAndQuery: string): string {
  let p = pathAndQuery;
  const hash = p.indexOf('#');
  if (hash !== -1) p = p.slice(0, hash);
  if (p.charAt(0) !== '/') p = '/' + p;
  return normalize(p, false);
}
