/**
 * The response parser against the nodejs/http-parser and nodejs/llhttp test
 * messages in test/fixtures/conformance/http-responses.json (see its README).
 * Skipped, with the reason printed, where that folder is absent.
 *
 * How each case is played:
 * - `raw` is UTF-8 encoded (the upstream sources are UTF-8 text), and fed as
 *   one chunk, in two pieces cut at every offset, and byte by byte: all three
 *   must agree. Then end() is called, as when the server closes.
 * - Accepted cases: status, reason, version, headers, trailers, body,
 *   keepAlive (against should_keep_alive) and completeness (complete after
 *   the bytes, only at the close, or cut short) are compared where the case
 *   gives them; a message cut short must still show its head (`head`).
 *   With several messages, the first is checked in full and the
 *   later ones are parsed from `extra`. Interim 1xx messages, which upstream
 *   reports separately and we skip, are dropped from the expected list.
 * - `notes` must be absent, except where an entry below expects them (a
 *   skipped line that is not a field).
 * - Header values are compared without surrounding OWS (RFC 9110 §5.5; the
 *   upstreams keep trailing OWS), and where the header section has obs-fold,
 *   with whitespace runs squeezed: we join a fold with one SP (RFC 9112 §5.2),
 *   the upstreams keep the fold's own whitespace.
 * - Rejected cases (`error` set) must make feed() throw something other than
 *   ERR_PREMATURE_CLOSE on the raw bytes exactly as given (the parser judges
 *   each line as it ends, and a bare CR or a bad status byte at once), unless
 *   LENIENT lists them with what we do instead.
 * - `request` cases (llhttp and http-parser header and framing tests of
 *   requests): the request line becomes the status line "HTTP/x.y 200 OK" with
 *   the request's own version, and the message is judged by the response
 *   framing rules (RFC 9112 §6.3): the header rules (fields, obs-fold,
 *   Content-Length syntax, chunked syntax) are the same for both. A request
 *   without Content-Length or chunked has no body, but such a response runs
 *   until the close; we expect that (body = the bytes after the header section,
 *   keepAlive false). RESPONSE_FRAMING lists the cases whose upstream verdict
 *   comes from a request-only rule.
 * - Lenient-mode upstream cases are decided one by one: LENIENT_AGREED lists
 *   those we accept the same (checked like any other), STRICTER those we
 *   reject on purpose, DEVIATIONS those we accept with a different answer; a
 *   lenient-mode case in none of them fails the test.
 * - DEVIATIONS: accepted cases where one answer differs on purpose (101; a
 *   line that is not a field, which we skip where upstream keeps it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseParser, type ParsedResponse, type ResponseHead, type ResponseParserOptions } from '../../src/http/response-parser.js';
import { CrawlerError } from '../../src/errors.js';
import { loadConformance } from '../helpers/conformance.js';

const FILE = 'http-responses.json';

type Pair = [string, string];

interface Message {
  status: number | null;
  headers: Pair[] | null;
  body: string | null;
  complete: boolean;
  should_keep_alive: boolean | null;
}

interface Case {
  name: string;
  kind: 'response' | 'request' | 'response-adapted';
  parser_mode: string;
  raw: string;
  status: number | null;
  reason: string | null;
  version: string | null;
  headers: Pair[] | null;
  trailers: Pair[] | null;
  body: string | null;
  should_keep_alive: boolean | null;
  message_complete_on_eof: boolean | null;
  message_complete?: boolean | null;
  chunked: boolean | null;
  error: string | null;
  messages?: Message[];
  upgrade?: string | null;
}

/** When the response is complete: after the bytes, only at the close, or never (ERR_PREMATURE_CLOSE at the close). */
type Ending = 'bytes' | 'close' | 'never';

