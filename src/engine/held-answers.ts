/**
 * Answers that arrived ahead of their turn, waiting for it (lookahead.ts).
 * A broad crawl fetches ahead across thousands of hosts while it hands
 * pages out in breadth-first order, so most of its answers wait, some for
 * many seconds: at 2,000 hosts x 10 pages, some 15,000 at once near the end.
 *
 * What an answer holds in memory while it waits is counted: its body, its
 * header and trailer fields (each a small array and two strings, one of
 * them a slice that keeps the whole header line alive: some 130 bytes
 * besides the text) and the response object. Up to `budget` bytes of them
 * stay as they are; beyond it an answer's fields and body go to the spill
 * (sink/body-spill.ts), on disk, as one record, and come back whole when its
 * turn comes. Only the response object and its small fields stay behind.
 *
 * An answer whose page was staged on disk as it arrived (`early`, a page
 * sink's stageEarly) leaves its body there, and its fields wait packed into
 * one string (some 200 bytes); its body is read back only if something asks
 * for it in its turn (a page at the depth limit, saved and not scanned,
 * never is).
 *
 * The fields are counted with the bodies: at thousands of hosts they
 * weigh nearly as much (docs/performance.md, Answers that wait).
 */
import type { FetchResponse } from '../http/client.js';
import type { Field } from '../http/header-lines.js';
import type { EarlyStagedPage } from '../sink/page-sink.js';
import type { BodySpill, SpilledBody } from '../sink/body-spill.js';

/**
 * Default budget: bytes of answers waiting for their turn kept in memory
 * before the rest are spilled. A larger budget only raised the peak RSS of
 * a broad crawl, and reading an answer back is cheap (docs/performance.md,
 * Answers that wait; the bins' heap growth: src/cli/early-tiering.ts).
 */
export const DEFAULT_AHEAD_MEMORY = 4 * 1024 * 1024;

/** Memory of a field besides its text: its array and its backing store, a string header each, and the slice. */
const FIELD_OVERHEAD = 130;
/** Memory of a response object and its small members. */
const RESPONSE_OVERHEAD = 160;

/** One answer waiting: what it counts in memory, or where it went. */
export interface Held {
  /** Bytes counted while it waits in memory; 0 when spilled. */
  readonly bytes: number;
  /** Its fields and body, when they wait in the spill. */
  readonly spilled?: SpilledBody;
  /** Its page, staged on disk as it arrived; its body is there. */
  readonly early?: EarlyStagedPage;
  /** With `early`: its fields, packed into one string while it waits (see packFields). */
  readonly fields?: string;
}

const EMPTY = Buffer.alloc(0);
const NONE: Field[] = [];

/** Bytes an answer's fields and body hold in memory (an estimate, see FIELD_OVERHEAD). */
export function answerBytes(response: FetchResponse): number {
  let n = RESPONSE_OVERHEAD + response.body.length;
  for (const f of response.headers) n += FIELD_OVERHEAD + 2 * f[0].length + f[1].length;
  for (const f of response.trailers) n += FIELD_OVERHEAD + 2 * f[0].length + f[1].length;
  return n;
}

/** The header and trailer fields as one JSON string: some 200 bytes for a usual answer, against 700 and more as arrays of sliced strings. */
function packFields(response: FetchResponse): string {
  const text = JSON.stringify(response.trailers.length === 0 ? [response.headers] : [response.headers, response.trailers]);
  // V8 gives JSON.stringify's result as a concatenation of its pieces (some 100 bytes more while it
  // waits); reading a character flattens it into one string, and the next collection drops the pieces.
  text.charCodeAt(0);
  return text;
}

function unpackFields(text: string, response: FetchResponse): void {
  const [headers, trailers] = JSON.parse(text) as [Field[], Field[]?];
  response.headers = headers;
  response.trailers = trailers ?? NONE;
}

