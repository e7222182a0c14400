/**
 * `crawler [options] seedURL pageDirectory maxDepth`: the TinySearch Engine
 * crawler. Breadth first within one server, polite, each page saved as
 * `pageDirectory/ID`, a CS50-format log on stdout.
 */
import { CrawlerError, describeError, type ErrorCode } from '../errors.js';
import { CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT, WRITE_THREAD_WHEN } from '../programs/tse-settings.js';
import { runTse } from '../programs/tse-run.js';
import { leaseMsFrom } from '../programs/tse-worker.js';
import { parseHttpUrl, type HttpUrl } from '../url/http-url.js';
import { crawlScope, type CrawlScope } from '../url/scope.js';
import type { SeedLine } from '../url/seed-list.js';
import { parseArgs, type FlagValues } from './args.js';
import { crawlerHelp, FLAGS } from './crawler-help.js';
import { reportSettings } from '../report/run-info.js';
import { archiveFrom, clientOptionsFrom, concurrencyFrom, versionText } from './common-flags.js';
import { checkFlagLimits } from './flag-limits.js';
import type { CliIo } from '../program-io.js';
import { readSeedFile } from './seed-file.js';
import { requisitesFrom } from './requisite-flags.js';

type CrawlerFlags = FlagValues<typeof FLAGS>;

export { crawlerHelp, CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT };

function usage(message: string, code: ErrorCode = 'ERR_USAGE'): CrawlerError {
  return new CrawlerError(code, message, { hint: 'Usage: crawler [options] seedURL pageDirectory maxDepth (see --help)' });
}

/** The value `make` gives, or its error as an option error with the usage line. */
function option<T>(make: () => T, prefix = ''): T {
  try {
    return make();
  } catch (err) {
    throw usage(`${prefix}${describeError(err)}`, 'ERR_INVALID_OPTION');
  }
}

/**
 * The crawl's scope (--internal, --internal-domain, --any-host, --exclude)
 * and its seeds after the positional one (--seeds, each identity key once,
 * in file order), every seed checked to be inside the scope: one line
 * naming what is wrong otherwise, before any request.
 */
function scopeAndSeeds(flags: CrawlerFlags, seed: HttpUrl): { scope: CrawlScope; moreSeeds: SeedLine[] } {
  const listed = flags.seeds === undefined ? [] : readSeedFile(flags.seeds, flags.maxUrlLength);
  const scope = option(() => crawlScope({ internal: flags.internal, domains: flags.internalDomain, anyHost: flags.anyHost, exclude: flags.exclude, seeds: [seed, ...listed.map((s) => s.url)], maxUrlLength: flags.maxUrlLength }));
  const why = scope.outside(seed);
  if (why !== undefined) throw usage(`seedURL ${seed.key} is ${why}`, 'ERR_INVALID_OPTION');
  const keys = new Set([seed.key]);
  const moreSeeds: SeedLine[] = [];
  for (const s of listed) {
    const outside = scope.outside(s.url);
    if (outside !== undefined) throw usage(`--seeds ${JSON.stringify(flags.seeds)} line ${s.line}: ${s.url.key} is ${outside}`, 'ERR_INVALID_OPTION');
    if (!keys.has(s.url.key)) {
      keys.add(s.url.key);
      moreSeeds.push(s);
    }
  }
  return { scope, moreSeeds };
}

