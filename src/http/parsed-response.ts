/**
 * What the response parser takes and gives: the caps on one response's
 * memory, the parser's options, the final response and its head.
 */
import type { Field, Framing } from './header-lines.js';

/** Caps that bound the memory one response may use. */
export interface ParserLimits {
  /** Cap on the header section (status line + fields + blank line, interim 1xx heads included), and separately on the trailers. */
  maxHeaderBytes: number;
  /** Cap on the body bytes (after chunked framing is removed). */
  maxBodyBytes: number;
}

/** 64 KiB of header section, 10 MiB of body. */
export const DEFAULT_LIMITS: ParserLimits = Object.freeze({ maxHeaderBytes: 64 * 1024, maxBodyBytes: 10 * 1024 * 1024 });

/**
 * The most of an unwanted body (see ResponseParserOptions.wantsBody) that
 * is read, to its end, and dropped, so that the connection can carry the
 * next request: 64 KiB, about what a server has in flight by the time its
 * head arrives (a TCP window), so draining it rarely costs more than the
 * round trip a new connection would. A longer one is not read: the message
 * ends there (`unwanted: 'cut'`) and the connection is closed.
 */
export const UNWANTED_BODY_DRAIN_BYTES = 64 * 1024;

/** A complete final response. */
export interface ParsedResponse {
  /** "1.1", "1.0" (as sent). */
  version: string;
  status: number;
  /** The reason phrase as sent (may be empty). */
  reason: string;
  /** In order, names as sent, values OWS-trimmed; an obs-fold continuation is joined to its value with one SP. */
  headers: Field[];
  /** Chunked trailer fields, same form; [] when none. */
  trailers: Field[];
  /** The body bytes exactly as sent (chunked framing removed), never decoded. */
  body: Buffer;
  /** May the connection carry another request after this message? */
  keepAlive: boolean;
  framing: Framing;
  /**
   * What was tolerated in this response, for the user (one line each, no
   * control chars): so far one note per skipped header or trailer line, e.g.
   * `skipped a header line that is not a field: "en-US Content-Type: text/xml"`.
   * Undefined when there is nothing to say (the usual case: no array made).
   * A head has the notes of the header section (and interim responses);
   * where it has any, the response's `notes` is the same array, to which
   * skipped trailer lines add theirs.
   */
  notes: string[] | undefined;
  /**
   * Set when the head said the body is not wanted (ResponseParserOptions.wantsBody):
   * `drained` when it was read to its end all the same (it was short, see
   * UNWANTED_BODY_DRAIN_BYTES; `body` holds it and the connection may carry
   * another request), `cut` when it was not (`body` is empty, `keepAlive`
   * false: the connection is closed). Undefined for a body read as usual.
   */
  unwanted?: 'drained' | 'cut' | undefined;
}

/** What is known once the final response's header section is complete, before its body. */
export type ResponseHead = Omit<ParsedResponse, 'trailers' | 'body' | 'unwanted'>;

/** Whether the reader has any use for the body of a response with this head (a page's Content-Type, say). */
export type WantsBody = (head: ResponseHead) => boolean;

export interface ResponseParserOptions {
  limits?: Partial<ParserLimits>;
  /** The request was HEAD: the response has no body whatever its fields say (RFC 9112 §6.3). */
  headRequest?: boolean;
  /**
   * Asked once, when the final head is complete and a body may follow.
   * False: the body is of no use, so it is read only while it stays within
   * UNWANTED_BODY_DRAIN_BYTES (and maxBodyBytes), and never fails for its
   * size: once it is known to be longer (its Content-Length, a chunk's
   * size, or the bytes that came of a body delimited by the close), the
   * message ends there, `unwanted: 'cut'`. Absent: every body is wanted.
   */
  wantsBody?: WantsBody | undefined;
}
