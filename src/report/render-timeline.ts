/**
 * The politeness timeline: one lane per host on a shared time axis. Each
 * request start is a tick coloured by its status; after each tick a pale
 * bar as long as the host's interval, so every gap that holds shows the
 * next tick clear of the bar. Retry-After pauses are hatched bands, back-off
 * an amber band. Past FINE_LIMIT requests the lanes are drawn at a coarser
 * time step (requests per step). A broad crawl draws its LANE_LIMIT busiest
 * hosts and one lane of all hosts together. Under the lanes, every host's
 * least gap between request starts against the interval in force then, in a
 * table that sorts by a click (CSS only: the report runs no script).
 */
import type { Exchange, HostData, Pacing, ReportModel } from './report-model.js';
import { esc, int, secs, statusClass } from './html-text.js';

/** Up to this many requests, each is its own tick (with its interval bar and a tooltip). */
export const FINE_LIMIT = 3000;
/** Most hosts drawn as lanes of their own; past it, the busiest ones, and a lane of all hosts. */
export const LANE_LIMIT = 50;
/** Coarse mode: time steps across the axis. */
const COARSE_STEPS = 400;

const LEFT = 230;
const WIDTH = 1200;
const LANE = 34;
const TOP = 24;

/** A host's gaps between request starts, each against the interval in force at the second start. */
export interface HostGaps {
  origin: string;
  requests: number;
  /** The least gap, and the interval in force then (undefined with fewer than two requests). */
  least: { gapMs: number; intervalMs: number } | undefined;
  /** Gaps shorter than the interval in force. */
  below: number;
  pauses: number;
  backoffs: number;
}

/** The pacing in force at `t` (the last change at or before it), or the crawl's delay before any. */
export function intervalAt(pacing: readonly Pacing[], t: number, delayMs: number): number {
  let ms = delayMs;
  for (const p of pacing) {
    if (p.at > t) break;
    ms = p.intervalMs;
  }
  return ms;
}

function byStart(h: HostData): Exchange[] {
  return [...h.exchanges].sort((a, b) => a.start - b.start);
}

/**
 * Whether the change of pacing at `i` sets a new pause: later changes during
 * a pause repeat its end (within a millisecond: each end is computed anew
 * from the clock).
 */
function startsPause(pacing: readonly Pacing[], i: number): boolean {
  const until = (pacing[i] as Pacing).pausedUntil;
  return until > 0 && Math.abs(until - (pacing[i - 1]?.pausedUntil ?? 0)) >= 1;
}

/** Each host's gaps (see HostGaps). */
export function hostGaps(h: HostData, delayMs: number): HostGaps {
  const xs = byStart(h);
  let least: HostGaps['least'];
  let below = 0;
  for (let i = 1; i < xs.length; i++) {
    const gapMs = (xs[i] as Exchange).start - (xs[i - 1] as Exchange).start;
    const intervalMs = intervalAt(h.pacing, (xs[i] as Exchange).start, delayMs);
    if (gapMs < intervalMs) below++;
    if (least === undefined || gapMs < least.gapMs) least = { gapMs, intervalMs };
  }
  return {
    origin: h.origin,
    requests: xs.length,
    least,
    below,
    pauses: h.pacing.filter((_, i) => startsPause(h.pacing, i)).length,
    backoffs: h.pacing.filter((p, i) => p.failures > 0 && (h.pacing[i - 1]?.failures ?? 0) === 0).length,
  };
}

/** A step for axis labels: 1, 2 or 5 times a power of ten seconds, about 10 labels across. */
function axisStep(spanMs: number): number {
  const raw = spanMs / 10;
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
}

