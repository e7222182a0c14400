/**
 * The report's summary: pages saved, failed and skipped (by reason), bytes,
 * wall time and pages per second, hosts, the command line and versions.
 * Each figure carries a `data-figure` name, so tests read what is shown.
 */
import type { ReportModel } from './report-model.js';
import { originOf, type SkipReason } from './report-records.js';
import { bytes, duration, esc, int } from './html-text.js';

const SKIP_WORDS: Record<SkipReason, string> = {
  duplicate: 'seen before',
  external: 'outside the crawl',
  excluded: 'excluded by --exclude',
  extension: 'not a page (non-HTML extension)',
  'too-long': 'URL too long',
  robots: 'disallowed by robots.txt',
  invalid: 'not a crawlable URL',
  redirect: 'redirect not followed',
};

function figure(name: string, label: string, value: number, text = int(value)): string {
  return `<div class="fig"><div class="v" data-figure="${name}" data-value="${value}">${text}</div><div class="k">${label}</div></div>`;
}

/** A command line as a shell would take it back (arguments quoted when needed). */
export function shellLine(args: readonly string[]): string {
  return args.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** A command line longer than this is folded: its start shown, the whole of it one click away. */
export const COMMAND_FOLD = 240;

/** The command as shown: whole, or (a broad crawl's hundreds of flags) its start and the whole behind a click. */
function commandLine(args: readonly string[]): string {
  const line = shellLine(args);
  if (line.length <= COMMAND_FOLD) return `<code>${esc(line)}</code>`;
  const head = line.slice(0, line.lastIndexOf(' ', COMMAND_FOLD));
  return `<code>${esc(head)} …</code><details class="command"><summary>the whole command (${int(args.length)} arguments)</summary><code>${esc(line)}</code></details>`;
}

export function renderSummary(model: ReportModel, now: number): string {
  const run = model.run;
  const kh = run?.program === 'KeywordHunter';
  const saved = model.savedPages.length;
  const failures = [...model.failures().values()].reduce((a, b) => a + b, 0);
  const skipped = model.skipped();
  const skippedTotal = [...skipped.values()].reduce((a, b) => a + b, 0);
  const wall = model.wallMs(now);
  let requests = 0;
  for (const h of model.hosts.values()) requests += h.exchanges.length;
  const rate = wall > 0 ? saved / (wall / 1000) : 0;
  const hosts = new Set([...[...model.hosts.values()].filter((h) => h.exchanges.length > 0).map((h) => h.origin), ...[...model.pages.values()].filter((p) => p.status !== undefined).map((p) => originOf(p.url))]).size;
  const skips = [...skipped].sort((a, b) => b[1] - a[1]).map(([k, v]) => `<li data-skip="${k}" data-count="${v}">${int(v)} ${SKIP_WORDS[k]}</li>`);
  const last = model.ends[model.ends.length - 1];
  const req = model.requisites;
  const reqFetched = [...req.fetched.values()].reduce((a, b) => a + b, 0);
  const reqNot = [...req.notFetched].sort((a, b) => b[1] - a[1]).map(([why, n]) => `<li data-requisite="${esc(why)}" data-count="${n}">${int(n)} ${esc(why)}</li>`);
  const reqPages = req.fetched.size;
  const requisites =
    reqFetched + reqNot.length === 0
      ? ''
      : `<p class="requisites" data-requisites="${reqFetched}" data-pages="${reqPages}">Page requisites (for the archive): ${int(reqFetched)} fetched for ${int(reqPages)} pages${reqPages === 0 ? '' : `, ${(reqFetched / reqPages).toFixed(1)} a page, at most ${int(Math.max(...req.fetched.values()))}`}${reqNot.length === 0 ? '.' : '; not fetched:'}</p>${reqNot.length === 0 ? '' : `<ul class="skips">${reqNot.join('')}</ul>`}`;
  const runs = model.runs.length > 1 ? `, in ${model.runs.length} runs (resumed)` : '';
  return `<section id="summary"><h2>Summary</h2><div class="figs">${figure('saved', kh ? 'pages answered 200' : 'pages saved', saved)}${figure('failed', 'pages failed', failures)}${figure('skipped', 'links not followed', skippedTotal)}${figure('requests', 'requests', requests)}${figure('bytes', 'bytes read', model.bytes, bytes(model.bytes))}${figure('wall', 'wall time', Math.round(wall), duration(wall))}${figure('rate', 'pages per second', Math.round(rate * 100) / 100, rate.toFixed(2))}${figure('hosts', 'hosts', hosts)}</div>
${skips.length === 0 ? '' : `<ul class="skips">${skips.join('')}</ul>`}${requisites}
<dl class="run"><dt>command</dt><dd>${commandLine(run?.command ?? [])}</dd><dt>versions</dt><dd>${esc(run?.versions ?? '')}</dd><dt>started</dt><dd>${run === undefined ? '' : new Date(run.startedAt).toISOString()}${runs}</dd><dt>ended</dt><dd>${last === undefined ? 'not yet' : `${new Date(last.at).toISOString()} (${esc(last.why)})`}</dd></dl></section>`;
}
