/**
 * The records of one wire exchange (spec decision "The crawl archive"): a
 * `request` record holding the bytes written, then a `response` record
 * holding exactly the bytes read for the message (or a `revisit` when its
 * payload was archived before), both naming each other in
 * WARC-Concurrent-To; a response cut short carries WARC-Truncated and the
 * digest of the payload as recorded, and an exchange that failed is
 * followed by a `metadata` record saying why. A request that never left (no
 * connection) has no `request` record, since none of its bytes reached a
 * server: only the `metadata` record about the failure.
 * Pure, apart from the new record IDs.
 *
 * Two halves, for two threads: exchangeInput() runs on the crawl's thread
 * and decides what only it can (the IDs and dates the page's own records
 * name); exchangeRecords() runs on the archive's thread and does the work
 * (digests, the records' bytes).
 */
import { describeError } from '../errors.js';
import type { Truncation, WireExchange } from '../http/wire-exchange.js';
import { sha1Digest } from './digest.js';
import { finalHead, recordedPayload } from './recorded-payload.js';
import { newRecordId, serializeRecord, warcDate, warcFields, type RecordBytes } from './warc-record.js';

/** WARC 1.1 §6.7.2: the profile of a revisit whose payload is identical to an earlier capture's. */
export const IDENTICAL_PAYLOAD_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
/** WARC 1.1 §6.7.3: the profile of a revisit the server said was not modified (a 304 to a conditional request). */
export const SERVER_NOT_MODIFIED_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

/**
 * A 304 that answered a refresh's conditional request (crawler --since):
 * the payload is the earlier one's (WARC 1.1 §6.7.3: "the original payload
 * content from which a Last-Modified and/or ETag value was taken").
 */
export interface NotModified {
  /** The earlier crawl's response record of the page, when it archived one. */
  refersTo: Capture | undefined;
  /** The earlier payload's digest (never the empty 304's). */
  digest: string;
}

/** An earlier capture of a payload, as a revisit refers to it. */
export interface Capture {
  uri: string;
  date: string;
  id: string;
}

/** One exchange as the archive's thread is given it: the bytes as they were on the wire, and what the crawl's thread decided. */
export interface ExchangeInput {
  uri: string;
  ip: string | undefined;
  /** The request's and the response's WARC-Date (when the request went out). */
  date: string;
  /** The failure metadata's WARC-Date (when the exchange ended); set with `failure`. */
  endDate: string | undefined;
  /** The request record's ID: set when the request was sent (WireExchange.sent). */
  requestId: string | undefined;
  /** The response (or revisit) record's ID: set when response bytes arrived. */
  responseId: string | undefined;
  request: Uint8Array;
  response: Buffer;
  /** The body with the transfer coding removed, when the response was complete. */
  payload: Buffer | undefined;
  truncated: Truncation | undefined;
  /** Why the exchange failed (`CODE: words`), when it did. */
  failure: string | undefined;
  durationMs: number;
  /** A 304 to a refresh's conditional request: written as a server-not-modified revisit. */
  notModified?: NotModified | undefined;
}

/** The crawl's thread's half: `x` with its records' IDs and dates decided (`notModified`: a 304 to a refresh's conditional request). */
export function exchangeInput(x: WireExchange, notModified?: NotModified): ExchangeInput {
  return {
    uri: x.url.key,
    ip: x.ip,
    date: warcDate(x.startedAt),
    endDate: x.error === undefined ? undefined : warcDate(x.endedAt),
    requestId: x.sent ? newRecordId() : undefined,
    responseId: x.response.length > 0 ? newRecordId() : undefined,
    request: x.request,
    response: x.response,
    payload: x.truncated === undefined ? x.payload : undefined,
    truncated: x.truncated,
    failure: x.error === undefined ? undefined : `${x.error.code}: ${describeError(x.error)}`,
    durationMs: x.endedAt - x.startedAt,
    notModified,
  };
}

/** What the exchange's records are, and what the archive remembers of them. */
export interface ExchangeRecords {
  records: RecordBytes[];
  /** The response (or revisit) record's ID and date, when one was written. */
  response: Capture | undefined;
  /** Which of `records` is the response or revisit (the one the index lists), when there is one. */
  responseAt: number | undefined;
  revisit: boolean;
  /** The revisit is a server-not-modified one (a 304 to a refresh's conditional request). */
  notModified: boolean;
  /**
   * The payload's digest, when a response was recorded whose final header
   * section arrived whole: of the whole payload, or of the part recorded
   * when the response was cut short (`truncated` in the input).
   */
  payloadDigest: string | undefined;
}

const EMPTY = Buffer.alloc(0);
const HTTP_REQUEST = 'application/http;msgtype=request';
const HTTP_RESPONSE = 'application/http;msgtype=response';

/**
 * Where the final response's header section ends in the bytes read (after
 * its blank line), past any interim 1xx responses; the whole when it did
 * not arrive whole (see finalHead).
 */
export function headEnd(bytes: Buffer): number {
  return finalHead(bytes)?.bodyAt ?? bytes.length;
}

