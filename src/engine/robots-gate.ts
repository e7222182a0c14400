/**
 * The robots.txt gate every mode passes a URL through: one cache of each
 * host's rules, each host's Crawl-delay handed to politeness when its rules
 * are learnt, and the check itself, made on the request target as sent
 * (RFC 9309 §2.2.2: matched percent-encoded). A private crawl loads a host's
 * rules when a URL of it is first met; a worker of a shared crawl learns them
 * from the host's row in the store.
 */
import type { Politeness } from '../frontier/politeness.js';
import type { RobotsRules } from '../robots/rules.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CrawlEventSink } from './events.js';

export interface RobotsGateOptions {
  politeness: Politeness;
  /** Fetches an origin's rules (once each: the loader shares concurrent calls); absent: rules are only learnt. */
  load?: (origin: string) => Promise<RobotsRules>;
  /** False with --ignore-robots: every URL passes. */
  enabled?: boolean;
  /** Told each host's rules as they are learnt (a `robots` event). */
  onEvent?: CrawlEventSink;
}

export class RobotsGate {
  private readonly known = new Map<string, RobotsRules>();
  private readonly enabled: boolean;

  constructor(private readonly o: RobotsGateOptions) {
    this.enabled = o.enabled ?? true;
  }

  /** Whether robots.txt allows `url`, or undefined when its host's rules are not known yet. */
  allowsNow(url: HttpUrl): boolean | undefined {
    if (!this.enabled) return true;
    const rules = this.known.get(url.origin);
    return rules === undefined ? undefined : rules.isAllowed(url.target);
  }

  /** Whether robots.txt allows `url`, loading its host's rules first when they are not known (allowed when there is no loader). */
  async allows(url: HttpUrl): Promise<boolean> {
    const now = this.allowsNow(url);
    if (now !== undefined) return now;
    if (this.o.load === undefined) return true;
    const rules = await this.o.load(url.origin);
    this.learn(url.origin, rules);
    return rules.isAllowed(url.target);
  }

  /**
   * Learns the rules of every origin of `origins` not known yet: fetched all
   * at once, at most `limit` at a time (each host's own politeness still
   * applies), then learnt in the order given, so that what is told of them
   * does not depend on which answer came first. `loaded`, when given, hears
   * each origin's rules before they are learnt and told (its Crawl-delay
   * already handed to politeness): a private crawl fetches ahead the page's
   * links to that host meanwhile. It hears them once every robots.txt has
   * been asked, then as they arrive: the robots.txt files come first, for
   * each gates its host's every page (2,000 hosts at 256 at a time on a
   * busy machine: pages fetched ahead from the first answer on made the last
   * robots.txt, and the crawl's end, later). Rejects as the loader does (a
   * shared crawl's loader when a stop came).
   */
  async learnAll(origins: Iterable<string>, limit: number, loaded?: (origin: string, rules: RobotsRules) => void): Promise<void> {
    const load = this.o.load;
    if (!this.enabled || load === undefined) return;
    const wanted = [...new Set(origins)].filter((o) => !this.known.has(o));
    if (wanted.length === 0) return;
    const rules = new Map<string, RobotsRules>();
    let next = 0;
    // Rules come before every robots.txt is asked: held until then (see above).
    let held: string[] | undefined = [];
    const hear = (origin: string): void => {
      const got = rules.get(origin) as RobotsRules;
      if (loaded === undefined || this.known.has(origin)) return;
      this.pace(origin, got);
      loaded(origin, got);
    };
    const worker = async (): Promise<void> => {
      while (next < wanted.length) {
        const origin = wanted[next++] as string;
        const loading = load(origin);
        if (next === wanted.length && held !== undefined) {
          const early = held;
          held = undefined;
          for (const o of early) hear(o);
        }
        rules.set(origin, await loading);
        if (held !== undefined) held.push(origin);
        else hear(origin);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, wanted.length)) }, worker));
    for (const origin of wanted) if (!this.known.has(origin)) this.learn(origin, rules.get(origin) as RobotsRules);
  }

  /** The rules of `origin`, or undefined when not known. */
  rulesOf(origin: string): RobotsRules | undefined {
    return this.known.get(origin);
  }

  /**
   * Remembers an origin's rules. Its Crawl-delay goes to politeness, unless
   * `delayMs` says what the host's interval is (a shared store's host row,
   * where the Crawl-delay is already in it).
   */
  learn(origin: string, rules: RobotsRules, delayMs?: number): void {
    this.known.set(origin, rules);
    this.o.onEvent?.({ type: 'robots', origin, source: rules.source, group: rules.group, rules: rules.ruleCount, crawlDelay: rules.crawlDelay, ...(rules.status === undefined ? {} : { status: rules.status }) });
    this.pace(origin, rules, delayMs);
  }

  /** Hands the host's own interval to politeness: `delayMs` when given, else the rules' Crawl-delay (if any). */
  private pace(origin: string, rules: RobotsRules, delayMs?: number): void {
    const ms = delayMs ?? rules.crawlDelayMs;
    if (ms !== undefined) this.o.politeness.setHostDelay(origin, ms);
  }
}
