/**
 * `KeywordHunter [options] StartURL SearchKeyword [OutputDir]`: the EE122
 * crawler. Searches pages breadth first to depth 5 for a keyword and prints
 * the graders' protocol (`PAGE:`, `LINK:`, `FOUND_KEYWORD:`,
 * `NOT_FOUND_KEYWORD:`) on stdout, one write per line as it happens.
 */
import { CrawlerError, describeError } from '../errors.js';
import { runKeywordHunter } from '../programs/keyword-hunter.js';
import { resolveKhLink } from '../programs/keyword-policy.js';
import { KH_MAX_KEYWORD, KH_MAX_DEPTH, KH_USER_AGENT } from '../programs/keyword-settings.js';
import { parseHttpUrl, type HttpUrl } from '../url/http-url.js';
import { defineFlags, formatFlags, parseArgs } from './args.js';
import { reportSettings } from '../report/run-info.js';
import { archiveFrom, clientOptionsFrom, concurrencyFrom, HTTP_FLAGS, INFO_FLAGS, MAX_CONCURRENCY, REPORT_FLAGS, versionText, WARC_FLAGS } from './common-flags.js';
import { checkFlagLimits } from './flag-limits.js';
import type { CliIo } from '../program-io.js';

export { KH_MAX_DEPTH, KH_MAX_KEYWORD, KH_USER_AGENT, resolveKhLink };

/** KeywordHunter's flags: what its --help lists. */
export const KH_FLAGS = defineFlags([
  ...INFO_FLAGS,
  { name: 'delay', type: 'duration', arg: 'SECONDS', default: 0, help: 'least time between the starts of two requests to one host, for every host; a robots.txt Crawl-delay can make it longer' },
  // The spec's crawler stops at the page holding the keyword: fetching ahead
  // (--concurrency above 1) would request pages after it, so it is opt-in here.
  ...HTTP_FLAGS.map((f) =>
    f.name === 'concurrency'
      ? { ...f, default: 1, help: `requests in flight at once, each to a different host, 1 to ${MAX_CONCURRENCY}; above 1 fetches pages ahead, so pages after the one that holds the keyword may be requested` }
      : f,
  ),
  ...WARC_FLAGS,
  ...REPORT_FLAGS,
]);

export const KH_HELP = `Usage: KeywordHunter [options] StartURL SearchKeyword [OutputDir]

Searches pages breadth first from StartURL (depth 1) to depth ${KH_MAX_DEPTH} for
SearchKeyword (case-sensitive, 1 to ${KH_MAX_KEYWORD} characters), following links of
the form a href="..." to any host, obeying each host's robots.txt (agent
${KH_USER_AGENT}) and its Crawl-delay. Pages answered 200 are saved in
OutputDir (created if missing) under the last segment of their path;
without OutputDir, no page is saved anywhere.

Output (stdout), one line per event, in the order they happen:
  PAGE:host=H;port=P;respath=R;status=S      a request (S=0: no answer)
  LINK:host=H;port=P;respath=R;action=A      A: follow, robots_ignore, already_seen_ignore
  FOUND_KEYWORD:host=H;port=P;respath=R;line=L   then it stops
  NOT_FOUND_KEYWORD:                          after the last page
Notes and errors go to stderr. --warc FILE keeps every request and response
(robots.txt and redirects included) byte for byte in a WARC/1.1 archive, with
a CDXJ index beside it; --wacz FILE packages them for ReplayWeb.page.

Options:
${formatFlags(KH_FLAGS)}

Exit status: 0 the search ran (found or not); 1 bad arguments, or an OutputDir
unusable or in use by another run; 130 stopped by SIGINT/SIGTERM; 141 stopped because
stdout's reader went away (as SIGPIPE would).
`;

function usage(message: string): CrawlerError {
  return new CrawlerError('ERR_USAGE', message, { hint: 'Usage: KeywordHunter [options] StartURL SearchKeyword [OutputDir] (see --help)' });
}

export async function keywordHunterMain(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv, KH_FLAGS);
    checkFlagLimits(KH_FLAGS, parsed.flags);
  } catch (err) {
    throw usage(describeError(err));
  }
  const { flags, positionals } = parsed;
  if (flags.help) {
    io.stdout(KH_HELP);
    return 0;
  }
  if (flags.version) {
    io.stdout(versionText('KeywordHunter'));
    return 0;
  }
  if (positionals.length < 2 || positionals.length > 3) throw usage(`expected 2 or 3 arguments, got ${positionals.length}`);
  const [startText, keyword, outputDir] = positionals as [string, string, string | undefined];
  const maxUrl = flags.maxUrlLength;
  let start: HttpUrl;
  try {
    start = parseHttpUrl(startText, maxUrl);
    // A StartURL without a path means /index.html, like a link (start.href already has "/").
    if (start.pathWasEmpty) start = resolveKhLink(startText, start, maxUrl);
  } catch (err) {
    throw usage(`invalid StartURL "${startText}": ${describeError(err)}`);
  }
  if (keyword.length === 0) throw usage('SearchKeyword is empty');
  // Characters are code points: an emoji is one character, not two UTF-16 units.
  const characters = [...keyword].length;
  if (characters > KH_MAX_KEYWORD) throw usage(`SearchKeyword is ${characters} characters long; at most ${KH_MAX_KEYWORD} allowed`);
  let parallel;
  let archive;
  let report;
  try {
    parallel = concurrencyFrom(flags);
    archive = archiveFrom(flags);
    report = reportSettings(flags.report, 'KeywordHunter', argv);
  } catch (err) {
    throw usage(describeError(err));
  }
  return runKeywordHunter(
    {
      start,
      keyword,
      outputDir,
      delayMs: flags.delayMs,
      delayFactor: flags.delayFactor,
      maxUrlLength: maxUrl,
      maxRedirects: flags.maxRedirects,
      maxRetryAfterMs: flags.maxRetryAfterMs,
      maxPathSegments: flags.maxPathDepth,
      client: clientOptionsFrom(flags, KH_USER_AGENT),
      ...parallel,
      progress: io.stderrIsTTY && !io.stdoutIsTTY,
      archive: archive === undefined ? undefined : { ...archive, commandLine: ['KeywordHunter', ...argv] },
    },
    io,
    report,
  );
}
