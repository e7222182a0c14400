/**
 * The HTTP/1.1 response push parser, section by section of RFC 9112 (and RFC
 * 9110 where it decides). Every message is fed three ways: as one chunk,
 * split in two at every byte offset, and one byte at a time; all must give
 * the same response, or fail with the same error code, because TCP may cut
 * a response anywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseParser, headerValue, headerValues, type ParsedResponse, type ResponseParserOptions } from '../../src/http/response-parser.js';
import { CrawlerError, type ErrorCode } from '../../src/errors.js';

type Outcome =
  | { ok: true; done: boolean; response: ParsedResponse | undefined; extra: Buffer; statusReceived: boolean }
  | { ok: false; code: ErrorCode };

interface Feed {
  parser?: ResponseParserOptions;
  /** Call end() after the last byte, as when the server closes. */
  end?: boolean;
}

/** Wire bytes: strings are latin1, one char per byte, so "\xff" is the byte 0xFF. */
function bytes(raw: string | Buffer): Buffer {
  return typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw;
}

function play(pieces: Buffer[], feed: Feed): Outcome {
  const p = new ResponseParser(feed.parser);
  try {
    for (const piece of pieces) p.feed(piece);
    if (feed.end === true) p.end();
  } catch (err) {
    if (!(err instanceof CrawlerError)) throw err;
    return { ok: false, code: err.code };
  }
  return { ok: true, done: p.done, response: p.response, extra: p.extra, statusReceived: p.statusReceived };
}

/** Feeds `raw` as one chunk, in two pieces cut at every offset, and byte by byte; asserts one outcome. */
function parseEveryWay(raw: string | Buffer, feed: Feed = {}): Outcome {
  const b = bytes(raw);
  const whole = play([b], feed);
  for (let i = 1; i < b.length; i++) {
    assert.deepStrictEqual(play([b.subarray(0, i), b.subarray(i)], feed), whole, `split at byte ${i}: outcome differs from one chunk`);
  }
  const single: Buffer[] = [];
  for (let i = 0; i < b.length; i++) single.push(b.subarray(i, i + 1));
  assert.deepStrictEqual(play(single, feed), whole, 'one byte at a time: outcome differs from one chunk');
  return whole;
}

/** The complete response (every way), with what followed it. */
function parsed(raw: string | Buffer, feed: Feed = {}): ParsedResponse & { extra: Buffer } {
  const out = parseEveryWay(raw, feed);
  assert.ok(out.ok, `expected a response, got ${out.ok ? '' : out.code}`);
  assert.ok(out.done && out.response !== undefined, 'the response is not complete');
  return { ...out.response, extra: out.extra };
}

/** Not complete yet (every way), and no error. */
function unfinished(raw: string | Buffer, feed: Feed = {}): void {
  const out = parseEveryWay(raw, feed);
  assert.ok(out.ok, `unexpected ${out.ok ? '' : out.code}`);
  assert.equal(out.done, false, 'the response must not be complete yet');
}

/** Rejected with `code` (every way). */
function rejected(raw: string | Buffer, code: ErrorCode, feed: Feed = {}): void {
  const out = parseEveryWay(raw, feed);
  assert.deepStrictEqual(out.ok ? 'accepted' : out.code, code);
}

function text(r: ParsedResponse): string {
  return r.body.toString('latin1');
}

const isCode =
  (code: ErrorCode, message?: RegExp) =>
  (e: unknown): boolean =>
    e instanceof CrawlerError && e.code === code && (message === undefined || message.test(e.message));

// ---------------------------------------------------------------- §4 status line

test('RFC 9112 §4 status line: version, status code and reason phrase are read', () => {
  const r = parsed('HTTP/1.1 404 Not Found Here\r\nContent-Length: 0\r\n\r\n');
  assert.equal(r.version, '1.1');
  assert.equal(r.status, 404);
  assert.equal(r.reason, 'Not Found Here');
  assert.deepStrictEqual(r.headers, [['Content-Length', '0']]);
});

test('RFC 9112 §4 status line: an empty or missing reason phrase is accepted', () => {
  assert.equal(parsed('HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n').reason, '');
  const r = parsed('HTTP/1.1 301\r\nContent-Length: 0\r\n\r\n');
  assert.equal(r.status, 301);
  assert.equal(r.reason, '');
});

test('RFC 9112 §4 status line: malformed status lines are rejected', () => {
  for (const line of ['HTTP/1.1  200 OK', 'HTTP/1.1 20 OK', 'HTTP/1.1 2000 OK', 'HTTP/1.1\t200 OK', 'HTTP/01.1 200 OK', 'HTTP/1.10 200 OK', 'http/1.1 200 OK', 'HTTP/1.1 abc OK', 'HTTP/1.1']) {
    rejected(`${line}\r\nContent-Length: 0\r\n\r\n`, 'ERR_BAD_RESPONSE');
  }
});

