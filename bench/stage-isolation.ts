/**
 * Each stage of a page on its own (stages.ts): one pass runs one stage over
 * every request of the crawl (stage-sequence.ts), in the crawl's order, with
 * the project's own modules called as the page path calls them; a pass is
 * timed with process.cpuUsage (user + system, every thread of this process:
 * V8's helper threads' garbage collection included). Passes that need a
 * fresh state (the frontier's database, the page directory) get it before
 * the clock starts and lose it after it stops.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fanOut } from '../src/engine/event-fanout.js';
import type { CrawlEvent } from '../src/engine/events.js';
import { PageScan } from '../src/engine/page-scan.js';
import { tellScanned, tellSettled } from '../src/engine/visit-events.js';
import type { VisitDone } from '../src/engine/visit-types.js';
import type { ClaimEntry } from '../src/frontier/claim-store.js';
import { SqliteFrontier } from '../src/frontier/private-sqlite.js';
import { savedPage } from '../src/engine/earlier-pages.js';
import { buildRequest } from '../src/http/request.js';
import { CrawlLog, type LogMode } from '../src/output/cs50-log.js';
import { Progress } from '../src/output/progress.js';
import type { CliIo } from '../src/program-io.js';
import { SeedPanic } from '../src/programs/seed-panic.js';
import { tseEventLog } from '../src/programs/tse-log.js';
import { CRAWLER_USER_AGENT } from '../src/programs/tse-settings.js';
import { TsePageDirectory } from '../src/sink/tse-pagedir.js';
import { pageLinks } from '../src/engine/page-links.js';
import type { HttpUrl } from '../src/url/http-url.js';
import { parseAnswer, type CrawlParts, type Step } from './stage-sequence.js';

/** A stage: what one pass does, and what it needs before and after (untimed). */
export interface Stage {
  key: string;
  label: string;
  /** Makes the pass's state (a fresh database, an empty directory). */
  setup?: () => void;
  pass: () => void | Promise<void>;
  teardown?: () => void;
}

/** A stage's passes: CPU microseconds per page saved, each pass, and the load average when it ran. */
export interface StageTiming {
  key: string;
  label: string;
  passesUs: number[];
  medianUs: number;
  load: number[];
}

/**
 * The page files' bound here: writes are timed as the crawl's are
 * (--write-thread auto), but a burst of load on the machine never moves them
 * to the thread, which a crawl on a quiet tmpfs never starts.
 */
const NEVER_US = 1e9;

const quietIo = (): CliIo => ({
  stdout: () => undefined,
  stdoutRoom: () => undefined,
  stderr: () => undefined,
  status: () => undefined,
  stderrIsTTY: false,
  stdoutIsTTY: false,
  signal: new AbortController().signal,
});

/** The events sink of a `crawler` run (tse-crawl.ts): the log (quiet, or CS50 lines formatted and dropped), then the page-saved listener. */
function eventSink(parts: CrawlParts, mode: LogMode, saved: () => number): (e: CrawlEvent) => void {
  const io = quietIo();
  const log = new CrawlLog(io, mode);
  const progress = new Progress(io);
  const pageSaved = (e: CrawlEvent): void => {
    if (e.type !== 'saved') return;
    log.flush();
    progress.update(() => `crawler: ${saved()} pages saved, depth ${e.depth}`);
  };
  const leftOut = (url: HttpUrl): ReturnType<CrawlParts['scope']['leftOut']> => parts.scope.leftOut(url);
  return fanOut(tseEventLog({ io, log, seedPanic: new SeedPanic(parts.seed), nothingSaved: () => saved() === 0, delayMs: 0, leftOut }), [pageSaved]);
}

/** What a page's visit tells, as page-path.ts builds it and loop.ts tells it (response, then the settled page, then its scan). */
function tellPage(onEvent: (e: CrawlEvent) => void, step: Step, reason: string | undefined): void {
  const { url, entry, response } = step;
  const depth = entry.depth;
  onEvent({ type: 'response', url, depth, status: response.status, notes: response.notes });
  let scan: PageScan<ClaimEntry> | undefined;
  const data = step.scan;
  if (data !== undefined) {
    scan = new PageScan<ClaimEntry>(url, depth);
    for (let i = 0; i < data.links.length; i++) {
      const { raw, url: u, error } = data.links[i]!;
      if (u === undefined) scan.push({ type: 'link', depth, raw, url: undefined, action: 'invalid', error }, undefined);
      else scan.push({ type: 'link', depth, raw, url: u, action: data.actions[i] as 'follow' }, { key: u.key, url: u.href, depth: depth + 1, origin: u.origin });
    }
  }
  const visit: VisitDone =
    step.id === undefined
      ? { end: 'done', links: [], page: undefined, stop: false, answered: true, pending: { events: [{ type: 'failed', url: url.key, depth, reason: reason ?? '' }] } }
      : { end: 'done', links: scan?.links ?? [], page: undefined, url, saved: step.saved, stop: false, answered: true, pending: { kept: { url, depth, match: undefined, refresh: undefined }, events: [], scan } };
  tellSettled(onEvent, visit, step.id);
  tellScanned(onEvent, visit, data?.added ?? []);
}

