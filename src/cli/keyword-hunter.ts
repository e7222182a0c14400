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
import { parseArgs } from './args.js';
import { reportSettings } from '../report/run-info.js';
import { archiveFrom, clientOptionsFrom, concurrencyFrom, versionText } from './common-flags.js';
import { KH_FLAGS, keywordHunterHelp } from './keyword-hunter-help.js';
import { requisitesFrom } from './requisite-flags.js';
import { checkFlagLimits } from './flag-limits.js';
import type { CliIo } from '../program-io.js';

export { KH_FLAGS, keywordHunterHelp, KH_MAX_DEPTH, KH_MAX_KEYWORD, KH_USER_AGENT, resolveKhLink };

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
    io.stdout(keywordHunterHelp());
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
  let requisites;
  try {
    parallel = concurrencyFrom(flags);
    archive = archiveFrom(flags);
    // Every host is in KeywordHunter's scope: a requisite is left out by nothing but robots.txt and the caps.
    requisites = requisitesFrom(flags, undefined, archive !== undefined);
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
      requisites,
    },
    io,
    report,
  );
}
