/**
 * A page's title as the WACZ page list gives it (pages.jsonl): read from the
 * first 64 KiB of its HTML, by the archive as it records a page and by a
 * resumed crawl from the page files of its earlier runs.
 */

/** The HTML title in the first 64 KiB, whitespace collapsed; undefined when there is none. Decodes only the title's bytes. */
export function pageTitle(payload: Buffer): string | undefined {
  const head = payload.subarray(0, 65536);
  let at = head.indexOf('<title');
  if (at === -1) at = head.indexOf('<TITLE');
  if (at === -1) at = head.indexOf('<Title');
  if (at === -1) return undefined;
  const open = head.indexOf('>', at);
  const end = open === -1 ? -1 : head.indexOf('</', open);
  if (end === -1) return undefined;
  const title = head.toString('utf8', open + 1, end).replace(/\s+/g, ' ').trim();
  return title === '' ? undefined : title;
}
