/**
 * KeywordHunter's search: a case-sensitive substring of one body line
 * (lines end in "\n" or "\r\n"). The body is searched as bytes, so the
 * keyword is found in any encoding that writes it as UTF-8 or ASCII, and the
 * line is returned exactly as sent, without its line end.
 *
 * The keyword must lie inside one line: a keyword containing "\n" is never
 * found (the spec: "the keyword will always be on a single line"), and the
 * "\r" of a "\r\n" line end is not part of the line, so it cannot be matched.
 */

/** The first line of `body` containing `needle`, without its line end, or undefined. */
export function findLine(body: Buffer, needle: Buffer): Buffer | undefined {
  if (needle.length === 0 || needle.includes(0x0a)) return undefined;
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, at + 1)) {
    const start = body.lastIndexOf(0x0a, at) + 1;
    // The needle holds no "\n", so the line end (if any) comes after the match.
    const nl = body.indexOf(0x0a, at + needle.length);
    let end = nl === -1 ? body.length : nl;
    // "\r\n" ends a line too: the CR is part of the line end, not the line.
    if (nl !== -1 && end > start && body[end - 1] === 0x0d) end--;
    if (at + needle.length <= end) return body.subarray(start, end);
    // This match took the CR of the line end (a needle ending in "\r"): try the next one.
  }
  return undefined;
}
