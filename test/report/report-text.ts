/** Reading a report file as text, for the tests: the addresses it refers to, and a figure of its summary. */
import assert from 'node:assert/strict';

/** Every http(s):// reference in `html` that is not on one of `origins` (the crawled hosts). */
export function foreignReferences(html: string, origins: readonly string[]): string[] {
  return [...html.matchAll(/https?:\/\/[^\s"'<>)]*/gi)].map((m) => m[0]).filter((ref) => !origins.some((o) => ref === o || ref.startsWith(`${o}/`)));
}

/** A figure of the summary, as the file shows it. */
export function figure(html: string, name: string): number {
  const m = new RegExp(`data-figure="${name}" data-value="([0-9.]+)"`).exec(html);
  assert.ok(m !== null, `figure ${name}`);
  return Number(m[1]);
}