interface Expected {
  ending: Ending;
  status?: number;
  reason?: string;
  version?: string;
  headers?: Pair[];
  trailers?: Pair[];
  body?: string;
  keepAlive?: boolean;
  framing?: ParsedResponse['framing'];
  /** Compare headers followed by trailers with `headers` (http-parser lists trailer fields with the headers). */
  merged?: boolean;
  /** `extra` must equal this. */
  extra?: string;
  /** Messages after the first, parsed from `extra`. */
  next?: Message[];
  /** Our `notes`; absent means none. */
  notes?: string[];
}

interface Allowed {
  why: string;
  /** Expect what upstream expects for this other case (the same message, read leniently by upstream). */
  like?: string;
  expect?: Partial<Expected>;
}

// A line that is not a field is skipped with a note (issue 12 §3: curl, wget and browsers skip it), where
// http-parser and lenient llhttp keep it as a field and strict llhttp rejects the message.
const IIS_LINE_SKIPPED: Partial<Expected> = {
  headers: [['Server', 'Microsoft-IIS/6.0'], ['X-Powered-By', 'ASP.NET'], ['Content-Type', 'text/xml'], ['Content-Length', '16'], ['Date', 'Fri, 23 Jul 2010 18:45:38 GMT'], ['Connection', 'keep-alive']],
  notes: ['skipped a header line that is not a field: "en-US Content-Type: text/xml"'],
};
// "Content-Length : 4" is no field either (RFC 9112 §5.1: no whitespace before the colon), so it frames nothing:
// the body runs until the close (lenient llhttp reads a Content-Length of 4). The connection is not reused.
const SPACED_CONTENT_LENGTH_SKIPPED: Partial<Expected> = {
  ending: 'close',
  framing: 'close',
  keepAlive: false,
  body: 'abcdefgh',
  headers: [['Connection', 'upgrade'], ['Upgrade', 'ws']],
  notes: ['skipped a header line that is not a field: "Content-Length : 4"'],
};

/**
 * Deliberate leniencies: upstream rejects these, we accept them, and this is
 * what we produce instead.
 */