function n(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

export function renderTimeline(model: ReportModel, now: number): string {
  const every = [...model.hosts.values()].filter((h) => h.exchanges.length > 0 || h.pacing.length > 0);
  // A broad crawl: the busiest hosts, in the crawl's order of hosts, then all hosts together.
  const busiest = every.length <= LANE_LIMIT ? every : new Set([...every].sort((a, b) => b.exchanges.length - a.exchanges.length || (a.origin < b.origin ? -1 : 1)).slice(0, LANE_LIMIT));
  const hosts = busiest instanceof Set ? every.filter((h) => busiest.has(h)) : every;
  const folded = every.length - hosts.length;
  const delayMs = model.run?.delayMs ?? 0;
  const all = every.flatMap((h) => h.exchanges);
  if (all.length === 0) return '<section id="timeline"><h2>Politeness timeline</h2><p>No request was recorded.</p></section>';
  const t0 = Math.min(...all.map((x) => x.start), ...model.runs.map((r) => r.startedAt));
  let t1 = Math.max(...all.map((x) => x.end), ...model.ends.map((e) => e.at), ...every.flatMap((h) => h.pacing.map((p) => p.pausedUntil)));
  if (!(t1 > t0)) t1 = Math.max(now, t0 + 1);
  const span = t1 - t0;
  const scale = (WIDTH - LEFT - 10) / span;
  const x = (t: number): string => n(LEFT + (t - t0) * scale);
  const w = (ms: number): string => n(Math.max(0.5, ms * scale));
  const fine = all.length <= FINE_LIMIT;
  const lanes = hosts.length + (folded > 0 ? 1 : 0);
  const height = TOP + lanes * LANE + 24;
  const parts: string[] = [];
  const step = axisStep(span);
  for (let s = 0; s <= span; s += step) {
    parts.push(`<line class="grid" x1="${x(t0 + s)}" x2="${x(t0 + s)}" y1="${TOP - 4}" y2="${height - 20}"/><text class="ax" x="${x(t0 + s)}" y="${height - 6}">${n(s / 1000)} s</text>`);
  }
  model.runs.slice(1).forEach((r) => parts.push(`<line class="resume" x1="${x(r.startedAt)}" x2="${x(r.startedAt)}" y1="${TOP - 10}" y2="${height - 20}"><title>resumed</title></line>`));
  hosts.forEach((h, i) => {
    const y = TOP + i * LANE;
    const lane: string[] = [`<g class="lane" data-host="${esc(h.origin)}"><text class="host" x="${LEFT - 8}" y="${y + 17}">${esc(shortHost(h.origin))}</text>`];
    lane.push(`<line class="base" x1="${LEFT}" x2="${WIDTH - 10}" y1="${y + 25}" y2="${y + 25}"/>`);
    h.pacing.forEach((p, k) => {
      if (p.failures > 0) {
        const until = h.pacing[k + 1]?.at ?? t1;
        lane.push(`<rect class="backoff" x="${x(p.at)}" y="${y + 26}" width="${w(until - p.at)}" height="4"><title>back-off: interval ${secs(p.intervalMs)} after ${p.failures} failure${p.failures === 1 ? '' : 's'} in a row</title></rect>`);
      }
      if (startsPause(h.pacing, k)) {
        lane.push(`<rect class="pause" x="${x(p.at)}" y="${y + 3}" width="${w(p.pausedUntil - p.at)}" height="21"><title>Retry-After pause: ${secs(p.pausedUntil - p.at)}</title></rect>`);
      }
    });
    const xs = byStart(h);
    if (fine) lane.push(...fineTicks(h, xs, y, delayMs, t1, x, w));
    else lane.push(coarseTicks(xs, y, t0, span, x));
    lane.push('</g>');
    parts.push(lane.join(''));
  });
  if (folded > 0) {
    // Every host's requests together, per time step: how busy the whole crawl was.
    const y = TOP + hosts.length * LANE;
    parts.push(`<g class="lane all" data-hosts="${every.length}"><text class="host" x="${LEFT - 8}" y="${y + 17}">all ${int(every.length)} hosts</text><line class="base" x1="${LEFT}" x2="${WIDTH - 10}" y1="${y + 25}" y2="${y + 25}"/>${coarseTicks(all, y, t0, span, x)}</g>`);
  }
  const lanesNote = folded > 0 ? ` ${int(every.length)} hosts: the ${LANE_LIMIT} with the most requests have a lane each, and the last lane counts every host's requests together; the table lists every host.` : '';
  const note = fine
    ? 'Each tick is a request start, coloured by status; the pale bar after it is the host\'s interval then, so the next tick of the lane must start clear of it.'
    : `${int(all.length)} requests: drawn at a coarser step of ${secs(span / COARSE_STEPS)}, each bar as tall as the requests started in that step.`;
  return `<section id="timeline"><h2>Politeness timeline</h2><p class="note">${note} Hatched: a Retry-After pause; amber: back-off.${lanesNote}</p>
<svg class="timeline" data-mode="${fine ? 'fine' : 'coarse'}" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="request starts per host over time">${parts.join('')}</svg>
${legend()}${gapTable(every, delayMs)}</section>`;
}

function fineTicks(h: HostData, xs: Exchange[], y: number, delayMs: number, t1: number, x: (t: number) => string, w: (ms: number) => string): string[] {
  const out: string[] = [];
  xs.forEach((e, i) => {
    const next = xs[i + 1];
    const iv = intervalAt(h.pacing, next?.start ?? Math.min(e.end, t1), delayMs);
    if (iv > 0) out.push(`<rect class="iv" x="${x(e.start)}" y="${y + 9}" width="${w(iv)}" height="10"/>`);
  });
  for (const e of xs) {
    const what = e.error ?? (e.status === 0 ? 'no answer' : `HTTP ${e.status}`);
    out.push(`<line class="tick ${statusClass(e.status)}" x1="${x(e.start)}" x2="${x(e.start)}" y1="${y + 1}" y2="${y + 25}"><title>${esc(e.url)}: ${esc(what)}, ${secs(e.end - e.start)}</title></line>`);
  }
  return out;
}

/** Requests per time step, as two paths (answers that are fine, and the rest). */
function coarseTicks(xs: Exchange[], y: number, t0: number, span: number, x: (t: number) => string): string {
  const ok = new Array<number>(COARSE_STEPS).fill(0);
  const bad = new Array<number>(COARSE_STEPS).fill(0);
  for (const e of xs) {
    const b = Math.min(COARSE_STEPS - 1, Math.floor(((e.start - t0) / span) * COARSE_STEPS));
    if (e.status >= 200 && e.status < 400) ok[b]!++;
    else bad[b]!++;
  }
  const max = Math.max(1, ...ok.map((v, i) => v + (bad[i] as number)));
  const bw = span / COARSE_STEPS;
  const path = (counts: number[], under: number[] | undefined): string =>
    counts
      .map((c, i) => {
        if (c === 0) return '';
        const base = y + 25 - ((under?.[i] ?? 0) / max) * 23;
        const hgt = (c / max) * 23;
        return `M${x(t0 + i * bw)} ${n(base)}v${n(-hgt)}h${n(Math.max(0.8, (WIDTH - LEFT - 10) / COARSE_STEPS - 0.3))}v${n(hgt)}z`;
      })
      .join('');
  return `<path class="bin s2" d="${path(ok, undefined)}"/><path class="bin s5" d="${path(bad, ok)}"/>`;
}

function shortHost(origin: string): string {
  const s = origin.replace(/^https?:\/\//, '');
  return s.length > 30 ? `${s.slice(0, 29)}…` : s;
}

function legend(): string {
  const item = (cls: string, text: string): string => `<span class="key ${cls}"></span>${text}`;
  return `<p class="legend">${item('s2', '2xx')} ${item('s3', '3xx')} ${item('s4', '4xx')} ${item('s5', '5xx')} ${item('s0', 'no answer')} ${item('kpause', 'Retry-After pause')} ${item('kbackoff', 'back-off')} ${item('kiv', 'interval')}</p>`;
}

/** The orders the host table can be put in (a radio button each); the first is the one it opens in. */
const SORTS: ReadonlyArray<{ key: string; label: string }> = [
  { key: 'g', label: 'least gap to its interval' },
  { key: 'r', label: 'requests' },
  { key: 'h', label: 'host' },
];

/** Seconds to the ms, no unit (the column says it): a gap rounded down, an interval up, so a gap below its interval never shows as equal. */
const gapSecs = (ms: number): string => (Math.floor(ms) / 1000).toFixed(3);
const intervalSecs = (ms: number): string => (Math.ceil(ms) / 1000).toFixed(3);

/**
 * Every host's gaps, one row each. Sorting needs no script: each row carries
 * its rank in each order as a CSS variable, and the checked radio button
 * sets the rows' flex `order` from it. Rows are compact (no closing tags,
 * alignment and colour from CSS), so 10,000 hosts stay within the report's size.
 */
function gapTable(hosts: HostData[], delayMs: number): string {
  const gaps = hosts.map((h) => hostGaps(h, delayMs));
  const rank = (cmp: (a: HostGaps, b: HostGaps) => number): Map<HostGaps, number> => new Map([...gaps].sort(cmp).map((g, i) => [g, i]));
  // Worst first: how far the least gap stays above its interval (below it: negative), hosts without a gap last.
  const margin = (g: HostGaps): number => (g.least === undefined ? Infinity : g.least.gapMs - g.least.intervalMs);
  const byGap = rank((a, b) => b.below - a.below || margin(a) - margin(b) || (a.origin < b.origin ? -1 : 1));
  const byRequests = rank((a, b) => b.requests - a.requests || (a.origin < b.origin ? -1 : 1));
  // Rows in host order (the order with no variable of its own).
  const rows = [...gaps].sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0)).map((g) => {
    const least = g.least;
    // data-below only where some gap was below its interval (CSS shows those in red).
    return `<tr data-host="${esc(g.origin)}"${g.below > 0 ? ` data-below="${g.below}"` : ''} style="--g:${byGap.get(g)};--r:${byRequests.get(g)}"><td>${esc(g.origin)}<td>${int(g.requests)}<td>${least === undefined ? '—' : gapSecs(least.gapMs)}<td>${least === undefined ? '—' : intervalSecs(least.intervalMs)}<td>${int(g.below)}<td>${int(g.pauses)}<td>${int(g.backoffs)}`;
  });
  const radios = SORTS.map((s, i) => `<input type="radio" name="gap-sort" id="gap-sort-${s.key}"${i === 0 ? ' checked' : ''}><label for="gap-sort-${s.key}">${s.label}</label>`).join(' ');
  const table = `<div class="gapsort"><span class="note">Hosts in order of:</span> ${radios}<table class="gaps"><thead><tr><th>host</th><th>requests</th><th>least gap between starts (s)</th><th>interval then (s)</th><th>gaps below their interval</th><th>pauses</th><th>back-offs</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  if (hosts.length <= LANE_LIMIT) return table;
  // A broad crawl: the table is folded, so the report opens at once (a
  // browser lays out 10,000 rows only when asked); its summary says what
  // the rows would tell first.
  const below = gaps.filter((g) => g.below > 0).length;
  const worst = gaps.find((g) => byGap.get(g) === 0);
  const first = worst?.least === undefined ? '' : `; the least gap to its interval: ${esc(worst.origin)}, ${gapSecs(worst.least.gapMs)} s against ${intervalSecs(worst.least.intervalMs)} s`;
  return `<details class="hosts"><summary>Every host's gaps: ${int(hosts.length)} hosts, ${int(below)} with a gap below its interval${first}</summary>${table}</details>`;
}
