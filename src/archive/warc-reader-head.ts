/**
 * The header of one WARC record (ISO 28500:2017 §4): the version line, then
 * named fields, one a line, a line that starts with a space or a tab going on
 * with the field before it. Field names are case-insensitive; values are
 * UTF-8 (WARC 1.1 §4).
 */

/** A parsed WARC record header. */
export interface WarcHead {
  /** `WARC/1.1` or `WARC/1.0`. */
  version: string;
  /** The fields in order, names as written, values trimmed. */
  fields: readonly (readonly [string, string])[];
  /** WARC-Type, lower-cased (`response`, `revisit`, ...); '' when absent. */
  type: string;
  /** The block's Content-Length. */
  contentLength: number;
}

/** The first value of field `name` (case-insensitive) in `head`, or undefined. */
export function warcField(head: WarcHead, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [n, v] of head.fields) if (n.toLowerCase() === want) return v;
  return undefined;
}

/**
 * Parses `bytes`: the header from the version line through the CRLF of its
 * last field (the empty line not included). Returns what is wrong, as a
 * phrase, when it breaks the rules.
 */
export function parseWarcHead(bytes: Uint8Array): WarcHead | string {
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').split('\r\n');
  if (lines.at(-1) === '') lines.pop();
  const version = lines[0] ?? '';
  if (!/^WARC\/1\.[01]$/.test(version)) return `no WARC/1.0 or WARC/1.1 version line (found ${JSON.stringify(version.slice(0, 20))})`;
  const fields: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const last = fields.at(-1);
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== undefined) {
      last[1] = `${last[1]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) return `a WARC header line that is not a field (${JSON.stringify(line.slice(0, 40))})`;
    fields.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
  }
  const head: WarcHead = { version, fields, type: '', contentLength: 0 };
  const length = warcField(head, 'Content-Length');
  if (length === undefined || !/^[0-9]{1,15}$/.test(length)) return 'no valid Content-Length';
  head.contentLength = Number(length);
  head.type = (warcField(head, 'WARC-Type') ?? '').toLowerCase();
  return head;
}