/** The stages, over `steps`; state goes under `scratch` (a tmpfs directory, as the bench's tmpfs crawl). */
export function stages(steps: readonly Step[], parts: CrawlParts, scratch: string): Stage[] {
  const { seed, policy, robots, extractor } = parts;
  const reasonOf = (v: ReturnType<typeof policy.verdict>): string | undefined => (v.keep ? undefined : v.reason);
  const reasons = steps.map((s) => reasonOf(policy.verdict({ entry: s.entry, url: s.url, depth: s.entry.depth, response: s.response })));
  let sink = 0;
  let run = 0;
  const fresh = (name: string): string => {
    const dir = join(scratch, `${name}-${++run}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  let frontierDir = '';
  let pageDir = '';
  let frontier: SqliteFrontier | undefined;
  /** A new crawl's state, its seed queued: opening the database is the crawl's start, not its pages. */
  const newFrontier = (): void => {
    frontierDir = fresh('frontier');
    frontier = new SqliteFrontier(frontierDir, { seed: seed.key, moreSeeds: [], maxDepth: 6, resume: false, ownedThrough: 0, commitGate: () => true });
    frontier.add({ key: seed.key, url: seed.href, depth: 0 });
  };
  /** The frontier's part of a page: isSeen of each link in scope (the classifier), take, complete with the links (group commit). */
  const frontierPage = (f: SqliteFrontier, step: Step): void => {
    const data = step.scan;
    if (data !== undefined) for (let i = 0; i < data.links.length; i++) if (data.inScope[i] === true && f.isSeen((data.links[i]!.url as HttpUrl).key)) sink++;
    const entry = f.take();
    if (entry === undefined || entry.key !== step.entry.key) throw new Error(`frontier order: ${entry?.key} for ${step.entry.key}`);
    f.complete(entry, { links: data?.queue ?? [], documentId: step.id, saved: step.saved });
  };
  const writePage = async (dir: TsePageDirectory, step: Step): Promise<void> => {
    const staged = await dir.stage({ url: step.url, depth: step.entry.depth, body: step.body });
    await staged.publish(step.id as number);
  };
  const cleanDir = (): void => rmSync(pageDir, { recursive: true, force: true });
  /** Every saved page written into a new page directory by `write`, as the crawl's sink on tmpfs (its writes timed, the thread never started). */
  const pageFileStage = (key: string, label: string, write: (dir: TsePageDirectory, step: Step) => Promise<void> | void): Stage => ({
    key,
    label,
    setup: () => {
      pageDir = fresh('pages');
    },
    pass: async () => {
      const dir = new TsePageDirectory(pageDir, { firstId: 1, threadWhenOverUs: NEVER_US });
      for (const s of steps) if (s.id !== undefined) await write(dir, s);
    },
    teardown: cleanDir,
  });
  const eventsPass = (mode: LogMode) => (): void => {
    let saved = 0;
    const onEvent = eventSink(parts, mode, () => saved);
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (step.id !== undefined) saved = step.id;
      tellPage(onEvent, step, reasons[i]);
    }
  };
  return [
    {
      key: 'request',
      label: 'request bytes (http/request.ts)',
      pass: () => {
        for (const s of steps) sink += buildRequest({ url: s.url, userAgent: CRAWLER_USER_AGENT, keepAlive: true, compressed: false }).length;
      },
    },
    {
      key: 'parse',
      label: 'parse the answer: status, headers, body (http/response-parser.ts)',
      pass: () => {
        for (const s of steps) sink += parseAnswer(s.raw, s.url).body.length;
      },
    },
    {
      key: 'verdict',
      label: 'verdict and the saved page\'s record (programs/tse.ts, engine/earlier-pages.ts)',
      pass: () => {
        for (const s of steps) {
          const v = policy.verdict({ entry: s.entry, url: s.url, depth: s.entry.depth, response: s.response });
          if (v.keep) sink += savedPage(s.url, s.response, undefined, undefined).wireBytes ?? 0;
        }
      },
    },
    {
      key: 'take-url',
      label: 'the taken entry\'s URL parsed (lookahead.ts resolve)',
      pass: () => {
        for (const s of steps) sink += policy.resolveLink(s.entry.url, seed).key.length;
      },
    },
    {
      key: 'extract',
      label: 'find the links (extract/html.ts HtmlLinkExtractor)',
      pass: () => {
        for (const s of steps) if (s.scan !== undefined) sink += extractor.extract(s.response.body).hrefs.length;
      },
    },
    {
      key: 'resolve',
      label: 'resolve and normalise each link, its key (url/http-url.ts, uri.ts)',
      pass: () => {
        for (const s of steps) if (s.scan !== undefined) for (const l of pageLinks(s.scan.found, s.url, policy.resolveLink)) sink += l.url === undefined ? 0 : l.url.key.length;
      },
    },
    {
      key: 'classify',
      label: 'scope, non-HTML extension, robots.txt of each link',
      pass: () => {
        for (const s of steps) {
          const d = s.scan;
          if (d === undefined) continue;
          for (let i = 0; i < d.links.length; i++) {
            const u = d.links[i]!.url;
            if (u !== undefined && policy.inScope(u) && d.seen[i] !== true && robots.allowsNow(u) === true) sink++;
          }
        }
      },
    },
    {
      key: 'frontier',
      label: 'seen set and queue: isSeen, take, complete, group commit (frontier/private-sqlite.ts)',
      setup: newFrontier,
      pass: () => {
        const f = frontier as SqliteFrontier;
        for (const s of steps) frontierPage(f, s);
        f.close(); // its last group commit
      },
      teardown: () => rmSync(frontierDir, { recursive: true, force: true }),
    },
    pageFileStage('page-file', 'the page file: stage, publish (sink/tse-pagedir.ts, atomic-file.ts) on tmpfs', writePage),
    pageFileStage('page-file-ahead', 'the page file written ahead of its turn: stageEarly, publish (rename)', (dir, s) => dir.stageEarly({ url: s.url, depth: s.entry.depth, body: s.body }).publish(s.id as number)),
    { key: 'events', label: 'the events and their consumers in a -q crawl (log quiet, page-saved listener, scan bookkeeping)', pass: eventsPass('quiet') },
    { key: 'events-cs50', label: '(not in -q) the same with the CS50 log lines formatted (not written)', pass: eventsPass('cs50') },
    {
      key: 'together',
      label: 'all of the above that a -q crawl does, page by page (request to events)',
      setup: () => {
        newFrontier();
        pageDir = fresh('pages');
      },
      pass: async () => {
        const f = frontier as SqliteFrontier;
        const dir = new TsePageDirectory(pageDir, { firstId: 1, threadWhenOverUs: NEVER_US });
        let saved = 0;
        const onEvent = eventSink(parts, 'quiet', () => saved);
        for (const s of steps) {
          const url = policy.resolveLink(s.entry.url, seed);
          sink += buildRequest({ url, userAgent: CRAWLER_USER_AGENT, keepAlive: true, compressed: false }).length;
          const response = parseAnswer(s.raw, url);
          const v = policy.verdict({ entry: s.entry, url, depth: s.entry.depth, response });
          if (v.keep) {
            const staged = await dir.stage({ url, depth: s.entry.depth, body: response.body });
            if (s.scan !== undefined) {
              for (const l of pageLinks(extractor.extract(response.body), url, policy.resolveLink)) {
                if (l.url !== undefined && policy.inScope(l.url) && !f.isSeen(l.url.key)) sink += robots.allowsNow(l.url) === true ? 1 : 0;
              }
            }
            await staged.publish(s.id as number);
            saved = s.id as number;
            sink += savedPage(url, response, undefined, undefined).wireBytes ?? 0;
          }
          const entry = f.take();
          f.complete(entry!, { links: s.scan?.queue ?? [], documentId: s.id, saved: s.saved });
          tellPage(onEvent, s, reasonOf(v));
        }
        f.close();
      },
      teardown: () => {
        rmSync(frontierDir, { recursive: true, force: true });
        cleanDir();
      },
    },
  ];
}

/**
 * Times each stage: `warmup` passes, then `passes` timed ones, stage after
 * stage in rounds (stage 1, 2, ... then again), so that a burst of load
 * touches every stage alike; `quiet()` is awaited before each timed pass.
 * Per page: CPU over the pages saved.
 */
export async function timeStages(list: readonly Stage[], pages: number, o: { warmup: number; passes: number; quiet: () => Promise<number>; log: (line: string) => void }): Promise<StageTiming[]> {
  const out: StageTiming[] = list.map((s) => ({ key: s.key, label: s.label, passesUs: [], medianUs: NaN, load: [] }));
  const once = async (s: Stage): Promise<number> => {
    s.setup?.();
    const t0 = process.cpuUsage();
    await s.pass();
    const t = process.cpuUsage(t0);
    s.teardown?.();
    return (t.user + t.system) / pages;
  };
  for (const s of list) {
    for (let w = 0; w < o.warmup; w++) {
      await o.quiet();
      await once(s);
    }
  }
  for (let p = 0; p < o.passes; p++) {
    for (let k = 0; k < list.length; k++) {
      const load = await o.quiet();
      const us = await once(list[k]!);
      out[k]!.passesUs.push(us);
      out[k]!.load.push(load);
    }
    o.log(`  pass ${p + 1}: ${out.map((t) => `${t.key} ${t.passesUs[p]!.toFixed(1)}`).join(', ')}`);
  }
  for (const t of out) t.medianUs = [...t.passesUs].sort((a, b) => a - b)[t.passesUs.length >> 1]!;
  return out;
}