/** The spilled record: the fields as JSON (its UTF-8 length first, 4 bytes), then the body. */
function pack(response: FetchResponse): Buffer {
  const fields = Buffer.from(packFields(response), 'utf8');
  const record = Buffer.allocUnsafe(4 + fields.length + response.body.length);
  record.writeUInt32BE(fields.length, 0);
  fields.copy(record, 4);
  response.body.copy(record, 4 + fields.length);
  return record;
}

function unpack(record: Buffer, response: FetchResponse): void {
  const length = record.readUInt32BE(0);
  unpackFields(record.toString('utf8', 4, 4 + length), response);
  response.body = record.subarray(4 + length);
}

/** Makes `response.body` read `early`'s body back the first time it is asked for (and a plain field again once set). */
function bodyFrom(response: FetchResponse, early: EarlyStagedPage): void {
  let body: Buffer | undefined;
  Object.defineProperty(response, 'body', {
    configurable: true,
    enumerable: true,
    get: () => (body ??= early.body()),
    set: (b: Buffer) => Object.defineProperty(response, 'body', { value: b, writable: true, configurable: true, enumerable: true }),
  });
}

/** Takes the fields and the body off a response that waits (they wait elsewhere). */
function strip(response: FetchResponse): void {
  response.headers = NONE;
  response.trailers = NONE;
  response.body = EMPTY;
}

/** The answers waiting for their turn and the memory they hold (see the module comment). */
export class HeldAnswers {
  private inMemory = 0;
  /** Pages staged early whose answers wait: discarded at close when their turn never came. */
  private readonly staged = new Set<EarlyStagedPage>();

  /** `spill` undefined: every answer waits in memory, whatever the budget. */
  constructor(
    private readonly spill: BodySpill | undefined,
    private readonly budget = DEFAULT_AHEAD_MEMORY,
  ) {}

  /** Bytes of the answers waiting in memory, as counted. */
  get bytes(): number {
    return this.inMemory;
  }

  /**
   * Counts `response` as waiting; beyond the budget its fields and body go
   * to the spill (the object keeps none). With `early`, its page staged on
   * disk, the body is let go at once and only the fields are counted.
   */
  hold(response: FetchResponse, early?: EarlyStagedPage): Held {
    if (early !== undefined) {
      const fields = packFields(response);
      // The saved page keeps the body's size as it travelled; known now, it need not be read back for it.
      response.wireBodyBytes ??= response.body.length;
      strip(response);
      const bytes = RESPONSE_OVERHEAD + fields.length;
      this.inMemory += bytes;
      this.staged.add(early);
      return { bytes, early, fields };
    }
    const bytes = answerBytes(response);
    if (this.spill !== undefined && this.inMemory + bytes > this.budget) {
      const spilled = this.spill.put(pack(response));
      strip(response);
      return { bytes: 0, spilled };
    }
    this.inMemory += bytes;
    return { bytes };
  }

  /**
   * The answer's turn has come: `response` whole again (read back when it
   * was spilled), no longer counted. A page staged early is returned, its
   * body read back when asked for; with `keepEarly` false it is discarded
   * and the body read back at once.
   */
  restore(response: FetchResponse, held: Held, keepEarly = true): EarlyStagedPage | undefined {
    if (held.spilled !== undefined) unpack((this.spill as BodySpill).take(held.spilled), response);
    else this.inMemory -= held.bytes;
    const early = held.early;
    if (early === undefined) return undefined;
    unpackFields(held.fields as string, response);
    this.staged.delete(early);
    if (keepEarly) {
      bodyFrom(response, early);
      return early;
    }
    try {
      response.body = early.body();
    } finally {
      early.discard();
    }
    return undefined;
  }

  /** Discards the pages staged early whose turn never came, and closes the spill (its file's space is freed). */
  close(): void {
    for (const early of this.staged) early.discard();
    this.staged.clear();
    this.spill?.close();
  }
}
