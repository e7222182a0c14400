/**
 * Text that came from the network (hrefs, Location values, host names,
 * paths, header values) made safe for a terminal or a line-oriented log
 * (spec decision "Untrusted text on a terminal"): every character that could
 * break a line or drive a terminal is percent-encoded as UTF-8, so a hostile
 * page can never move the cursor, change colours or forge a line.
 */

// C0 controls, DEL, C1 controls, LINE and PARAGRAPH SEPARATOR: line breaks or terminal escapes for some reader.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function percentEncode(c: string): string {
  return Array.from(Buffer.from(c, 'utf8'), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/**
 * `text` with every character that could break a log line or drive a
 * terminal (C0, DEL, C1, U+2028, U+2029) percent-encoded as UTF-8 (`%0A`,
 * `%1B`, `%C2%85`). Everything else is left as it is.
 */
export function printable(text: string): string {
  if (text.search(UNPRINTABLE) === -1) return text;
  return text.replace(UNPRINTABLE, percentEncode);
}

/**
 * One message for stderr: `printable`, except that a line end closing the
 * text is kept. Every message a program writes to stderr passes through
 * this, at the one place where stderr is written (run-cli), so no message,
 * whatever it quotes, can carry a control character to the terminal.
 */
export function terminalText(text: string): string {
  return text.endsWith('\n') ? `${printable(text.slice(0, -1))}\n` : printable(text);
}
