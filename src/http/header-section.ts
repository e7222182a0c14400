/**
 * The line-by-line reading of a response's field sections, for
 * ResponseParser: the status line (RFC 9112 §4), the header lines up to the
 * blank line (§5), interim 1xx responses before the final one (RFC 9110
 * §15.2), and the trailer lines after a chunked body (§7.1.2). It is given
 * whole lines, latin1-decoded with the line end removed; the parser keeps
 * the bytes, the caps and the states, and asks here what a line means.
 *
 * A header or trailer line that cannot be a field (no colon, or a name that
 * is not a token, such as IIS 6's "en-US Content-Type: text/xml") is skipped
 * with a note in `notes`, as curl, wget and browsers skip it; the response
 * parser's leniency where the upstream parsers disagree (see
 * response-parser.ts). A skipped line never frames a body, not even
 * "Content-Length : 4" (whitespace before the colon, RFC 9112 §5.1), a
 * classic framing trick; since a proxy would read that one as a
 * Content-Length, the connection is not reused after it (see addFieldLine
 * and namesFramingField in header-lines.ts).
 */
import { SKIPPED, addFieldLine, badResponse, decideFraming, excerpt, isName, namesFramingField, parseContentLength, type Field } from './header-lines.js';
import { parseStatusLine } from './line-syntax.js';
import type { ResponseHead } from './parsed-response.js';

/** Notes kept per response; one more says that the rest were not kept. */
const MAX_NOTES = 10;

/** One response's status line, fields, trailers and notes, as their lines arrive. */
export class HeaderSection {
  /** A (final or interim) status line was parsed. */
  gotStatus = false;
  /** The final response's trailer fields, [] when none. */
  trailers: Field[] = [];
  /** What was tolerated (see ParsedResponse.notes); undefined until there is something. */
  notes: string[] | undefined;
  /** The Content-Length of the final response once `endOfHead` has returned its head (0 for none). */
  bodyLength = 0;
  private major = 0;
  private minor = 0;
  private status = 0;
  private reason = '';
  private fields: Field[] = [];
  /** The value of the first Content-Length field, -1 before one. */
  private firstLength = -1;
  /** The last header or trailer line was skipped: an obs-fold continuation of it is skipped too. */
  private skipping = false;
  /** A skipped header line named a framing field ("Content-Length : 5"): the connection is not reused. */
  private framingInDoubt = false;

  /** A line of a field section starts with SP or HTAB: no field may start so (RFC 9112 §2.2), only a continuation of one (or of a skipped line). */
  leadingWhitespace(trailer: boolean): void {
    if (!this.skipping && (trailer ? this.trailers : this.fields).length === 0) throw badResponse('whitespace before the first field line');
  }

  statusLine(s: string): void {
    const line = parseStatusLine(s);
    this.major = line.major;
    this.minor = line.minor;
    this.status = line.status;
    this.reason = line.reason;
    this.gotStatus = true;
  }

  headerLine(s: string): void {
    const i = this.addLine(this.fields, s, true);
    if (i === SKIPPED) return;
    const field = this.fields[i] as Field;
    // Reject a bad Content-Length (RFC 9110 §8.6) as soon as its line arrives; endOfHead
    // reads the final values again. An empty value waits: an obs-fold line may still give it
    // its digits ("Content-Length:" then " 6"); a fold cannot make a non-empty invalid value valid.
    if (isName(field[0], 'content-length') && field[1] !== '') {
      const n = parseContentLength(field[1]);
      if (this.firstLength !== -1 && n !== this.firstLength) throw badResponse('conflicting Content-Length fields');
      this.firstLength = n;
    }
  }

  trailerLine(s: string): void {
    this.addLine(this.trailers, s, false);
  }

  /**
   * The blank line after the header lines. An interim response gives
   * undefined: its fields are dropped (they frame nothing), its notes kept
   * (they tell what the server sent), and the next status line is awaited.
   * The final response gives its head, and its Content-Length in `bodyLength`.
   */
  endOfHead(headRequest: boolean): ResponseHead | undefined {
    const status = this.status;
    this.skipping = false;
    if (status < 200 && status !== 101) {
      this.fields = [];
      this.firstLength = -1;
      this.framingInDoubt = false;
      return undefined;
    }
    const { framing, length, keepAlive } = decideFraming(this.fields, status, this.major, this.minor, headRequest);
    this.bodyLength = length;
    return {
      version: `${this.major}.${this.minor}`,
      status,
      reason: this.reason,
      headers: this.fields,
      keepAlive: keepAlive && !this.framingInDoubt,
      framing,
      notes: this.notes,
    };
  }

  /** Adds a header or trailer line to `fields`; one that cannot be a field is skipped with a note. Returns addFieldLine's answer. */
  private addLine(fields: Field[], s: string, header: boolean): number {
    const i = addFieldLine(fields, s, this.skipping);
    this.skipping = i === SKIPPED;
    if (i === SKIPPED) {
      if (header && namesFramingField(s)) this.framingInDoubt = true;
      const notes = (this.notes ??= []);
      if (notes.length < MAX_NOTES) notes.push(`skipped a ${header ? 'header' : 'trailer'} line that is not a field: ${excerpt(s)}`);
      else if (notes.length === MAX_NOTES) notes.push(`skipped more lines that are not fields (only the first ${MAX_NOTES} are noted)`);
    }
    return i;
  }
}
