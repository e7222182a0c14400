/**
 * The records of one wire exchange (spec decision "The crawl archive"): a
 * `request` record holding the bytes written, then a `response` record
 * holding exactly the bytes read for the message (or a `revisit` when its
 * payload was archived before), both naming each other in
 * WARC-Concurrent-To; a response cut short carries WARC-Truncated, and an
 * exchange that failed is followed by a `metadata` record saying why.
 * Pure, apart from the new record IDs.
 */
import { describeError } from '../errors.js';
import type { WireExchange } from '../http/wire-exchange.js';
import { sha1Digest } from './digest.js';
import { newRecordId, serializeRecord, warcDate, warcFields } from './warc-record.js';

/** WARC 1.1 §6.7.2: the profile of a revisit whose payload is identical to an earlier capture's. */
export const IDENTICAL_PAYLOAD_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';

/** An earlier capture of a payload, as a revisit refers to it. */
export interface Capture {
  uri: string;
  date: string;
  id: string;
}

/** What the exchange's records are, and what the archive remembers of them. */
export interface ExchangeRecords {
  records: Buffer[];
  /** The response (or revisit) record's ID and date, when one was written. */
  response: Capture | undefined;
  /** The payload's digest, when the response was complete. */
  payloadDigest: string | undefined;
}

const EMPTY = Buffer.alloc(0);
const HTTP_REQUEST = 'application/http;msgtype=request';
const HTTP_RESPONSE = 'application/http;msgtype=response';

/**
 * Where the final response's header section ends in the bytes read (after
 * its blank line), past any interim 1xx responses; the whole when no blank
 * line is found. Lines end in CRLF or a bare LF (as the parser accepts).
 */
export function headEnd(bytes: Buffer): number {
  let start = 0;
  for (;;) {
    const crlf = bytes.indexOf('\r\n\r\n', start, 'latin1');
    const lf = bytes.indexOf('\n\n', start, 'latin1');
    const end = crlf === -1 ? (lf === -1 ? -1 : lf + 2) : lf === -1 || crlf + 1 < lf ? crlf + 4 : lf + 2;
    if (end === -1) return bytes.length;
    const status = /^\s*HTTP\/\d\.\d (\d{3})/.exec(bytes.toString('latin1', start, Math.min(end, start + 64)))?.[1];
    if (status === undefined || status[0] !== '1') return end;
    start = end;
  }
}

/**
 * The records for `x`. `earlier` answers whether a payload digest was
 * archived before (then a revisit is written instead of the whole response).
 */
export function exchangeRecords(x: WireExchange, earlier: (payloadDigest: string) => Capture | undefined): ExchangeRecords {
  const uri = x.url.key;
  const date = warcDate(x.startedAt);
  const requestId = newRecordId();
  const answered = x.response.length > 0;
  const responseId = answered ? newRecordId() : undefined;
  const records: Buffer[] = [
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
  ];
  const payloadDigest = x.payload !== undefined && x.truncated === undefined ? sha1Digest(x.payload) : undefined;
  let response: Capture | undefined;
  if (responseId !== undefined) {
    const before = payloadDigest !== undefined && (x.payload as Buffer).length > 0 ? earlier(payloadDigest) : undefined;
    const common: Array<[string, string | undefined]> = [
      ['WARC-Record-ID', responseId],
      ['WARC-Date', date],
      ['WARC-Target-URI', uri],
      ['WARC-IP-Address', x.ip],
      ['WARC-Concurrent-To', requestId],
      ['Content-Type', HTTP_RESPONSE],
    ];
    if (before !== undefined) {
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
  if (x.error !== undefined) {
    const fields: Array<[string, string]> = [['fetch-error', `${x.error.code}: ${describeError(x.error)}`]];
    if (x.truncated !== undefined) fields.push(['truncated', x.truncated]);
    fields.push(['duration-ms', (x.endedAt - x.startedAt).toFixed(3)]);
    const block = warcFields(fields);
    records.push(
      serializeRecord({
        type: 'metadata',
        fields: [
          ['WARC-Record-ID', newRecordId()],
          ['WARC-Date', warcDate(x.endedAt)],
          ['WARC-Target-URI', uri],
          ['WARC-Concurrent-To', responseId ?? requestId],
          ['Content-Type', 'application/warc-fields'],
          ['WARC-Block-Digest', sha1Digest(block)],
        ],
        block: [block],
      }),
    );
  }
  return { records, response, payloadDigest };
}