/** crawler's main: returns the exit status. */
export async function crawlerMain(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv, FLAGS);
    checkFlagLimits(FLAGS, parsed.flags);
  } catch (err) {
    throw usage(describeError(err), 'ERR_INVALID_OPTION');
  }
  const { flags, positionals } = parsed;
  if (flags.help) {
    io.stdout(crawlerHelp());
    return 0;
  }
  if (flags.version) {
    io.stdout(versionText('crawler'));
    return 0;
  }
  if (positionals.length !== 3) throw usage(`expected 3 arguments (seedURL pageDirectory maxDepth), got ${positionals.length}`);
  const [seedText, pageDir, depthText] = positionals as [string, string, string];

  let seed: HttpUrl;
  try {
    seed = parseHttpUrl(seedText, flags.maxUrlLength);
  } catch (err) {
    // A seed typed without a scheme ("www.example.com", "host:8080/x"): say what to add, naming the URL once.
    const why = /^[a-z][a-z0-9+.-]*:\/\//i.test(seedText) ? describeError(err) : 'no scheme: add http:// or https://';
    throw usage(`invalid seedURL "${seedText}": ${why}`, 'ERR_INVALID_URL');
  }
  const depthLimit = flags.depthLimit;
  if (!/^[0-9]+$/.test(depthText)) throw usage(`maxDepth must be a non-negative integer written in digits, got "${depthText}"`);
  const maxDepth = Number(depthText);
  if (maxDepth > depthLimit) throw usage(`maxDepth ${depthText} is above the depth limit ${depthLimit} (--depth-limit N changes it)`);
  const { scope, moreSeeds } = scopeAndSeeds(flags, seed);
  const parallel = option(() => concurrencyFrom(flags));
  const userAgent = flags.userAgent;
  // RFC 9110 §5.5: no control characters in a field value; an empty one names no robots.txt group.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(userAgent)) throw usage('--user-agent must not contain control characters (CR, LF, NUL, TAB...)', 'ERR_INVALID_OPTION');
  if (userAgent.trim() === '') throw usage('--user-agent must not be empty', 'ERR_INVALID_OPTION');
  const frontierSpec = flags.frontier; // a shared crawl: see src/programs/tse-worker.ts
  if (frontierSpec === undefined) {
    if (flags.strictBfs) throw usage('--strict-bfs goes with --frontier (a private crawl is strictly breadth first already)', 'ERR_INVALID_OPTION');
  } else if (flags.resume) {
    throw usage('--resume does not go with --frontier: a shared crawl is joined (and so resumed) by running the same command again', 'ERR_INVALID_OPTION');
  } else if (flags.since !== undefined) {
    throw usage('--since does not go with --frontier: only a private crawl refreshes an earlier one', 'ERR_INVALID_OPTION');
  }
  if (flags.since === '') throw usage('--since needs the pageDirectory of an earlier crawl', 'ERR_INVALID_OPTION');
  const writeThread = WRITE_THREAD_WHEN.find((w) => w === flags.writeThread);
  if (writeThread === undefined) throw usage(`--write-thread must be auto, on or off, got "${flags.writeThread}"`, 'ERR_INVALID_OPTION');
  const report = option(() => reportSettings(flags.report, 'crawler', argv));
  const leaseMs = option(() => leaseMsFrom(flags.leaseMs));
  const archive = option(() => archiveFrom(flags));
  const requisites = option(() => requisitesFrom(flags, scope, archive !== undefined));
  const quiet = flags.quiet;
  return runTse(
    {
      seed,
      moreSeeds: moreSeeds.map((s) => s.url),
      pageDir,
      maxDepth,
      scope: scope.inScope,
      leftOut: (url) => scope.leftOut(url),
      scopeKey: scope.key,
      delayMs: flags.delayMs,
      delayFactor: flags.delayFactor,
      userAgent,
      ignoreRobots: flags.ignoreRobots,
      maxPages: flags.maxPages,
      maxUrlLength: flags.maxUrlLength,
      maxRedirects: flags.maxRedirects,
      maxRetryAfterMs: flags.maxRetryAfterMs,
      retries: flags.retries,
      maxPathSegments: flags.maxPathDepth,
      client: clientOptionsFrom(flags, userAgent),
      ...parallel,
      log: flags.json ? 'json' : quiet ? 'quiet' : 'cs50',
      progress: io.stderrIsTTY && (quiet || !io.stdoutIsTTY),
      resume: flags.resume,
      overwrite: flags.overwrite,
      sitemaps: flags.sitemaps,
      shared: frontierSpec === undefined ? undefined : { spec: frontierSpec, leaseMs, strictBfs: flags.strictBfs, waitMs: flags.frontierWaitMs },
      archive: archive === undefined ? undefined : { ...archive, commandLine: ['crawler', ...argv] },
      writeThread,
      since: flags.since,
      commandLine: ['crawler', ...argv],
      requisites,
    },
    io,
    report,
  );
}