const LENIENT: Record<string, Allowed> = {
  // Bytes after a complete "Connection: close" message: the message is sound, the client closes the connection and drops `extra`.
  'response/connection.md: Connection header > HTTP/1.1 with keep-alive disabled and 204 status': {
    why: 'data after a Connection: close message stays in `extra`; the client closes and drops it',
    like: 'response/connection.md: Connection header > HTTP/1.1 with keep-alive disabled and 204 status (lenient)',
    expect: { extra: 'HTTP/1.1 200 OK' },
  },
  'response/connection.md: Connection header > HTTP/1.1 with keep-alive disabled, content-length': {
    why: 'data after a Connection: close message stays in `extra`; the client closes and drops it',
    like: 'response/connection.md: Connection header > HTTP/1.1 with keep-alive disabled, content-length (lenient)',
    expect: { extra: '1e3-4dcd-4f70-b871-0ad284b29ffc' },
  },
  // Bare LF line ends: RFC 9112 §2.2 lets a recipient accept them; http-parser does, and real servers send them.
  'response/invalid.md: Invalid responses > Invalid space after start line > Only LFs present and no body': {
    why: 'bare LF line ends accepted (RFC 9112 §2.2)',
    like: 'response/invalid.md: Invalid responses > Invalid space after start line > Only LFs present and no body (lenient)',
  },
  'response/invalid.md: Invalid responses > Invalid space after start line > Only LFs present': {
    why: 'bare LF line ends accepted (RFC 9112 §2.2)',
    like: 'response/invalid.md: Invalid responses > Invalid space after start line > Only LFs present (lenient)',
  },
  'response/sample.md: Sample responses > No carriage ret': {
    why: 'bare LF line ends accepted (RFC 9112 §2.2); http-parser "no carriage ret" agrees',
    like: 'no carriage ret',
  },
  'request/sample.md: Sample requests > Line folding in header value with LF': {
    why: 'bare LF line ends accepted (RFC 9112 §2.2), here inside obs-fold; the same lines as the CRLF case',
    like: 'request/sample.md: Sample requests > Line folding in header value with CRLF',
  },
  'ADAPTED-TO-RESPONSE: request/sample.md: Sample requests > Line folding in header value with LF': {
    why: 'bare LF line ends accepted (RFC 9112 §2.2), here inside obs-fold; the same lines as the CRLF case',
    like: 'ADAPTED-TO-RESPONSE: request/sample.md: Sample requests > Line folding in header value with CRLF',
  },
  // Spaces after the chunk size: http-parser accepts, so do real servers' peers; the size itself is still strict hex.
  'response/transfer-encoding.md: Transfer-Encoding header > Trailing space on chunked body': {
    why: 'spaces after a chunk size tolerated (BWS), as real servers send them',
    like: '200 trailing space on chunked body',
  },
  'request/transfer-encoding.md: Transfer-Encoding header > Space after chunk header': {
    why: 'spaces after a chunk size tolerated (BWS), as real servers send them',
    like: 'request/transfer-encoding.md: Transfer-Encoding header > Space after chunk header (lenient)',
  },
  // Chunk extensions are ignored without being parsed (RFC 9112 §7.1.1 says to ignore unknown ones); the line still ends at its LF.
  'response/transfer-encoding.md: Transfer-Encoding header > No extension after semicolon': {
    why: 'chunk extensions are ignored unparsed; framing is unaffected',
    expect: { ending: 'bytes', status: 200, body: 'aa', framing: 'chunked', keepAlive: true },
  },
  'request/transfer-encoding.md: Transfer-Encoding header > `chunked` > No extension after semicolon': {
    why: 'chunk extensions are ignored unparsed; framing is unaffected',
    expect: { ending: 'bytes', status: 200, body: 'aa', framing: 'chunked', keepAlive: true },
  },
  'response/transfer-encoding.md: Transfer-Encoding header > Unbalanced chunk extensions quoting': {
    why: 'chunk extensions are ignored unparsed; the raw text ends before the last chunk is closed',
    expect: { ending: 'never' },
  },
  'request/transfer-encoding.md: Transfer-Encoding header > `chunked` > Unbalanced chunk extensions quoting': {
    why: 'chunk extensions are ignored unparsed; the raw text ends before the last chunk is closed',
    expect: { ending: 'never' },
  },
  // Lines that are not fields: skipped with a note, the page kept (issue 12 §3).
  'response/sample.md: Sample responses > Spaces in header name': {
    why: 'the IIS 6 line "en-US Content-Type: text/xml" is not a field (RFC 9110 §5.1): skipped with a note, the page kept, as browsers do',
    like: 'field space',
    expect: IIS_LINE_SKIPPED,
  },
  'request/content-length.md: Content-Length header > Invalid whitespace token with `Content-Length` header field': {
    why: '"Content-Length : 4" is not a field (RFC 9112 §5.1): skipped with a note, and never taken for framing',
    like: 'request/content-length.md: Content-Length header > Invalid whitespace token with `Content-Length` header field (lenient)',
    expect: SPACED_CONTENT_LENGTH_SKIPPED,
  },
};

/**
 * Request cases judged by a request-only rule (RFC 9112 §6.3): as responses,
 * Transfer-Encoding overrides Content-Length (rule 3) and a final coding
 * other than chunked means "read until close" (rule 4), where a request must
 * be rejected. We expect: body until the close, connection not reused.
 */