/**
 * The records for `x`. `earlier` answers whether a payload digest was
 * archived before (then a revisit is written instead of the whole response).
 */
export function exchangeRecords(x: ExchangeInput, earlier: (payloadDigest: string) => Capture | undefined): ExchangeRecords {
  const { uri, date, requestId, responseId } = x;
  const records: RecordBytes[] = [];
  if (requestId !== undefined) {
    records.push(
      serializeRecord({
        type: 'request',
        fields: [
          ['WARC-Record-ID', requestId],
          ['WARC-Date', date],
          ['WARC-Target-URI', uri],
          ['WARC-IP-Address', x.ip],
          ['WARC-Concurrent-To', responseId],
          ['Content-Type', HTTP_REQUEST],
          ['WARC-Block-Digest', sha1Digest(x.request)],
          // A GET has no body: its payload is empty.
          ['WARC-Payload-Digest', sha1Digest(EMPTY)],
        ],
        block: [x.request],
      }),
    );
  }
  // A 304 whose head arrived whole is the earlier payload's revisit; one cut short is the record of a failure.
  const notModified = responseId !== undefined && x.truncated === undefined ? x.notModified : undefined;
  // A response cut short has the payload it recorded (WARC 1.1 §5.9), read back from its bytes.
  const payload = x.truncated === undefined ? x.payload : responseId === undefined ? undefined : recordedPayload(x.response);
  const payloadDigest = notModified !== undefined ? notModified.digest : payload !== undefined ? sha1Digest(payload) : undefined;
  let response: Capture | undefined;
  let responseAt: number | undefined;
  let revisit = false;
  if (responseId !== undefined) {
    responseAt = records.length;
    // Only a whole payload is another capture's: a part of one, even when equal, is the record of a failure.
    const before =
      notModified === undefined && x.truncated === undefined && payload !== undefined && payload.length > 0 && payloadDigest !== undefined ? earlier(payloadDigest) : undefined;
    revisit = before !== undefined || notModified !== undefined;
    const common: Array<[string, string | undefined]> = [
      ['WARC-Record-ID', responseId],
      ['WARC-Date', date],
      ['WARC-Target-URI', uri],
      ['WARC-IP-Address', x.ip],
      ['WARC-Concurrent-To', requestId],
      ['Content-Type', HTTP_RESPONSE],
    ];
    if (notModified !== undefined) {
      // WARC 1.1 §6.7.3: the block is the 304 as read (a head and no body); the payload is the earlier one, named by its digest.
      const was = notModified.refersTo;
      records.push(
        serializeRecord({
          type: 'revisit',
          fields: [
            ...common,
            ['WARC-Profile', SERVER_NOT_MODIFIED_PROFILE],
            ['WARC-Refers-To-Target-URI', was?.uri ?? uri],
            ['WARC-Refers-To-Date', was?.date],
            ['WARC-Refers-To', was?.id],
            ['WARC-Block-Digest', sha1Digest(x.response)],
            ['WARC-Payload-Digest', payloadDigest],
          ],
          block: [x.response],
        }),
      );
    } else if (before !== undefined) {
      // WARC 1.1 §6.7.2: the block is the response's header section; the payload is the earlier capture's.
      const head = x.response.subarray(0, headEnd(x.response));
      records.push(
        serializeRecord({
          type: 'revisit',
          fields: [
            ...common,
            ['WARC-Profile', IDENTICAL_PAYLOAD_PROFILE],
            ['WARC-Refers-To-Target-URI', before.uri],
            ['WARC-Refers-To-Date', before.date],
            ['WARC-Refers-To', before.id],
            ['WARC-Block-Digest', sha1Digest(head)],
            ['WARC-Payload-Digest', payloadDigest],
            ['WARC-Truncated', 'length'],
          ],
          block: [head],
        }),
      );
    } else {
      records.push(
        serializeRecord({
          type: 'response',
          fields: [...common, ['WARC-Block-Digest', sha1Digest(x.response)], ['WARC-Payload-Digest', payloadDigest], ['WARC-Truncated', x.truncated]],
          block: [x.response],
        }),
      );
    }
    response = { uri, date, id: responseId };
  }
  if (x.failure !== undefined) {
    const fields: Array<[string, string]> = [['fetch-error', x.failure]];
    if (x.truncated !== undefined) fields.push(['truncated', x.truncated]);
    fields.push(['duration-ms', x.durationMs.toFixed(3)]);
    const block = warcFields(fields);
    records.push(
      serializeRecord({
        type: 'metadata',
        fields: [
          ['WARC-Record-ID', newRecordId()],
          ['WARC-Date', x.endDate],
          ['WARC-Target-URI', uri],
          ['WARC-Concurrent-To', responseId ?? requestId],
          ['Content-Type', 'application/warc-fields'],
          ['WARC-Block-Digest', sha1Digest(block)],
        ],
        block: [block],
      }),
    );
  }
  return { records, response, responseAt, revisit, notModified: notModified !== undefined, payloadDigest };
}