test('RFC 9112 §4 status line: garbage is rejected within its first 13 bytes ("HTTP/d.d ddd "), not at the 64 KiB header cap', () => {
  for (const garbage of ['<!DOCTYPE html>', 'SSH-2.0-OpenSSH_9.6', '\x16\x03\x01\x02\x00\x01', 'ICY 200 OK', 'HTTPS/1.1 200 OK', 'HTTP/x.1 200', 'HTTP/1.1 OK', 'HTTP/1.1\t200 OK', 'HTTP/1.1 2000', '\rHTTP/1.1 200 OK']) {
    const p = new ResponseParser();
    const wire = bytes(garbage + 'x'.repeat(70 * 1024));
    let fed = 0;
    assert.throws(
      () => {
        for (; fed < wire.length; fed++) p.feed(wire.subarray(fed, fed + 1));
      },
      isCode('ERR_BAD_RESPONSE'),
      JSON.stringify(garbage),
    );
    assert.ok(fed < 13, `${JSON.stringify(garbage)} rejected only after ${fed + 1} bytes`);
    // In one 70 KiB chunk without any LF it is the same error, not the header cap.
    assert.throws(() => new ResponseParser().feed(wire), isCode('ERR_BAD_RESPONSE'));
  }
});

test('RFC 9110 §2.5: HTTP/1.x with a higher minor version is read as HTTP/1.1; other major versions are rejected', () => {
  const r = parsed('HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nok');
  assert.equal(r.version, '1.2');
  assert.equal(r.keepAlive, true);
  rejected('HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
  rejected('HTTP/5.6 200 OK\r\nContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
});

test('RFC 9112 §2.2: up to four empty lines before the status line are skipped, more are rejected', () => {
  assert.equal(text(parsed('\r\n\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')), 'ok');
  rejected('\r\n\r\n\r\n\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 'ERR_BAD_RESPONSE');
});

// ---------------------------------------------------------------- §2.2 line ends

test('RFC 9112 §2.2 message parsing: bare LF line ends are accepted throughout', () => {
  const r = parsed('HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\nok');
  assert.deepStrictEqual(r.headers, [['Content-Type', 'text/plain'], ['Content-Length', '2']]);
  assert.equal(text(r), 'ok');
  const c = parsed('HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n1\n!\n0\nX-T: 1\n\n');
  assert.equal(text(c), 'ok!');
  assert.deepStrictEqual(c.trailers, [['X-T', '1']]);
});

test('RFC 9112 §2.2 message parsing: a bare CR is rejected wherever a line is read', () => {
  rejected('HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nFoo: 1\rBar: 2\r\nContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\rabc', 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\r;x\r\nhello\r\n0\r\n\r\n', 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\rb\r\n\r\n', 'ERR_BAD_RESPONSE');
});

test('RFC 9112 §2.2 message parsing: whitespace before the first header line is rejected', () => {
  rejected('HTTP/1.1 200 OK\r\n Host: foo\r\nContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
  // ...even before its line end arrives
  rejected('HTTP/1.1 200 OK\r\n Host: foo', 'ERR_BAD_RESPONSE');
});

// ---------------------------------------------------------------- §5 field syntax

test('RFC 9112 §5.1 field line: names as sent, values without surrounding OWS, empty values kept', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nX-A:  a b  \r\nx-b:\tc\t\r\nX-Empty:\r\nX-Sp: \r\nContent-Length: 0\r\n\r\n');
  assert.deepStrictEqual(r.headers, [['X-A', 'a b'], ['x-b', 'c'], ['X-Empty', ''], ['X-Sp', ''], ['Content-Length', '0']]);
  assert.equal(headerValue(r.headers, 'X-B'), 'c');
});

test('RFC 9110 §5.5 field value: a NUL in the value of a field is rejected', () => {
  rejected('HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
});

// Lines that cannot be fields are skipped, as curl, wget and browsers skip them (issue 12 §3); each leaves a note.
const NOT_A_FIELD = 'skipped a header line that is not a field: ';

test('RFC 9110 §5.1 field name: IIS 6\'s "en-US Content-Type: text/xml" is skipped with a note; the page and the connection are kept', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nServer: Microsoft-IIS/6.0\r\nen-US Content-Type: text/xml\r\nContent-Type: text/xml\r\nContent-Length: 16\r\n\r\n<xml>hello</xml>');
  assert.deepStrictEqual(r.headers, [['Server', 'Microsoft-IIS/6.0'], ['Content-Type', 'text/xml'], ['Content-Length', '16']]);
  assert.equal(text(r), '<xml>hello</xml>');
  assert.equal(r.framing, 'length');
  assert.equal(r.keepAlive, true);
  assert.deepStrictEqual(r.notes, [`${NOT_A_FIELD}"en-US Content-Type: text/xml"`]);
  // nothing skipped, no notes: no array is made
  assert.equal(parsed('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').notes, undefined);
});

test('RFC 9112 §5.1 field line: a line without a colon, with an empty name or with a name that is not a token is skipped with a note', () => {
  for (const line of ['no colon here', ': x', 'X(A): 1', 'X"A": 1', 'ÿ: 1']) {
    const r = parsed(`HTTP/1.1 200 OK\r\nX-Before: 1\r\n${line}\r\nContent-Length: 2\r\n\r\nok`);
    assert.deepStrictEqual(r.headers, [['X-Before', '1'], ['Content-Length', '2']], line);
    assert.equal(text(r), 'ok');
    assert.equal(r.keepAlive, true, line);
    assert.deepStrictEqual(r.notes, [NOT_A_FIELD + JSON.stringify(line)]);
  }
  // ...also as the first field line, and in the head, before the body arrives
  const p = new ResponseParser();
  p.feed(bytes('HTTP/1.1 200 OK\r\nno colon\r\nContent-Length: 5\r\n\r\nhe'));
  assert.deepStrictEqual(p.head?.notes, [`${NOT_A_FIELD}"no colon"`]);
  assert.deepStrictEqual(p.head?.headers, [['Content-Length', '5']]);
});

test('RFC 9112 §5.2 obs-fold: a continuation of a skipped line is skipped with it, and cannot extend the field before it', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nen-US X: a\r\n 6\r\nX-B: b\r\n  c\r\n\r\nhello');
  assert.deepStrictEqual(r.headers, [['Content-Length', '5'], ['X-B', 'b c']]);
  assert.equal(text(r), 'hello');
  assert.deepStrictEqual(r.notes, [`${NOT_A_FIELD}"en-US X: a"`, `${NOT_A_FIELD}" 6"`]);
  // after a skipped first line, a fold is that line's continuation, not whitespace before the first field (RFC 9112 §2.2)
  const first = parsed('HTTP/1.1 200 OK\r\nen-US X: a\r\n\tmore\r\nContent-Length: 0\r\n\r\n');
  assert.deepStrictEqual(first.headers, [['Content-Length', '0']]);
  assert.equal(first.notes?.length, 2);
});

test('RFC 9112 §5.1 field line: whitespace before the colon is not that field: a skipped "Content-Length : 5" frames nothing, and the connection is not reused', () => {
  // RFC 9112 §5.1: no whitespace between name and colon. Not a Content-Length: the body runs until the close.
  for (const line of ['Content-Length : 5', 'Content-Length\t: 5', 'content-length  :5']) {
    const raw = `HTTP/1.1 200 OK\r\n${line}\r\n\r\nhello world`;
    unfinished(raw);
    const r = parsed(raw, { end: true });
    assert.equal(r.framing, 'close', line);
    assert.equal(text(r), 'hello world');
    assert.equal(r.keepAlive, false);
    assert.deepStrictEqual(r.headers, []);
    assert.deepStrictEqual(r.notes, [NOT_A_FIELD + JSON.stringify(line)]);
  }
  // With a valid Content-Length it is that one that frames; but a proxy would read the skipped line as a
  // second Content-Length (§5.1 has it remove the whitespace), so the body's end is in doubt: no reuse.
  const both = parsed('HTTP/1.1 200 OK\r\nContent-Length : 5\r\nContent-Length: 11\r\n\r\nhello world');
  assert.equal(both.framing, 'length');
  assert.equal(text(both), 'hello world');
  assert.equal(both.keepAlive, false);
  const te = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\nhello0\r\n\r\n');
  assert.equal(te.framing, 'length');
  assert.equal(text(te), 'hello');
  assert.equal(te.keepAlive, false);
  assert.equal(te.extra.toString('latin1'), '0\r\n\r\n');
  // A skipped line naming another field leaves the connection reusable.
  assert.equal(parsed('HTTP/1.1 200 OK\r\nX Content-Length : 5\r\nContent-Length: 2\r\n\r\nok').keepAlive, true);
});

test('RFC 9112 §6.3: skipping lines loosens no framing rule: ambiguous framing is still rejected', () => {
  const iis = 'HTTP/1.1 200 OK\r\nen-US Content-Type: text/xml\r\n';
  rejected(`${iis}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`, 'ERR_BAD_RESPONSE');
  rejected(`${iis}Content-Length: 5, 6\r\n\r\nhello!`, 'ERR_BAD_RESPONSE');
  rejected(`${iis}Content-Length: 5x\r\n\r\nhello`, 'ERR_BAD_RESPONSE');
  rejected(`${iis}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`, 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nContent-Length : 5\r\nContent-Length: 5x\r\n\r\nhello', 'ERR_BAD_RESPONSE');
  // a bare CR in a line that would be skipped is still a bare CR (RFC 9112 §2.2)
  rejected(`${iis}en-US\rX: 1\r\nContent-Length: 0\r\n\r\n`, 'ERR_BAD_RESPONSE');
  // whitespace before the first field line is still rejected (RFC 9112 §2.2), not skipped
  rejected('HTTP/1.1 200 OK\r\n en-US Content-Type: text/xml\r\nContent-Length: 0\r\n\r\n', 'ERR_BAD_RESPONSE');
});

test('notes: control chars are escaped, long lines cut, trailer lines noted as such, and at most 10 lines noted', () => {
  const ctl = parsed('HTTP/1.1 200 OK\r\nX\x01\x1b[2J\x7f\x9bY: 1\r\nContent-Length: 0\r\n\r\n');
  assert.deepStrictEqual(ctl.notes, [`${NOT_A_FIELD}"X\\u0001\\u001b[2J\\u007f\\u009bY: 1"`]);
  const long = parsed(`HTTP/1.1 200 OK\r\n${'n'.repeat(100)}\r\nContent-Length: 0\r\n\r\n`);
  assert.deepStrictEqual(long.notes, [`${NOT_A_FIELD}"${'n'.repeat(60)}..."`]);
  const trailer = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nbad trailer\r\nX-T: 1\r\n\r\n');
  assert.deepStrictEqual(trailer.trailers, [['X-T', '1']]);
  assert.equal(trailer.keepAlive, true);
  assert.deepStrictEqual(trailer.notes, ['skipped a trailer line that is not a field: "bad trailer"']);
  const many = parsed(`HTTP/1.1 200 OK\r\n${'bad\r\n'.repeat(25)}Content-Length: 0\r\n\r\n`);
  assert.equal(many.notes?.length, 11);
  assert.equal(many.notes?.[10], 'skipped more lines that are not fields (only the first 10 are noted)');
  // an interim response's skipped lines are noted too: they are what the server sent
  assert.deepStrictEqual(parsed('HTTP/1.1 103 Early Hints\r\nno colon\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').notes, [`${NOT_A_FIELD}"no colon"`]);
});

test('RFC 9110 §5.3 field order: headerValue joins a list field in order, keeps the first of a singleton, ignores case', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nVary: a\r\nLocation: /one\r\nvary: b\r\nLOCATION: /two\r\nSet-Cookie: x=1\r\nSet-Cookie: y=2\r\nContent-Length: 0\r\n\r\n');
  assert.equal(headerValue(r.headers, 'VARY'), 'a, b');
  assert.equal(headerValue(r.headers, 'location'), '/one');
  assert.equal(headerValue(r.headers, 'x-absent'), undefined);
  assert.deepStrictEqual(headerValues(r.headers, 'set-cookie'), ['x=1', 'y=2']);
});

test('RFC 9112 §5.2 obs-fold: continuation lines are joined to the value with one space', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nX-Long: first\r\n   second\r\n\t\tthird \r\n \r\nX-Next: n\r\nContent-Length: 0\r\n\r\n');
  assert.deepStrictEqual(r.headers, [['X-Long', 'first second third'], ['X-Next', 'n'], ['Content-Length', '0']]);
  const e = parsed('HTTP/1.1 200 OK\r\nX-Empty:\r\n later\r\nContent-Length: 0\r\n\r\n');
  assert.equal(headerValue(e.headers, 'x-empty'), 'later');
});

test('RFC 9112 §5.2 obs-fold: a folded Connection: close is honoured', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nConnection:\r\n close\r\nContent-Length: 0\r\n\r\n');
  assert.equal(r.keepAlive, false);
});

