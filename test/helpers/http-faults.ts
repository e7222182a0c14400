/**
 * The HTTP misbehaviours of the fault server (test/helpers/fault-server.ts),
 * by name: each is reached at `/f/NAME` and writes its bytes through the
 * FaultContext it is given. Also the endless crawler traps (`/trap/...`,
 * `/long/...`, `/calendar?page=N`), the bodies the tests compare saved pages
 * with, and the short timeouts and caps a run under faults gets.
 */
import type { FaultHandler } from './fault-server.js';
import { page } from './site-server.js';

/** 100 MiB: the size of the streamed huge bodies. */
export const HUGE = 100 * 1024 * 1024;

/** Short timeouts and small caps for both programs, so that every fault is met within a second or so. */
export const FAULT_FLAGS: readonly string[] = [
  '--connect-timeout', '1',
  '--idle-timeout', '0.5',
  '--response-timeout', '1.5',
  '--max-header-bytes', '8192',
  '--max-body-bytes', '1048576',
  '--max-redirects', '3',
];
/**
 * No run may take longer than this. The faults' timeouts add up to about
 * 3 s and a run takes 2 to 4 s on an idle machine; the bound is loose
 * because the test machine may be busy. FAULT_MS (time from the faulty
 * request to the next one, at the server) is the tight bound.
 */
export const FAULT_WALL_MS = 30_000;
/** The longest a fault may hold a run: the 1.5 s response timeout plus slack for a busy machine (the defaults are 15 s and 30 s). */
export const FAULT_MS = 5_000;
/** Peak resident memory a run under faults must stay below. */
export const FAULT_RSS_BOUND_KIB = 150 * 1024;

/** The Content-Type line of an HTML answer. */
export const HTML_TYPE = 'Content-Type: text/html';

/** A response head: status line, `lines`, blank line. */
export function responseHead(status: string, lines: string[]): string {
  return `HTTP/1.1 ${status}\r\n${lines.map((l) => l + '\r\n').join('')}\r\n`;
}

/** Every byte value, then a link, then invalid UTF-8: a page that is not text. */
export const BINARY_HTML = Buffer.concat([
  Buffer.from('<html><body>\n'),
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from('\n<a href="/good/binary-html">next</a>\n'),
  Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc, 0xff, 0xfe, 0x00, 0x0a]),
  Buffer.from('</body></html>\n'),
]);

/** A latin1 page (not valid UTF-8) that declares its charset. */
export const LATIN1_HTML = Buffer.from('<html><body>\nCaf\xe9 cr\xe8me br\xfbl\xe9e \xff\xfe\n<a href="/good/latin1">next</a>\n</body></html>\n', 'latin1');

/** 4 KiB of pseudo-random bytes, NULs included. */
export const RANDOM_BYTES = (() => {
  const b = Buffer.alloc(4096);
  let x = 12345;
  for (let i = 0; i < b.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >> 16;
  }
  return b;
})();

/** The final page after the 1xx responses. */
export const INTERIM_FINAL = page('final after 1xx', ['/good/after-interim']);
/** The declared body of length-under, and what follows it on the wire. */
export const SHORT_BODY = '<html><body>short</body></html>\n';
export const SMUGGLED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 53\r\n\r\n<html><body><a href="/smuggled">x</a></body></html>\n';