const RESPONSE_FRAMING: Record<string, string> = {
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `Transfer-Encoding` and `Content-Length`': 'TE identity + CL: TE wins (rule 3), read until close',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `Transfer-Encoding` and `Content-Length` (lenient)': 'TE identity + CL: TE wins (rule 3), read until close',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with empty `Transfer-Encoding` and `Content-Length` (lenient)': 'empty TE + CL: TE present wins (rule 3), read until close',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `chunked` before other transfer coding names': 'chunked not final: read until close (rule 4)',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `chunked` and duplicate transfer-encoding': 'chunked not final: read until close (rule 4)',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `chunked` before other transfer-coding (lenient)': 'chunked not final: read until close (rule 4)',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `chunked` and duplicate transfer-encoding (lenient)': 'chunked not final: read until close (rule 4)',
  'request/transfer-encoding.md: Transfer-Encoding header > POST with `chunkedchunked` as transfer-encoding': '"chunkedchunked" is not chunked: read until close (rule 4)',
  'request/transfer-encoding.md: Transfer-Encoding header > Invalid OBS fold after chunked value': 'folded TE "chunked abc" is not chunked: read until close (rule 4)',
  'request/content-length.md: Content-Length header > Error on simultaneous `Content-Length` and `Transfer-Encoding: identity`': 'TE identity + CL: TE wins (rule 3), read until close',
  'request/content-length.md: Content-Length header > No error on simultaneous `Content-Length` and `Transfer-Encoding: identity` (lenient)': 'TE identity + CL: TE wins (rule 3), read until close',
};

/** Upstream accepts (often only in a lenient mode); we reject on purpose. */
const STRICTER: Record<string, string> = {
  'response/invalid.md: Invalid responses > Incomplete HTTP protocol > Bare CR after response line (lenient)': 'bare CR is invalid (RFC 9112 §2.2)',
  'response/lenient-version.md: Lenient HTTP version parsing > Invalid HTTP version (lenient)': 'HTTP/5.6 cannot answer an HTTP/1.1 request',
  'response/sample.md: Sample responses > RTSP response': 'not HTTP: a crawler has no use for RTSP',
  'response/sample.md: Sample responses > ICE response': 'not HTTP: a crawler has no use for ICE',
  'request/transfer-encoding.md: Transfer-Encoding header > Invalid OBS fold after chunked value > Chunk header not terminated by CRLF (lenient)': 'bare CR is invalid (RFC 9112 §2.2)',
  'request/transfer-encoding.md: Transfer-Encoding header > Invalid OBS fold after chunked value > Chunk data not terminated by CRLF (lenient)': 'chunk data must end with CRLF (RFC 9112 §7.1)',
  'request/content-length.md: Content-Length header > Missing CRLF-CRLF before body (lenient)': 'bare CR is invalid (RFC 9112 §2.2)',
};

/** Upstream and we both accept, but we differ in one answer on purpose. */
const DEVIATIONS: Record<string, Allowed> = {
  'HTTP 101 response with Upgrade header': { why: 'after a 101 the connection is another protocol\'s: not reusable', expect: { keepAlive: false } },
  'HTTP 101 response with Upgrade and Content-Length header': {
    why: 'a 101 has no body (RFC 9110 §15.2.2, as llhttp): the rest is `extra`; not reusable',
    expect: { keepAlive: false, body: '', extra: 'bodyproto' },
  },
  'HTTP 101 response with Upgrade and Transfer-Encoding header': {
    why: 'a 101 has no body (RFC 9110 §15.2.2, as llhttp): the rest is `extra`; not reusable',
    expect: { keepAlive: false, body: '', extra: '2\r\nbo\r\n2\r\ndy\r\n0\r\n\r\nproto' },
  },
  'response/connection.md: Connection header > HTTP 101 response with Upgrade and Content-Length header': {
    why: 'after a 101 the connection is another protocol\'s: not reusable',
    expect: { keepAlive: false, extra: 'bodyproto' },
  },
  'response/connection.md: Connection header > HTTP 101 response with Upgrade and Transfer-Encoding header': {
    why: 'after a 101 the connection is another protocol\'s: not reusable',
    expect: { keepAlive: false, extra: '2\r\nbo\r\n2\r\ndy\r\n0\r\n\r\nproto' },
  },
  'field space': {
    why: 'http-parser keeps "en-US Content-Type" as a field; it is not a token (RFC 9110 §5.1), so we skip the line with a note and keep the page',
    expect: IIS_LINE_SKIPPED,
  },
  'request/content-length.md: Content-Length header > Invalid whitespace token with `Content-Length` header field (lenient)': {
    why: 'lenient llhttp reads "Content-Length : 4" as a Content-Length; we skip it (RFC 9112 §5.1) and read until the close, without reuse',
    expect: SPACED_CONTENT_LENGTH_SKIPPED,
  },
};

