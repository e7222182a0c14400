/**
 * A stylesheet's bytes as text, for readCssUrls (css-urls.ts): CSS Syntax
 * Level 3 §3.2 "The input byte stream", with the Encoding standard's
 * labels. No I/O.
 */
import { TextDecoder } from 'node:util';

/**
 * windows-1252's bytes 0x80-0x9F (the rest is latin1). Node 20's
 * TextDecoder reads windows-1252 as ISO-8859-1, which has C1 controls
 * there; the Encoding standard maps every latin1/iso-8859-1/ascii label to
 * windows-1252, so that is what a browser decodes.
 */
const WINDOWS_1252_80 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** A TextDecoder for an Encoding-standard label, or undefined when the label names none Node can decode ("failure"). */
function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label); // trims the label and ignores its case, as "get an encoding" does
  } catch {
    return undefined; // unknown labels, and "replacement" and x-user-defined, which Node lacks
  }
}

function decodeWith(decoder: TextDecoder, bytes: Buffer): string {
  if (decoder.encoding !== 'windows-1252') return decoder.decode(bytes);
  const s = bytes.toString('latin1');
  return /[\x80-\x9f]/.test(s) ? s.replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_80[c.charCodeAt(0) - 0x80]!) : s;
}

/** The label in a leading `@charset "label";`: exactly those bytes, in the first 1024. */
function charsetRule(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString('latin1');
  if (!head.startsWith('@charset "')) return undefined;
  const close = head.indexOf('"', 10);
  if (close < 0 || head.charCodeAt(close + 1) !== 0x3b /* ; */) return undefined;
  return head.slice(10, close);
}

/**
 * Decodes a stylesheet's bytes. The encoding, first that applies:
 * 1. a byte order mark (UTF-8, UTF-16BE, UTF-16LE), which is removed;
 * 2. `charset`, the protocol's label (the Content-Type charset parameter),
 *    when it names an encoding;
 * 3. a `@charset "label";` at the very start of the bytes (exactly that
 *    form, as the spec requires), when it names an encoding; a UTF-16 label
 *    there means UTF-8 (the rule's own bytes are ASCII, so they cannot be
 *    UTF-16);
 * 4. UTF-8. (The spec's step before this, the referring document's
 *    encoding, is not known here: a caller that knows it passes it as
 *    `charset` when the response has none.)
 * The protocol's label beating `@charset` is the spec's order. Labels are
 * the Encoding standard's (`latin1`, `iso-8859-1` and `us-ascii` all mean
 * windows-1252, decoded here by a table since Node's TextDecoder treats it
 * as ISO-8859-1). Invalid bytes become U+FFFD; never throws.
 */
export function decodeCss(body: Buffer, charset?: string): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return body.toString('utf8', 3);
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder('utf-16be').decode(body.subarray(2));
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder('utf-16le').decode(body.subarray(2));
  let decoder = charset === undefined ? undefined : decoderFor(charset);
  if (decoder === undefined) {
    const label = charsetRule(body);
    decoder = label === undefined ? undefined : decoderFor(label);
    if (decoder !== undefined && decoder.encoding.startsWith('utf-16')) decoder = undefined;
  }
  return decoder === undefined ? body.toString('utf8') : decodeWith(decoder, body);
}
