/**
 * What passes between the crawl's thread and the archive's
 * (record-thread-client.ts and record-thread.ts): jobs one way, answers the
 * other. An exchange's bytes travel in one piece: request, response, and
 * the payload when it is not already a part of the response (a chunked body
 * is decoded apart; a Content-Length body is a view of the bytes read). The
 * piece is a place in the shared ring (src/thread/send-ring.ts), or, when the ring is
 * full, an ArrayBuffer of its own, moved (transferred), not copied again.
 */
import type { CdxjEntry } from './cdxj-line.js';
import type { ExchangeInput } from './exchange-records.js';
import type { PageMetadata, RecordWriterOptions } from './record-writer.js';
import { ALIGN_SLACK, alignedFor, type SendRing } from '../thread/send-ring.js';

/** An exchange with its bytes packed: request, response, then a payload apart when there is one. */
export interface PackedExchange extends Omit<ExchangeInput, 'request' | 'response' | 'payload'> {
  /** The bytes, when they travel on their own; else they are in the ring at `ringAt`. */
  bytes: Uint8Array | undefined;
  ringAt: number;
  /** Where the ring may be given back up to once this job is done (0 for bytes of their own). */
  ringEnd: number;
  /** Where the request and the response start in the piece (after padding: see alignedFor). */
  requestAt: number;
  requestLength: number;
  responseAt: number;
  responseLength: number;
  /** Where the payload is in the piece (start, length), when there is one. */
  payload: [number, number] | undefined;
}

export type RecordJob = { kind: 'exchange'; seq: number; x: PackedExchange } | { kind: 'metadata'; seq: number; m: PageMetadata };

/** Main to thread. */
export type ToRecordThread = { t: 'jobs'; jobs: RecordJob[] } | { t: 'close' };

/** A CrawlerError across the thread boundary. */
export interface ThreadFailure {
  code: string;
  message: string;
}

/**
 * Thread to main: opened (or not), each batch written (`seq`: the last job
 * written in full; with `failure`, the write that failed, after which the
 * thread writes nothing), closed.
 */
export type FromRecordThread =
  | { t: 'ready' }
  | { t: 'refused'; failure: ThreadFailure }
  | { t: 'written'; seq: number; ringEnd: number; failure: ThreadFailure | undefined }
  | { t: 'closed'; files: string[]; index: CdxjEntry[] | undefined; failure: ThreadFailure | undefined };

/** What the thread is started with (workerData): the archive, and the ring the bytes come in. */
export type RecordThreadData = RecordWriterOptions & { ring: SharedArrayBuffer };

/** Room for aligning each of the three parts (src/thread/send-ring.ts, alignedFor). */
const PADDING = 3 * ALIGN_SLACK;

/** Packs `x` into a place in `ring`, or a buffer of its own (for transfer): one copy of the bytes, the only one. */
export function packExchange(x: ExchangeInput, ring: SendRing): PackedExchange {
  const { request, response, payload } = x;
  // A payload inside the response's bytes travels as its place there.
  const inside =
    payload !== undefined && payload.buffer === response.buffer && payload.byteOffset >= response.byteOffset && payload.byteOffset + payload.length <= response.byteOffset + response.length;
  const apart = payload !== undefined && !inside ? payload.length : 0;
  const place = ring.reserve(request.length + response.length + apart + PADDING);
  const base = place?.offset ?? 0;
  const requestAt = alignedFor(request, base, 0);
  const responseAt = alignedFor(response, base, requestAt + request.length);
  const payloadApartAt = payload !== undefined && !inside ? alignedFor(payload, base, responseAt + response.length) : responseAt + response.length;
  const total = payloadApartAt + apart;
  // Not zero-filled, and its ArrayBuffer its own (transferable): every byte read is set below.
  const bytes = place === undefined ? Buffer.allocUnsafeSlow(total) : ring.bytes.subarray(base, base + total);
  bytes.set(request, requestAt);
  bytes.set(response, responseAt);
  let payloadAt: [number, number] | undefined;
  if (payload !== undefined) {
    if (inside) payloadAt = [responseAt + payload.byteOffset - response.byteOffset, payload.length];
    else {
      bytes.set(payload, payloadApartAt);
      payloadAt = [payloadApartAt, payload.length];
    }
  }
  // Every field named: an object rest and its spread are copied on V8's slow path (docs/performance.md, The cost of `--warc`).
  return {
    uri: x.uri,
    ip: x.ip,
    date: x.date,
    endDate: x.endDate,
    requestId: x.requestId,
    responseId: x.responseId,
    truncated: x.truncated,
    failure: x.failure,
    durationMs: x.durationMs,
    notModified: x.notModified,
    bytes: place === undefined ? bytes : undefined,
    ringAt: base,
    ringEnd: place?.end ?? 0,
    requestAt,
    requestLength: request.length,
    responseAt,
    responseLength: response.length,
    payload: payloadAt,
  };
}

/** The exchange `packed` holds, its parts views of its bytes (in `ring`, or its own). */
export function unpackExchange(packed: PackedExchange, ring: SharedArrayBuffer): ExchangeInput {
  const { bytes, payload } = packed;
  const base = bytes === undefined ? ring : bytes.buffer;
  const at = bytes === undefined ? packed.ringAt : bytes.byteOffset;
  const view = (start: number, length: number): Buffer => Buffer.from(base, at + start, length);
  return {
    uri: packed.uri,
    ip: packed.ip,
    date: packed.date,
    endDate: packed.endDate,
    requestId: packed.requestId,
    responseId: packed.responseId,
    request: view(packed.requestAt, packed.requestLength),
    response: view(packed.responseAt, packed.responseLength),
    payload: payload === undefined ? undefined : view(payload[0], payload[1]),
    truncated: packed.truncated,
    failure: packed.failure,
    durationMs: packed.durationMs,
    notModified: packed.notModified,
  };
}