/**
 * Cases upstream accepts only in a lenient mode, where we accept the same
 * (and check them like any other case). Every such case is in this list, in
 * STRICTER or in RESPONSE_FRAMING: the test below fails on one left out.
 */
const LENIENT_AGREED: Record<string, string> = {
  'response/connection.md: Connection header > HTTP/1.1 with keep-alive disabled, content-length (lenient)': 'bytes after a complete message go to `extra`',
  'response/connection.md: Connection header > HTTP/1.1 with keep-alive disabled and 204 status (lenient)': 'bytes after a complete message go to `extra`',
  'response/invalid.md: Invalid responses > Invalid space after start line > Only LFs present and no body (lenient)': 'bare LF line ends (RFC 9112 §2.2)',
  'response/invalid.md: Invalid responses > Invalid space after start line > Only LFs present (lenient)': 'bare LF line ends (RFC 9112 §2.2)',
  'response/sample.md: Sample responses > No carriage ret (lenient)': 'bare LF line ends (RFC 9112 §2.2)',
  'response/transfer-encoding.md: Transfer-Encoding header > Invalid OBS fold after chunked value': 'obs-fold is joined (RFC 9112 §5.2); "chunked abc" is not chunked, so the body runs to the close',
  'request/sample.md: Sample requests > Line folding in header value with CRLF': 'obs-fold is joined (RFC 9112 §5.2): a user agent may accept it in a response',
  'request/transfer-encoding.md: Transfer-Encoding header > Space after chunk header (lenient)': 'spaces after a chunk size tolerated',
  'request/connection.md: Connection header > Parsing multiple tokens > Multiple tokens with folding': 'obs-fold is joined (RFC 9112 §5.2)',
  'request/connection.md: Connection header > Parsing multiple tokens > Multiple tokens with folding, LWS, and CRLF': 'obs-fold is joined (RFC 9112 §5.2)',
  'ADAPTED-TO-RESPONSE: request/sample.md: Sample requests > Line folding in header value with CRLF': 'obs-fold is joined (RFC 9112 §5.2)',
  'ADAPTED-TO-RESPONSE: request/connection.md: Connection header > Parsing multiple tokens > Multiple tokens with folding': 'obs-fold is joined (RFC 9112 §5.2)',
  'ADAPTED-TO-RESPONSE: request/connection.md: Connection header > Parsing multiple tokens > Multiple tokens with folding, LWS, and CRLF': 'obs-fold is joined (RFC 9112 §5.2)',
};

/** llhttp plays these with `skipBody` (the parser is told no body follows, as after HEAD): our headRequest. */
const SKIP_BODY = new Set([
  'response/content-length.md: Content-Length header > Content-Length reset when no body is received',
  'request/content-length.md: Content-Length header > Content-Length reset when no body is received',
]);

// ---------------------------------------------------------------- playing a case

type Outcome =
  | { error: string }
  | { error?: undefined; doneAfterBytes: boolean; closeError: string | undefined; head: ResponseHead | undefined; response: ParsedResponse | undefined; extra: Buffer };

function codeOf(err: unknown): string {
  if (err instanceof CrawlerError) return err.code;
  throw err;
}

function play(pieces: Buffer[], options: ResponseParserOptions): Outcome {
  const p = new ResponseParser(options);
  try {
    for (const piece of pieces) p.feed(piece);
  } catch (err) {
    return { error: codeOf(err) };
  }
  const doneAfterBytes = p.done;
  let closeError: string | undefined;
  try {
    p.end();
  } catch (err) {
    closeError = codeOf(err);
  }
  return { doneAfterBytes, closeError, head: p.head, response: p.response, extra: p.extra };
}

