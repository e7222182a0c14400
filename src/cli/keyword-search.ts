/**
 * KeywordHunter's search: a case-sensitive substring of one body line
 * (lines end in "\n" or "\r\n"). The body is searched as bytes, so the
 * keyword is found in any encoding that writes it as UTF-8 or ASCII, and the
 * line is returned exactly as sent, without its line end.
 */

/** The first line of `body` containing `needle`, without its line end, or undefined. */
export function findLine(body: Buffer, needle: Buffer): Buffer | undefined {
  if (needle.length === 0) return undefined;
  const at = body.indexOf(needle);
  if (at === -1) return undefined;
  const start = body.lastIndexOf(0x0a, at) + 1;
  let end = body.indexOf(0x0a, at + needle.length);
  if (end === -1) end = body.length;
  // "\r\n" ends a line too: the CR is part of the line end, not the line.
  if (end > start && body[end - 1] === 0x0d && end < body.length) end--;
  return body.subarray(start, end);
}