// ---------------------------------------------------------------- §6 message body length

test('RFC 9112 §6.2 Content-Length: the body is exactly that many bytes', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world');
  assert.equal(text(r), 'hello world');
  assert.equal(r.framing, 'length');
  assert.equal(r.keepAlive, true);
  assert.equal(r.extra.length, 0);
  assert.equal(text(parsed('HTTP/1.1 200 OK\r\nContent-Length: 003\r\n\r\nabc')), 'abc');
  assert.equal(parsed('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').body.length, 0);
});

test('RFC 9112 §6: the head (status, fields, framing) is known before the body arrives', () => {
  const p = new ResponseParser();
  p.feed(bytes('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\n\x89PNG'));
  assert.equal(p.done, false);
  assert.equal(p.response, undefined);
  assert.deepStrictEqual(p.head, { version: '1.1', status: 200, reason: 'OK', headers: [['Content-Type', 'image/png'], ['Content-Length', '1000']], keepAlive: true, framing: 'length', notes: undefined });
  const interim = new ResponseParser();
  interim.feed(bytes('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n'));
  assert.equal(interim.head, undefined, 'an interim response is not the head');
});

test('RFC 9112 §6.2 Content-Length: a body shorter than announced is ERR_PREMATURE_CLOSE at the close', () => {
  unfinished('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello');
  rejected('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello', 'ERR_PREMATURE_CLOSE', { end: true });
  const p = new ResponseParser();
  p.feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello'));
  assert.throws(() => p.end(), isCode('ERR_PREMATURE_CLOSE', /5 of 10 bytes/));
});