/** One chunk, every two-piece cut, byte by byte: the same outcome. */
function playEveryWay(raw: Buffer, options: ResponseParserOptions): Outcome {
  const whole = play([raw], options);
  for (let i = 1; i < raw.length; i++) {
    assert.deepStrictEqual(play([raw.subarray(0, i), raw.subarray(i)], options), whole, `split at byte ${i} differs from one chunk`);
  }
  const single: Buffer[] = [];
  for (let i = 0; i < raw.length; i++) single.push(raw.subarray(i, i + 1));
  assert.deepStrictEqual(play(single, options), whole, 'byte by byte differs from one chunk');
  return whole;
}

const REQUEST_LINE = /^[A-Z]+ [^ \r\n]+ (HTTP\/[0-9]\.[0-9])(?=\r?\n)/;

/** A request's start line as a status line with the same version. */
function asResponse(text: string): string {
  assert.match(text, REQUEST_LINE, 'a request case starts with a request line');
  return text.replace(REQUEST_LINE, '$1 200 OK');
}

function wireText(c: Case): string {
  return c.kind === 'request' ? asResponse(c.raw) : c.raw;
}

/** Offset just past the empty line that ends the header section, or -1. */
function headerEnd(text: string): number {
  const crlf = text.indexOf('\r\n\r\n');
  const lf = text.indexOf('\n\n');
  const ends = [crlf === -1 ? Infinity : crlf + 4, lf === -1 ? Infinity : lf + 2];
  const first = Math.min(...ends);
  return first === Infinity ? -1 : first;
}

function isInterim(status: number | null): boolean {
  return status !== null && status >= 100 && status < 200 && status !== 101;
}

function hasField(headers: Pair[] | null, name: string): boolean {
  return (headers ?? []).some(([n]) => n.toLowerCase() === name);
}

/** What upstream's answers for `c` mean for our parser, reading `text` (this case's wire text). */
function expectedOf(c: Case, text: string): Expected {
  const messages = (c.messages ?? []).filter((m) => !isInterim(m.status));
  const topIsFirst = c.messages === undefined || !isInterim(c.messages[0]?.status ?? null);
  const first = messages[0];
  const e: Expected = { ending: 'bytes' };
  // A rejected case's field list stops where upstream stopped: not an expectation.
  const headers = first?.headers ?? c.headers;
  if (headers !== null && c.error === null) e.headers = headers;
  if (c.kind === 'request') {
    e.status = 200;
    e.reason = 'OK';
    if (c.version !== null) e.version = c.version;
    // http-parser reports trailer fields in the header list; llhttp apart.
    if (c.parser_mode === 'http-parser request') e.merged = true;
    else if (c.trailers !== null) e.trailers = c.trailers;
    const closeDelimited = c.name in RESPONSE_FRAMING || (c.chunked !== true && !hasField(c.headers, 'content-length'));
    if (closeDelimited && !SKIP_BODY.has(c.name)) {
      e.ending = 'close';
      e.framing = 'close';
      e.keepAlive = false;
      e.body = text.slice(headerEnd(text));
      return e;
    }
  } else {
    const status = first?.status ?? c.status;
    if (status !== null) e.status = status;
    if (topIsFirst) {
      if (c.reason !== null) e.reason = c.reason;
      if (c.version !== null) e.version = c.version;
      if (c.trailers !== null) e.trailers = c.trailers;
      if (c.upgrade !== undefined && c.upgrade !== null) e.extra = c.upgrade;
    }
  }
  const body = first?.body ?? c.body;
  if (body !== null) e.body = body;
  const keepAlive = first?.should_keep_alive ?? c.should_keep_alive;
  if (keepAlive !== null) e.keepAlive = keepAlive;
  if (first !== undefined) e.ending = first.complete ? 'bytes' : 'never';
  else if (c.message_complete_on_eof === true) e.ending = 'close';
  else if (c.message_complete === false) e.ending = 'never';
  if (messages.length > 1) e.next = messages.slice(1);
  return e;
}

/** Our latin1 strings as the UTF-8 text the case was written in. */
function utf8(s: string): string {
  return Buffer.from(s, 'latin1').toString('utf8');
}

