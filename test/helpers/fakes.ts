/**
 * Stand-ins for the outside world of in-process unit tests: a response as
 * the HTTP client would hand it over (no socket), and a CliIo that records
 * what a program writes instead of writing it.
 */
import type { CliIo } from '../../src/program-io.js';
import type { FetchResponse } from '../../src/http/client.js';
import type { HttpUrl } from '../../src/url/http-url.js';

/** A complete response to `url`, as HttpClient.fetch resolves it. */
export function fakeResponse(url: HttpUrl, status: number, headers: Array<[string, string]> = [], body: string | Buffer = ''): FetchResponse {
  return {
    url,
    reused: false,
    version: '1.1',
    status,
    reason: '',
    headers,
    trailers: [],
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    keepAlive: true,
    framing: 'length',
    notes: undefined,
  };
}

export interface RecordingIo {
  io: CliIo;
  /** Every stdout write, in order, as written (string or bytes). */
  stdout: Array<string | Uint8Array>;
  /** Every stderr message, in order. */
  stderr: string[];
  /** The stdout writes joined, as UTF-8 text. */
  out(): string;
}

/** A CliIo whose output is kept for the test to read; not a terminal. */
export function recordingIo(): RecordingIo {
  const stdout: Array<string | Uint8Array> = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: (text) => void stdout.push(text),
    stdoutRoom: () => undefined,
    stderr: (text) => void stderr.push(text),
    status: () => undefined,
    stderrIsTTY: false,
    stdoutIsTTY: false,
    signal: new AbortController().signal,
  };
  return { io, stdout, stderr, out: () => stdout.map((c) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'))).join('') };
}