test('RFC 9112 §6.2 Content-Length: bytes beyond the announced length are left in `extra`', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\n');
  assert.equal(text(r), 'hello');
  assert.equal(r.extra.toString('latin1'), 'HTTP/1.1 200 OK\r\n');
  const p = new ResponseParser();
  p.feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab'));
  p.feed(bytes('cd'));
  assert.equal(p.extra.toString(), 'bcd');
  assert.equal(p.response?.body.toString(), 'a');
});

test('RFC 9112 §6.3 rule 5: differing Content-Length values are rejected, identical ones accepted', () => {
  rejected('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!', 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!', 'ERR_BAD_RESPONSE');
  assert.equal(text(parsed('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello')), 'hello');
  assert.equal(text(parsed('HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello')), 'hello');
});

test('RFC 9112 §6.3 rule 5: an invalid Content-Length is rejected', () => {
  for (const v of ['', '-5', '+5', '5a', '0x5', '4 2', '1000000000000000000000']) {
    rejected(`HTTP/1.1 200 OK\r\nContent-Length: ${v}\r\n\r\nhello`, 'ERR_BAD_RESPONSE');
  }
});

test('error messages quote wire text with every control char escaped (C0, DEL and C1), so printing one is safe', () => {
  assert.throws(
    () => new ResponseParser().feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 5\x1b[2J\x7f\x9b\r\n\r\n')),
    isCode('ERR_BAD_RESPONSE', /^invalid Content-Length "5\\u001b\[2J\\u007f\\u009b"$/),
  );
});

test('RFC 9112 §6.3 rule 8: without Content-Length or chunked the body runs until the close, which end() marks', () => {
  const raw = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello\r\nworld';
  unfinished(raw);
  const r = parsed(raw, { end: true });
  assert.equal(text(r), 'hello\r\nworld');
  assert.equal(r.framing, 'close');
  assert.equal(r.keepAlive, false);
  assert.equal(parsed('HTTP/1.1 200 OK\r\n\r\n', { end: true }).body.length, 0);
});

test('RFC 9112 §6.3 rules 3 and 4: Transfer-Encoding with Content-Length: TE wins and the connection is not reused', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
  assert.equal(text(r), 'hello');
  assert.equal(r.framing, 'chunked');
  assert.equal(r.keepAlive, false);
  const after = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n2\r\nok\r\n0\r\n\r\n');
  assert.equal(text(after), 'ok');
  assert.equal(after.keepAlive, false);
});

test('RFC 9112 §6.3 rule 4: a response whose final coding is not chunked is read until the close', () => {
  for (const te of ['chunked, gzip', 'gzip', 'chunkedchunked', 'chunked\r\nTransfer-Encoding: identity']) {
    const r = parsed(`HTTP/1.1 200 OK\r\nTransfer-Encoding: ${te}\r\n\r\n2\r\nok\r\n0\r\n\r\n`, { end: true });
    assert.equal(r.framing, 'close', te);
    assert.equal(text(r), '2\r\nok\r\n0\r\n\r\n');
    assert.equal(r.keepAlive, false);
  }
  const last = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
  assert.equal(last.framing, 'chunked');
});

test('RFC 9112 §6.3 rules 1 and 2: no body after 204, 304 or a HEAD request; what follows is `extra`', () => {
  const noContent = parsed('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello');
  assert.equal(noContent.body.length, 0);
  assert.equal(noContent.framing, 'none');
  assert.equal(noContent.keepAlive, true);
  assert.equal(noContent.extra.toString(), 'hello');
  const notModified = parsed('HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n');
  assert.equal(notModified.body.length, 0);
  assert.equal(notModified.extra.length, 0);
  const head = parsed('HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n', { parser: { headRequest: true } });
  assert.equal(head.body.length, 0);
  assert.equal(head.keepAlive, true);
  assert.deepStrictEqual(head.headers, [['Content-Length', '1234']]);
  const headChunked = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', { parser: { headRequest: true } });
  assert.equal(headChunked.framing, 'none');
});

// ---------------------------------------------------------------- §7.1 chunked

test('RFC 9112 §7.1 chunked: chunks are joined and chunk extensions ignored', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value;x\r\nhello\r\n6 ; q="a;b"\r\n world\r\nA\r\n0123456789\r\n000\r\n\r\n');
  assert.equal(text(r), 'hello world0123456789');
  assert.equal(r.framing, 'chunked');
  assert.equal(r.keepAlive, true);
  assert.deepStrictEqual(r.trailers, []);
});