function trimOws(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Upstream's values without surrounding OWS; with obs-fold in play, whitespace runs squeezed on both sides. */
function expectedFields(fields: readonly Pair[], folded: boolean): Pair[] {
  return fields.map(([n, v]) => [n, folded ? squeeze(v) : trimOws(v)]);
}

function squeeze(v: string): string {
  return trimOws(v).replace(/[ \t]+/g, ' ');
}

function ours(fields: readonly Pair[], folded: boolean): Pair[] {
  return fields.map(([n, v]) => [utf8(n), folded ? squeeze(utf8(v)) : utf8(v)]);
}

/** Compares a response, or only a head (no body or trailers yet) when the message is cut short. */
function checkResponse(r: ResponseHead & Partial<ParsedResponse>, e: Expected, folded: boolean, what: string): void {
  if (e.status !== undefined) assert.equal(r.status, e.status, `${what}: status`);
  if (e.reason !== undefined) assert.equal(utf8(r.reason), e.reason, `${what}: reason`);
  if (e.version !== undefined) assert.equal(r.version, e.version, `${what}: version`);
  const fields = e.merged === true ? [...r.headers, ...(r.trailers ?? [])] : r.headers;
  if (e.headers !== undefined) assert.deepStrictEqual(ours(fields, folded), expectedFields(e.headers, folded), `${what}: headers`);
  if (r.trailers !== undefined && e.trailers !== undefined) assert.deepStrictEqual(ours(r.trailers, folded), expectedFields(e.trailers, folded), `${what}: trailers`);
  if (r.body !== undefined && e.body !== undefined) assert.deepStrictEqual(r.body, Buffer.from(e.body, 'utf8'), `${what}: body`);
  if (e.keepAlive !== undefined) assert.equal(r.keepAlive, e.keepAlive, `${what}: keepAlive`);
  if (e.framing !== undefined) assert.equal(r.framing, e.framing, `${what}: framing`);
  assert.deepStrictEqual(r.notes, e.notes, `${what}: notes`);
}

function check(c: Case, text: string, e: Expected, options: ResponseParserOptions): void {
  const raw = Buffer.from(text, 'utf8');
  const end = headerEnd(text);
  const folded = /\n[ \t]/.test(end === -1 ? text : text.slice(0, end));
  const out = playEveryWay(raw, options);
  assert.equal(out.error, undefined, `rejected with ${out.error}`);
  if (out.error !== undefined) return;
  if (e.ending === 'never') {
    assert.equal(out.doneAfterBytes, false, 'complete, but the message is cut short');
    assert.equal(out.closeError, 'ERR_PREMATURE_CLOSE', 'a close inside the message must be ERR_PREMATURE_CLOSE');
    // Upstream saw the whole header section: so must we, with the same fields.
    if (e.headers !== undefined) {
      assert.ok(out.head !== undefined, 'the header section is complete, but no head');
      checkResponse(out.head, e, folded, 'head of the cut message');
    }
    return;
  }
  assert.equal(out.doneAfterBytes, e.ending === 'bytes', e.ending === 'bytes' ? 'not complete after its bytes' : 'complete before the close');
  assert.equal(out.closeError, undefined, `close failed with ${out.closeError}`);
  assert.ok(out.response !== undefined);
  checkResponse(out.response, e, folded, 'message 1');
  if (e.extra !== undefined) assert.equal(out.extra.toString('utf8'), e.extra, 'extra');
  // Later messages, each from what the one before left in `extra`.
  let rest = out.extra;
  (e.next ?? []).forEach((m, i) => {
    const what = `message ${i + 2}`;
    const p = new ResponseParser(options);
    p.feed(c.kind === 'request' ? Buffer.from(asResponse(rest.toString('latin1')), 'latin1') : rest);
    assert.equal(p.done, m.complete, `${what}: complete`);
    if (!m.complete) {
      // Cut short: without a status line upstream saw nothing; with one, its head must match.
      if (m.status === null) assert.equal(p.statusReceived, false, `${what}: no status line expected`);
      else {
        assert.ok(p.head !== undefined, `${what}: no head`);
        checkResponse(p.head, { ending: 'never', status: m.status, ...(m.headers === null ? {} : { headers: m.headers }) }, false, what);
      }
      return;
    }
    assert.ok(p.response !== undefined);
    const next: Expected = { ending: 'bytes' };
    if (m.status !== null) next.status = m.status;
    if (m.headers !== null) next.headers = m.headers;
    if (m.body !== null) next.body = m.body;
    if (m.should_keep_alive !== null) next.keepAlive = m.should_keep_alive;
    checkResponse(p.response, next, false, what);
    rest = p.extra;
  });
}

function assertRejected(text: string, options: ResponseParserOptions): void {
  const out = playEveryWay(Buffer.from(text, 'utf8'), options);
  assert.ok(out.error !== undefined && out.error !== 'ERR_PREMATURE_CLOSE', `accepted: ${out.error ?? (out.doneAfterBytes ? 'complete' : `incomplete, close gives ${out.closeError ?? 'a response'}`)}`);
}

// ---------------------------------------------------------------- the cases

const cases = loadConformance<Case[]>(FILE);

const byName = new Map(cases.map((c) => [c.name, c]));

test('conformance: every listed case exists and is of the kind its list says', () => {
  assert.ok(cases.length >= 160, `only ${cases.length} cases`);
  for (const [name, a] of Object.entries(LENIENT)) {
    assert.notEqual(byName.get(name)?.error ?? null, null, `LENIENT ${name}: not a rejected case`);
    if (a.like !== undefined) assert.equal(byName.get(a.like)?.error, null, `LENIENT ${name}: like ${a.like} is not an accepted case`);
    assert.ok(a.like !== undefined || a.expect?.ending !== undefined, `LENIENT ${name}: says nothing about what we do`);
  }
  for (const name of [...Object.keys(STRICTER), ...Object.keys(DEVIATIONS)]) assert.equal(byName.get(name)?.error, null, `${name}: not an accepted case`);
  for (const name of Object.keys(RESPONSE_FRAMING)) assert.equal(byName.get(name)?.kind, 'request', `RESPONSE_FRAMING ${name}: not a request case`);
  for (const name of SKIP_BODY) assert.ok(byName.has(name), `SKIP_BODY ${name}: no such case`);
  for (const name of Object.keys(LENIENT_AGREED)) assert.match(byName.get(name)?.parser_mode ?? '', /lenient/, `LENIENT_AGREED ${name}: not a lenient-mode case`);
  // Every case upstream accepts only in a lenient mode has a decision written down.
  for (const c of cases) {
    if (!c.parser_mode.includes('lenient') || c.error !== null) continue;
    const lists = [LENIENT_AGREED, STRICTER, RESPONSE_FRAMING, DEVIATIONS].filter((l) => c.name in l).length;
    assert.equal(lists, 1, `lenient-mode case ${c.name}: in ${lists} of LENIENT_AGREED, STRICTER, RESPONSE_FRAMING, DEVIATIONS`);
  }
});

cases.forEach((c, i) => {
  test(`conformance #${i} ${c.kind}: ${c.name}`, () => {
    const text = wireText(c);
    const options: ResponseParserOptions = { headRequest: SKIP_BODY.has(c.name) };
    const lenient = LENIENT[c.name];
    const deviation = DEVIATIONS[c.name];
    if (c.name in STRICTER) {
      assertRejected(text, options);
    } else if (lenient !== undefined) {
      const twin = lenient.like === undefined ? undefined : byName.get(lenient.like);
      const base: Expected = twin === undefined ? { ending: 'bytes' } : expectedOf(twin, text);
      check(c, text, { ...base, ...lenient.expect }, options);
    } else if (c.error !== null && !(c.name in RESPONSE_FRAMING)) {
      assertRejected(text, options);
    } else {
      check(c, text, { ...expectedOf(c, text), ...deviation?.expect }, options);
    }
  });
});
