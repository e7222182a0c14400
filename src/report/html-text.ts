/**
 * Text for the report's HTML: every string that came from the network (or
 * the command line) goes through `esc` before it is part of the page, in
 * text and in attribute values alike. Numbers are formatted here too.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe in HTML text and in a quoted attribute value; control characters are shown as U+FFFD. */
export function esc(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd');
}

/** A whole number with thousands separators (1,234). */
export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Milliseconds as seconds with three decimals ("1.003 s"), or ms below one second when `short`. */
export function secs(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/** A byte count in B, KB, MB (1000-based). */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  return `${(n / 1_000_000).toFixed(2)} MB`;
}

/** A wall time: "850 ms", "12.3 s", "4 min 05 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The class a status is coloured by: s2, s3, s4, s5, or s0 (no answer). */
export function statusClass(status: number): string {
  return status >= 200 && status < 600 ? `s${Math.floor(status / 100)}` : 's0';
}

/** At most `max` items of a list, and a line that says how many were cut. */
export function cut<T>(items: readonly T[], max: number): { shown: readonly T[]; more: string } {
  if (items.length <= max) return { shown: items, more: '' };
  return { shown: items.slice(0, max), more: `<p class="more">… and ${int(items.length - max)} more (${int(items.length)} in all)</p>` };
}