/** The faults, by name: each is reached at `/f/NAME` (anything after NAME is ignored unless the fault reads it). */
export const FAULTS: Record<string, { what: string; handle: FaultHandler }> = {
  'refuse-after-reset': {
    what: 'stops listening for 1 s and resets the connection: the client\'s retry on a fresh connection is refused (use a server of its own)',
    handle: (c) => {
      c.server.refuseFor(1000);
      c.reset();
    },
  },
  'reset-before': {
    what: 'RST as soon as the request arrives, before any byte of the response',
    handle: (c) => c.reset(),
  },
  'reset-in-headers': {
    what: 'half a header section, then RST',
    handle: (c) => {
      c.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Le');
      c.later(30, () => c.reset());
    },
  },
  'reset-after-headers': {
    what: 'complete headers (Content-Length 1000), 100 bytes of body, then RST',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, 'Content-Length: 1000']) + 'x'.repeat(100));
      c.later(30, () => c.reset());
    },
  },
  silent: {
    what: 'accepts the request and never answers',
    handle: () => undefined,
  },
  drip: {
    what: 'one byte a second, forever (inside the header section)',
    handle: (c) => {
      c.write('HTTP/1.1 200 OK\r\nX-Drip: ');
      c.every(1000, () => c.write('a'));
    },
  },
  'drip-fast': {
    what: 'valid headers, then one body byte every 50 ms, forever (close-delimited body)',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE]));
      c.every(50, () => c.write('a'));
    },
  },
  'length-over': {
    what: 'Content-Length 100 but 10 bytes of body, then FIN',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, 'Content-Length: 100']) + '<html>0123');
      c.socket.end();
    },
  },
  'length-under': {
    what: 'Content-Length shorter than the body: the rest is a second, smuggled response in the same write',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${SHORT_BODY.length}`]) + SHORT_BODY + SMUGGLED);
      c.keepReading();
    },
  },
  'length-under-late': {
    what: 'Content-Length shorter than the body: the smuggled rest arrives 50 ms later, on a kept-alive connection',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${SHORT_BODY.length}`]) + SHORT_BODY);
      c.later(50, () => {
        c.write(SMUGGLED);
        c.keepReading();
      });
    },
  },
  'length-under-split': {
    what: 'Content-Length shorter than the body; 50 ms later (connection idle) the first half of a smuggled response, its second half just before the next answer',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${SHORT_BODY.length}`]) + SHORT_BODY);
      const cut = SMUGGLED.indexOf('\r\n\r\n') + 12;
      c.later(50, () => {
        c.write(SMUGGLED.slice(0, cut));
        c.keepReading(SMUGGLED.slice(cut));
      });
    },
  },
  'bad-chunk': {
    what: 'Transfer-Encoding: chunked with the chunk size "zz"',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, 'Transfer-Encoding: chunked']) + 'zz\r\nhello\r\n0\r\n\r\n');
      c.keepReading();
    },
  },
  'header-flood': {
    what: 'header lines without end (1 KiB each), until the peer goes or 100 MiB',
    handle: (c) => {
      c.write('HTTP/1.1 200 OK\r\n');
      c.stream(Buffer.from(`X-Flood: ${'f'.repeat(1012)}\r\n`), HUGE, (n) => c.server.streamed.set(c.req.target, n));
    },
  },
  'body-length-huge': {
    what: 'Content-Length: 104857600, then the 100 MiB streamed',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${HUGE}`]));
      c.stream(Buffer.alloc(64 * 1024, 0x61), HUGE, (n) => c.server.streamed.set(c.req.target, n));
    },
  },
  'body-chunked-huge': {
    what: 'a chunked body of 100 MiB in 64 KiB chunks, streamed as fast as the peer reads',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, 'Transfer-Encoding: chunked']));
      const data = Buffer.alloc(64 * 1024, 0x62);
      c.stream(Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]), HUGE, (n) =>
        c.server.streamed.set(c.req.target, n),
      );
    },
  },
  'body-close-huge': {
    what: 'a close-delimited body of 100 MiB',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, 'Connection: close']));
      c.stream(Buffer.alloc(64 * 1024, 0x63), HUGE, (n) => c.server.streamed.set(c.req.target, n));
    },
  },
  garbage: {
    what: 'an SSH banner and random bytes instead of a status line',
    handle: (c) => {
      c.write(Buffer.concat([Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'), RANDOM_BYTES]));
      c.keepReading();
    },
  },
  interim: {
    what: '100 Continue and 103 Early Hints before the final 200',
    handle: (c) => {
      c.write('HTTP/1.1 100 Continue\r\n\r\n');
      c.later(20, () => {
        c.write(responseHead('103 Early Hints', ['Link: </style.css>; rel=preload; as=style']));
        c.later(20, () => {
          c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${Buffer.byteLength(INTERIM_FINAL)}`]) + INTERIM_FINAL);
          c.keepReading();
        });
      });
    },
  },
  'redirect-chain': {
    what: '/f/redirect-chain/N answers 302 to /f/redirect-chain/N+1, without end',
    handle: (c) => {
      const n = Number(/\/(\d+)$/.exec(c.req.target)?.[1] ?? 0);
      c.write(responseHead('302 Found', [`Location: /f/redirect-chain/${n + 1}`, 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'loop-a': {
    what: '302 to /f/loop-b (which redirects back here)',
    handle: (c) => {
      c.write(responseHead('302 Found', ['Location: /f/loop-b', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'loop-b': {
    what: '302 to /f/loop-a',
    handle: (c) => {
      c.write(responseHead('302 Found', ['Location: /f/loop-a', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'to-ftp': {
    what: '301 to an ftp: URL',
    handle: (c) => {
      c.write(responseHead('301 Moved Permanently', ['Location: ftp://127.0.0.1/pub/file.html', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'relative-redirect': {
    what: '/f/relative-redirect/from answers 302 with the relative Location "target" (so /f/relative-redirect/target)',
    handle: (c) => {
      if (c.req.target.endsWith('/target')) {
        const body = page('relative redirect target', ['/good/relative-redirect-2']);
        c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${body.length}`]) + body);
      } else c.write(responseHead('302 Found', ['Location: target', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  binary: {
    what: 'application/octet-stream, 4 KiB of random bytes',
    handle: (c) => {
      c.write(responseHead('200 OK', ['Content-Type: application/octet-stream', `Content-Length: ${RANDOM_BYTES.length}`]));
      c.write(RANDOM_BYTES);
      c.keepReading();
    },
  },
  'binary-html': {
    what: 'text/html whose body holds every byte value and invalid UTF-8, with a link',
    handle: (c) => {
      c.write(responseHead('200 OK', [HTML_TYPE, `Content-Length: ${BINARY_HTML.length}`]));
      c.write(BINARY_HTML);
      c.keepReading();
    },
  },
  latin1: {
    what: 'text/html; charset=iso-8859-1, not valid UTF-8, with a link',
    handle: (c) => {
      c.write(responseHead('200 OK', ['Content-Type: text/html; charset=iso-8859-1', `Content-Length: ${LATIN1_HTML.length}`]));
      c.write(LATIN1_HTML);
      c.keepReading();
    },
  },
};

/**
 * The endless traps: `/trap/...` links to `a/` below itself (a path that
 * deepens forever), `/long/...` to a 100-character segment below itself (a
 * URL that grows forever), `/calendar?page=N` to `?page=N+1`.
 */
export function trapPage(target: string): string | undefined {
  if (target.startsWith('/trap/')) return page(`trap ${target}`, ['a/']);
  if (target.startsWith('/long/')) return page('long', [`${'x'.repeat(99)}/`]);
  const cal = /^\/calendar\?page=(\d+)$/.exec(target);
  if (cal !== null) return page(`calendar ${cal[1]}`, [`?page=${Number(cal[1]) + 1}`]);
  return undefined;
}
