/**
 * The report's smaller sections: pages per depth (bars), statuses and
 * failure reasons with counts, the slowest responses, and robots.txt per
 * host. Each takes the model and returns HTML; network text is escaped.
 */
import type { ReportModel } from './report-model.js';
import { bytes, cut, esc, int, secs, statusClass } from './html-text.js';
import { intervalAt } from './render-timeline.js';

/** Rows a list shows before it is cut with a count. */
export const LIST_LIMIT = 30;
export const SLOWEST = 20;

export function renderDepths(model: ReportModel): string {
  const kh = model.run?.program === 'KeywordHunter';
  const byDepth = new Map<number, { ok: number; other: number }>();
  for (const p of model.pages.values()) {
    if (p.status === undefined && p.id === undefined && p.failed === undefined) continue; // queued, never requested
    const d = byDepth.get(p.depth) ?? { ok: 0, other: 0 };
    if (kh ? p.status === 200 : p.id !== undefined) d.ok++;
    else d.other++;
    byDepth.set(p.depth, d);
  }
  const depths = [...byDepth.keys()].sort((a, b) => a - b);
  const max = Math.max(1, ...[...byDepth.values()].map((d) => d.ok + d.other));
  const rows = depths.map((depth) => {
    const d = byDepth.get(depth) as { ok: number; other: number };
    const pct = (v: number): string => ((v / max) * 100).toFixed(1);
    return `<tr class="depth" data-depth="${depth}" data-ok="${d.ok}" data-other="${d.other}"><th>${depth}</th><td class="bars"><span class="bar ok" style="width:${pct(d.ok)}%"></span><span class="bar other" style="width:${pct(d.other)}%"></span></td><td class="num">${int(d.ok)}</td><td class="num">${int(d.other)}</td></tr>`;
  });
  return `<section id="depths"><h2>Pages per depth</h2><table class="chart"><thead><tr><th>depth</th><th></th><th>${kh ? 'answered 200' : 'saved'}</th><th>not</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function countTable(id: string, head: string, entries: Array<[string, number, string?]>): string {
  const sorted = [...entries].sort((a, b) => b[1] - a[1]);
  const { shown, more } = cut(sorted, LIST_LIMIT);
  const rows = shown.map(([k, v, cls]) => `<tr data-key="${esc(k)}" data-count="${v}"><td${cls === undefined ? '' : ` class="${cls}"`}>${esc(k)}</td><td class="num">${int(v)}</td></tr>`);
  return `<table id="${id}" class="counts"><thead><tr><th>${head}</th><th>count</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`;
}

export function renderStatuses(model: ReportModel): string {
  const statuses: Array<[string, number, string]> = [...model.statuses].map(([s, c]) => [String(s), c, `st ${statusClass(s)}`]);
  const errors: Array<[string, number]> = [...model.errors];
  const failures: Array<[string, number]> = [...model.failures()];
  return `<section id="statuses"><h2>Statuses and failures</h2><div class="cols"><div><h3>Answers to page requests</h3>${countTable('status-counts', 'status', [...statuses, ...errors.map(([e, c]): [string, number, string] => [e, c, 'st s0'])])}</div><div><h3>Failed pages by reason</h3>${failures.length === 0 ? '<p>None.</p>' : countTable('failure-counts', 'reason', failures)}</div></div></section>`;
}

export function renderSlowest(model: ReportModel): string {
  const xs = [...model.exchanges()].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, SLOWEST);
  const rows = xs.map((e) => `<tr><td class="url">${esc(e.url)}</td><td class="num">${secs(e.end - e.start)}</td><td class="num">${bytes(e.bytes)}</td><td class="st ${statusClass(e.status)}">${e.status === 0 ? esc(e.error ?? 'no answer') : e.status}</td></tr>`);
  return `<section id="slowest"><h2>Slowest responses</h2>${xs.length === 0 ? '<p>No request was recorded.</p>' : `<table class="list"><thead><tr><th>URL</th><th>time</th><th>size</th><th>status</th></tr></thead><tbody>${rows.join('')}</tbody></table>`}</section>`;
}

const SOURCES: Record<string, string> = { file: 'read', 'allow-all': 'unavailable: allow all', 'disallow-all': 'unreachable: disallow all' };

export function renderRobots(model: ReportModel): string {
  const delayMs = model.run?.delayMs ?? 0;
  const hosts = [...model.hosts.values()].filter((h) => h.robots !== undefined || h.robotsStatus !== undefined);
  const { shown, more } = cut(hosts, LIST_LIMIT * 4);
  const rows = shown.map((h) => {
    const asked = h.exchanges.find((x) => x.url === `${h.origin}/robots.txt`);
    const status = asked === undefined ? h.robotsStatus : asked.status;
    const answer = asked?.error ?? (status === undefined ? '—' : status === 0 ? 'no answer' : String(status));
    const r = h.robots;
    const group = r === undefined ? '—' : r.group === '' ? (r.source === 'file' ? 'none applies' : '—') : `User-agent: ${r.group}`;
    const interval = intervalAt(h.pacing, Infinity, delayMs);
    return `<tr class="robots" data-host="${esc(h.origin)}" data-status="${status ?? ''}" data-crawl-delay="${r?.crawlDelay ?? ''}"><td>${esc(h.origin)}</td><td class="st ${statusClass(status ?? 0)}">${esc(answer)}</td><td>${r === undefined ? '—' : esc(SOURCES[r.source] ?? r.source)}</td><td>${esc(group)}</td><td class="num">${r === undefined ? '—' : int(r.rules)}</td><td class="num">${r?.crawlDelay === undefined ? '—' : `${r.crawlDelay} s`}</td><td class="num">${secs(interval)}</td></tr>`;
  });
  return `<section id="robots"><h2>robots.txt per host</h2>${hosts.length === 0 ? '<p>robots.txt was not fetched (--ignore-robots).</p>' : `<table class="list"><thead><tr><th>host</th><th>status</th><th>rules</th><th>group applied</th><th>Allow/Disallow lines</th><th>Crawl-delay</th><th>interval at the end</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`}</section>`;
}