test('RFC 9112 §7.1.2 chunked: trailers are parsed into their own list', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: Vary\r\n\r\n5\r\nhello\r\n0\r\nVary: *\r\nX-Checksum: abc\r\n  def\r\n\r\n');
  assert.equal(text(r), 'hello');
  assert.deepStrictEqual(r.trailers, [['Vary', '*'], ['X-Checksum', 'abc def']]);
  assert.deepStrictEqual(r.headers, [['Transfer-Encoding', 'chunked'], ['Trailer', 'Vary']]);
});

test('RFC 9112 §7.1 chunked: the "chunked" keyword and the body may be cut anywhere between reads', () => {
  const pieces = ['HTTP/1.1 200 OK\r\nTransfer-Enc', 'oding: chun', 'ked\r\n\r\n5\r', '\nhe', 'llo\r', '\n', '0\r\n\r', '\n'];
  const p = new ResponseParser();
  for (const piece of pieces) {
    assert.equal(p.done, false);
    p.feed(bytes(piece));
  }
  assert.equal(p.response?.framing, 'chunked');
  assert.equal(p.response?.body.toString(), 'hello');
  // and every two-way cut of the same bytes, and byte by byte
  assert.equal(text(parsed(pieces.join(''))), 'hello');
});

test('RFC 9112 §7.1 chunked: spaces or tabs after the chunk size are tolerated (real servers send them)', () => {
  const r = parsed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n25  \r\nThis is the data in the first chunk\r\n\r\n1C\t\r\nand this is the second one\r\n\r\n0  \r\n\r\n');
  assert.equal(text(r), 'This is the data in the first chunk\r\nand this is the second one\r\n');
});

