/**
 * KeywordHunter's run: builds the search from checked settings (every
 * program's run parts, run-parts.ts, with the spec's link resolution;
 * robots.txt with failures meaning "allow all", the protocol on stdout, the
 * crawl over a memory frontier) around its page policy (keyword-policy.ts),
 * and runs it to the first page holding the keyword or the end of depth 5.
 */
import { tmpdir } from 'node:os';
import { FileBodySpill } from '../sink/body-spill.js';
import { Crawl } from '../engine/crawl.js';
import { REDIRECT_STATUSES } from '../engine/redirects.js';
import { fanOut } from '../engine/event-fanout.js';
import type { CrawlEvent } from '../engine/events.js';
import { HrefPatternExtractor } from '../extract/href-pattern.js';
import { MemoryFrontier } from '../frontier/private-memory.js';
import { KhProtocol } from '../output/kh-protocol.js';
import { requisitesLine } from '../output/requisites-line.js';
import { KEYWORD_HUNTER_FAILURE_POLICY, RobotsPolicy } from '../robots/policy.js';
import { OutputDirSink, prepareOutputDir } from '../sink/output-dir.js';
import { NO_PAGE_SINK } from '../sink/page-sink.js';
import { DirLock } from '../sink/dir-lock.js';
import { parseHttpUrl } from '../url/http-url.js';
import { EXIT_INTERRUPTED, type CliIo } from '../program-io.js';
import { reportRecorder, stopWords } from '../report/report-recorder.js';
import type { ReportSettings } from '../report/run-info.js';
import { keywordPolicy, resolveKhLink } from './keyword-policy.js';
import { buildRunParts } from './run-parts.js';
import { KH_MAX_DEPTH, KH_USER_AGENT, type KeywordHunterSettings } from './keyword-settings.js';

/**
 * Runs the search; resolves with the exit status (0 found or not, 130
 * stopped by a signal). With an OutputDir, it holds the lock on it from
 * before the first request to the end (dir-lock.ts).
 */
export async function runKeywordHunter(settings: KeywordHunterSettings, io: CliIo, reportSettings?: ReportSettings): Promise<number> {
  const { outputDir } = settings;
  if (outputDir === undefined) return search(settings, io, reportSettings);
  await prepareOutputDir(outputDir);
  const lock = await DirLock.acquire(outputDir, { program: 'KeywordHunter', label: 'OutputDir', code: 'ERR_OUTPUT_DIRECTORY' });
  const note = lock.takeoverNote(outputDir, 'OutputDir');
  if (note !== undefined) io.stderr(`KeywordHunter: ${note}\n`);
  try {
    return await search(settings, io, reportSettings);
  } finally {
    lock.release();
  }
}

async function search(settings: KeywordHunterSettings, io: CliIo, reportSettings?: ReportSettings): Promise<number> {
  const { outputDir } = settings;
  const report = reportRecorder(reportSettings, { program: 'KeywordHunter', delayMs: settings.delayMs, keyword: settings.keyword });
  const sink = outputDir === undefined ? undefined : new OutputDirSink(outputDir);
  report?.start();

  const run = await buildRunParts(settings, io, {
    program: 'KeywordHunter',
    report,
    archiveRun: { robots: 'obey', userAgent: KH_USER_AGENT, resume: false, shared: false },
    resolveLink: resolveKhLink,
  });
  const robots = new RobotsPolicy({ userAgent: KH_USER_AGENT, onFailure: KEYWORD_HUNTER_FAILURE_POLICY, fetch: run.robotsFetcher() });
  const protocol = new KhProtocol(io);
  let found = false;
  let pages = 0;
  const progress = run.progress;
  const searched = (e: CrawlEvent): void => {
    if (e.type === 'match') found = true;
    if (e.type !== 'response' || e.error !== undefined || REDIRECT_STATUSES.has(e.status)) return;
    pages++;
    progress.update(() => `KeywordHunter: ${pages} pages searched`);
  };
  // What has no protocol line is told on stderr: why a page could not be fetched, a StartURL robots.txt disallows.
  const notes = (e: CrawlEvent): void => {
    // The URL of a failed page is its identity key, an http(s) URL: parsing it again cannot fail.
    if (e.type === 'failed' && e.error !== undefined) protocol.failed(parseHttpUrl(e.url), e.error);
    else if (e.type === 'disallowed') io.stderr(`KeywordHunter: robots.txt disallows ${e.url}; not fetching it\n`);
  };
  const onEvent = fanOut((e) => protocol.consume(e), [...run.listeners, searched, notes]);

  const crawl = new Crawl({
    seed: settings.start,
    seedDepth: 1,
    maxDepth: KH_MAX_DEPTH,
    maxRedirects: settings.maxRedirects,
    maxPages: undefined,
    extractor: new HrefPatternExtractor(),
    fetcher: run.fetcher,
    politeness: run.politeness,
    loadRobots: (origin) => robots.rulesFor(origin),
    frontier: new MemoryFrontier(),
    // The spec's search: a 200 page is saved and searched; one holding the keyword stops the crawl, any other is scanned.
    policy: keywordPolicy(settings, run.resolve),
    sink: sink ?? NO_PAGE_SINK,
    signal: io.signal,
    concurrency: settings.concurrency,
    connectionsPerHost: settings.connectionsPerHost,
    // With --concurrency above 1, links of pages fetched ahead are found as the pages arrive.
    scanAhead: true,
    // With --concurrency above 1, pages answered ahead of their turn wait on disk (OutputDir, or the temp folder).
    spill: new FileBodySpill(outputDir ?? tmpdir()),
    outputRoom: io.stdoutRoom,
    // Kept in the archive only: the protocol has no line for them, and stderr sums them up at the end.
    requisites: settings.requisites,
    onEvent,
  });
  return run.run(async () => {
    let summary;
    try {
      summary = await crawl.run();
    } finally {
      progress.done();
      if (crawl.requisites !== undefined) io.stderr(requisitesLine(crawl.requisites.counts, 'KeywordHunter'));
      if (report !== undefined) io.stderr(`KeywordHunter: report written to ${report.finish(summary === undefined ? 'stopped by an error' : found ? 'the keyword was found' : stopWords(summary.stoppedBy))}\n`);
    }
    if (summary.stoppedBy === 'signal') return EXIT_INTERRUPTED;
    if (!found) protocol.notFound();
    return 0;
  });
}
