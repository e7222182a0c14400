/**
 * What passes between the crawl's thread and the archive's
 * (record-thread-client.ts and record-thread.ts): jobs one way, answers the
 * other. An exchange's bytes travel in one piece: request, response, and
 * the payload when it is not already a part of the response (a chunked body
 * is decoded apart; a Content-Length body is a view of the bytes read). The
 * piece is a place in the shared ring (send-ring.ts), or, when the ring is
 * full, an ArrayBuffer of its own, moved (transferred), not copied again.
 */
import type { CdxjEntry } from './cdxj-line.js';
import type { ExchangeInput } from './exchange-records.js';
import type { PageMetadata, RecordWriterOptions } from './record-writer.js';
import type { SendRing } from './send-ring.js';

/** An exchange with its bytes packed: request, response, then a payload apart when there is one. */
export interface PackedExchange extends Omit<ExchangeInput, 'request' | 'response' | 'payload'> {
  /** The bytes, when they travel on their own; else they are in the ring at `ringAt`. */
  bytes: Uint8Array | undefined;
  ringAt: number;
  /** Where the ring may be given back up to once this job is done (0 for bytes of their own). */
  ringEnd: number;
  requestLength: number;
  responseLength: number;
  /** Where the payload is in `bytes` (start, length), when there is one. */
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

/** Packs `x` into a place in `ring`, or a buffer of its own (for transfer): one copy of the bytes, the only one. */
export function packExchange(x: ExchangeInput, ring: SendRing): PackedExchange {
  const { request, response, payload, ...rest } = x;
  // A payload inside the response's bytes travels as its place there.
  const inside =
    payload !== undefined && payload.buffer === response.buffer && payload.byteOffset >= response.byteOffset && payload.byteOffset + payload.length <= response.byteOffset + response.length;
  const apart = payload !== undefined && !inside ? payload.length : 0;
  const total = request.length + response.length + apart;
  const place = ring.reserve(total);
  // Not zero-filled, and its ArrayBuffer its own (transferable): every byte is set below.
  const bytes = place === undefined ? Buffer.allocUnsafeSlow(total) : ring.bytes.subarray(place.offset, place.offset + total);
  bytes.set(request, 0);
  bytes.set(response, request.length);
  let payloadAt: [number, number] | undefined;
  if (payload !== undefined) {
    if (inside) payloadAt = [request.length + payload.byteOffset - response.byteOffset, payload.length];
    else {
      bytes.set(payload, request.length + response.length);
      payloadAt = [request.length + response.length, payload.length];
    }
  }
  return {
    ...rest,
    bytes: place === undefined ? bytes : undefined,
    ringAt: place?.offset ?? 0,
    ringEnd: place?.end ?? 0,
    requestLength: request.length,
    responseLength: response.length,
    payload: payloadAt,
  };
}

/** The exchange `packed` holds, its parts views of its bytes (in `ring`, or its own). */
export function unpackExchange(packed: PackedExchange, ring: SharedArrayBuffer): ExchangeInput {
  const { bytes, ringAt, ringEnd: _end, requestLength, responseLength, payload, ...rest } = packed;
  const base = bytes === undefined ? ring : bytes.buffer;
  const at = bytes === undefined ? ringAt : bytes.byteOffset;
  const view = (start: number, length: number): Buffer => Buffer.from(base, at + start, length);
  return {
    ...rest,
    request: view(0, requestLength),
    response: view(requestLength, responseLength),
    payload: payload === undefined ? undefined : view(payload[0], payload[1]),
  };
}