test('RFC 9112 §7.1 chunked: an invalid chunk size is rejected', () => {
  for (const size of ['zz', '-1', '0x5', '', ' 5', '5 5', '+5', '12345678901234']) {
    rejected(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\nhello\r\n0\r\n\r\n`, 'ERR_BAD_RESPONSE');
  }
});

test('RFC 9112 §7.1 chunked: chunk data not followed by CRLF is rejected', () => {
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n', 'ERR_BAD_RESPONSE');
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello0\r\n\r\n', 'ERR_BAD_RESPONSE');
  // the last chunk is missing: an empty line where a size belongs
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nfoo\r\n\r\n', 'ERR_BAD_RESPONSE');
});

test('RFC 9112 §7.1 chunked: a body cut before the last chunk or the trailer end is ERR_PREMATURE_CLOSE', () => {
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel', 'ERR_PREMATURE_CLOSE', { end: true });
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n', 'ERR_PREMATURE_CLOSE', { end: true });
});

// ---------------------------------------------------------------- §9.3 persistence

test('RFC 9112 §9.3 persistence: HTTP/1.1 persists unless Connection lists close', () => {
  assert.equal(parsed('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').keepAlive, true);
  assert.equal(parsed('HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').keepAlive, true);
  assert.equal(parsed('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').keepAlive, false);
  assert.equal(parsed('HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n').keepAlive, false);
  assert.equal(parsed('HTTP/1.1 200 OK\r\nConnection: foo\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').keepAlive, false);
  assert.equal(parsed('HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 0\r\n\r\n').keepAlive, true);
  // Proxy-Connection is not standard; its "close" is honoured, as closing is always safe.
  assert.equal(parsed('HTTP/1.1 200 OK\r\nProxy-Connection: close\r\nContent-Length: 0\r\n\r\n').keepAlive, false);
});

test('RFC 9112 §9.3 persistence: an HTTP/1.0 answer persists only with Connection: keep-alive', () => {
  const plain = parsed('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok');
  assert.equal(plain.version, '1.0');
  assert.equal(plain.keepAlive, false);
  assert.equal(parsed('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok').keepAlive, true);
  assert.equal(parsed('HTTP/1.0 204 No content\r\nConnection: keep-alive\r\n\r\n').keepAlive, true);
  // keep-alive cannot hold when the body is delimited by the close
  const eof = parsed('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nbody', { end: true });
  assert.equal(eof.keepAlive, false);
  assert.equal(text(eof), 'body');
  assert.equal(parsed('HTTP/0.9 200 OK\r\nContent-Length: 0\r\n\r\n').keepAlive, false);
});

// ---------------------------------------------------------------- RFC 9110 §15.2 interim responses

test('RFC 9110 §15.2: 100 and 103 interim responses before the final one are skipped', () => {
  const raw =
    'HTTP/1.1 100 Continue\r\n\r\n' +
    'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload; as=style\r\n\r\n' +
    'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
  const r = parsed(raw);
  assert.equal(r.status, 200);
  assert.equal(r.reason, 'OK');
  assert.deepStrictEqual(r.headers, [['Content-Length', '2']]);
  assert.equal(text(r), 'ok');
  const p = new ResponseParser();
  p.feed(bytes('HTTP/1.1 100 Continue\r\n\r\n'));
  assert.equal(p.done, false);
  assert.equal(p.statusReceived, true);
  // a stray CRLF after an interim response is tolerated too
  assert.equal(parsed('HTTP/1.1 100 Continue\r\n\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnah').status, 404);
});

test('RFC 9110 §15.2.2: a 101 ends the HTTP message; the rest is `extra` and the connection is not reused', () => {
  const r = parsed('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nContent-Length: 4\r\n\r\n\x81\x05hello');
  assert.equal(r.status, 101);
  assert.equal(r.body.length, 0);
  assert.equal(r.keepAlive, false);
  assert.equal(r.extra.toString('latin1'), '\x81\x05hello');
});

// ---------------------------------------------------------------- caps (RFC 9110 §5.4 field limits; the body cap is ours)

const SMALL = { maxHeaderBytes: 100, maxBodyBytes: 100 };

test('RFC 9110 §5.4 field limits: a header section over maxHeaderBytes is ERR_HEADERS_OVERFLOW, one at the cap is accepted', () => {
  const head = (n: number): string => {
    const start = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: ';
    return `${start}${'a'.repeat(n - start.length - 4)}\r\n\r\n`;
  };
  assert.equal(head(100).length, 100);
  assert.equal(parsed(head(100), { parser: { limits: SMALL } }).status, 200);
  rejected(head(101), 'ERR_HEADERS_OVERFLOW', { parser: { limits: SMALL } });
  // many short lines
  rejected(`HTTP/1.1 200 OK\r\n${'A: 1\r\n'.repeat(20)}\r\n`, 'ERR_HEADERS_OVERFLOW', { parser: { limits: SMALL } });
  // one endless line is cut at the cap, before any LF arrives
  rejected(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(150)}`, 'ERR_HEADERS_OVERFLOW', { parser: { limits: SMALL } });
  rejected(`HTTP/1.1 200 ${'a'.repeat(150)}`, 'ERR_HEADERS_OVERFLOW', { parser: { limits: SMALL } });
  // interim responses count too: endless 100 Continue cannot get around the cap
  rejected('HTTP/1.1 100 Continue\r\n\r\n'.repeat(5), 'ERR_HEADERS_OVERFLOW', { parser: { limits: SMALL } });
  // the message names the cap
  assert.throws(() => new ResponseParser({ limits: SMALL }).feed(bytes(head(101))), isCode('ERR_HEADERS_OVERFLOW', /maxHeaderBytes \(100 bytes\)/));
});

test('RFC 9112 §6.2 Content-Length: a length over maxBodyBytes is ERR_BODY_OVERFLOW before the body arrives; no cap after HEAD', () => {
  rejected('HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n', 'ERR_BODY_OVERFLOW', { parser: { limits: SMALL } });
  rejected('HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\n', 'ERR_BODY_OVERFLOW');
  assert.equal(parsed(`HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n${'b'.repeat(100)}`, { parser: { limits: SMALL } }).body.length, 100);
  assert.throws(
    () => new ResponseParser({ limits: SMALL }).feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n')),
    isCode('ERR_BODY_OVERFLOW', /Content-Length 101 exceeds maxBodyBytes \(100 bytes\)/),
  );
  // no body follows a HEAD or a 304, so a large Content-Length there is no reason to refuse
  assert.equal(parsed('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n', { parser: { limits: SMALL, headRequest: true } }).framing, 'none');
  assert.equal(parsed('HTTP/1.1 304 Not Modified\r\nContent-Length: 5000\r\n\r\n', { parser: { limits: SMALL } }).body.length, 0);
});

test('RFC 9112 §7.1 and §6.3 rule 8: a chunked or close-delimited body over maxBodyBytes is ERR_BODY_OVERFLOW', () => {
  const limits = SMALL;
  rejected(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n32\r\n${'a'.repeat(50)}\r\n33\r\n`, 'ERR_BODY_OVERFLOW', { parser: { limits } });
  rejected('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\n', 'ERR_BODY_OVERFLOW', { parser: { limits } });
  const ok = parsed(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n32\r\n${'a'.repeat(50)}\r\n32\r\n${'b'.repeat(50)}\r\n0\r\n\r\n`, { parser: { limits } });
  assert.equal(ok.body.length, 100);
  rejected(`HTTP/1.1 200 OK\r\n\r\n${'c'.repeat(101)}`, 'ERR_BODY_OVERFLOW', { parser: { limits } });
  assert.equal(parsed(`HTTP/1.1 200 OK\r\n\r\n${'c'.repeat(100)}`, { parser: { limits }, end: true }).body.length, 100);
});

test('RFC 9112 §7.1.2 chunked: a trailer section over maxHeaderBytes is ERR_HEADERS_OVERFLOW', () => {
  const limits = SMALL;
  const start = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n';
  rejected(`${start}${'T: 1\r\n'.repeat(20)}\r\n`, 'ERR_HEADERS_OVERFLOW', { parser: { limits } });
  rejected(`${start}T: ${'x'.repeat(150)}`, 'ERR_HEADERS_OVERFLOW', { parser: { limits } });
  assert.deepStrictEqual(parsed(`${start}${'T: 1\r\n'.repeat(10)}\r\n`, { parser: { limits } }).trailers.length, 10);
});

// ---------------------------------------------------------------- bytes and closes

test('RFC 9112 §6 message body: bytes 0x00..0xFF survive exactly under every framing', () => {
  const all = Buffer.alloc(256);
  for (let i = 0; i < 256; i++) all[i] = i;
  const length = parsed(Buffer.concat([bytes('HTTP/1.1 200 OK\r\nContent-Length: 256\r\n\r\n'), all]));
  assert.deepStrictEqual(length.body, all);
  const chunked = parsed(
    Buffer.concat([bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n80\r\n'), all.subarray(0, 128), bytes('\r\n80\r\n'), all.subarray(128), bytes('\r\n0\r\n\r\n')]),
  );
  assert.deepStrictEqual(chunked.body, all);
  const close = parsed(Buffer.concat([bytes('HTTP/1.1 200 OK\r\n\r\n'), all]), { end: true });
  assert.deepStrictEqual(close.body, all);
});

test('RFC 9112 §4 and §5 obs-text: reason and field bytes above 0x7F are kept one char per byte (latin1), never decoded', () => {
  const r = parsed('HTTP/1.1 500 Ori\xc3\xabntatieprobleem\r\nX-Name: caf\xe9\r\nContent-Length: 0\r\n\r\n');
  assert.equal(Buffer.from(r.reason, 'latin1').toString('utf8'), 'Oriëntatieprobleem');
  assert.equal(r.headers[0]?.[1], 'caf\xe9');
});

test('RFC 9112 §8 incomplete messages: a close before any byte gives ERR_PREMATURE_CLOSE saying so; later closes say where they fell', () => {
  assert.throws(() => new ResponseParser().end(), isCode('ERR_PREMATURE_CLOSE', /before any response byte/));
  const empty = new ResponseParser();
  empty.feed(Buffer.alloc(0));
  assert.throws(() => empty.end(), isCode('ERR_PREMATURE_CLOSE', /before any response byte/));
  const crlf = new ResponseParser();
  crlf.feed(bytes('\r\n'));
  assert.throws(() => crlf.end(), isCode('ERR_PREMATURE_CLOSE', /before the end of the headers/));
  const head = new ResponseParser();
  head.feed(bytes('HTTP/1.1 200 OK\r\nContent-Le'));
  assert.equal(head.statusReceived, true);
  assert.throws(() => head.end(), isCode('ERR_PREMATURE_CLOSE', /before the end of the headers/));
  const trail = new ResponseParser();
  trail.feed(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX: 1\r\n'));
  assert.throws(() => trail.end(), isCode('ERR_PREMATURE_CLOSE', /trailers/));
});

test('RFC 9112 §9.3 persistence: after the response is done, end() is harmless and later bytes only grow `extra`', () => {
  const p = new ResponseParser();
  p.feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  assert.equal(p.done, true);
  assert.equal(p.extra.length, 0);
  p.end();
  p.feed(bytes('junk'));
  assert.equal(p.extra.toString(), 'junk');
  assert.equal(p.response?.body.toString(), 'ok');
});
