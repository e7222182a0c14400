/**
 * StreamWriter: the CLI's stdout and stderr. What is queued is counted until
 * the reader takes it; `room()` holds the crawl back while more than the
 * bound is queued; `flushed()` tells when every byte has been taken (the exit
 * waits for it); a broken stream (EPIPE) drops later writes and ends waits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { StreamWriter } from '../../src/cli/stream-writer.js';

/** A stream whose reader takes a chunk only when `take()` is called, or fails with `fail`. */
function slowReader(): { stream: Writable; got: Buffer[]; take(): void; fail(err: Error): void } {
  const waiting: Array<(err?: Error | null) => void> = [];
  const got: Buffer[] = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _enc, done) {
      got.push(chunk);
      waiting.push(done);
    },
  });
  return {
    stream,
    got,
    take: () => waiting.shift()?.(),
    fail: (err) => waiting.shift()?.(err),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('room() is undefined within the bound, a promise beyond it that resolves once the reader is down to half', async () => {
  const r = slowReader();
  const w = new StreamWriter(r.stream, undefined, 10);
  w.write('12345');
  w.write('67890');
  assert.equal(w.pending, 10);
  assert.equal(w.room(), undefined, 'at the bound: go on');
  w.write('x');
  const room = w.room();
  assert.ok(room !== undefined, 'beyond the bound: wait');
  let resolved = false;
  void room.then(() => (resolved = true));
  r.take(); // 6 left: above half (5)
  await tick();
  assert.equal(resolved, false, 'still more than half the bound queued');
  r.take(); // 1 left
  await tick();
  assert.equal(resolved, true);
  assert.equal(w.pending, 1);
});

test('flushed() resolves only once the reader has taken every byte', async () => {
  const r = slowReader();
  const w = new StreamWriter(r.stream);
  w.write('a');
  w.write(Buffer.from('bc'));
  let flushed = false;
  void w.flushed().then(() => (flushed = true));
  r.take();
  await tick();
  assert.equal(flushed, false);
  r.take();
  await tick();
  assert.equal(flushed, true);
  assert.equal(Buffer.concat(r.got).toString(), 'abc');
  assert.equal(w.pending, 0);
  let again = false;
  void w.flushed().then(() => (again = true));
  await tick();
  assert.equal(again, true, 'nothing queued: at once');
});

test('a broken stream (EPIPE): told once, waits end, later writes are dropped', async () => {
  const r = slowReader();
  const broken: Error[] = [];
  const w = new StreamWriter(r.stream, (err) => broken.push(err), 2);
  w.write('abc');
  const room = w.room();
  assert.ok(room !== undefined);
  const flushed = w.flushed();
  const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  r.fail(epipe);
  await room;
  await flushed;
  assert.equal(broken.length, 1);
  assert.equal((broken[0] as NodeJS.ErrnoException).code, 'EPIPE');
  assert.equal(w.broken, broken[0]);
  const before = r.got.length;
  w.write('more');
  assert.equal(r.got.length, before, 'dropped');
  assert.equal(w.room(), undefined);
  assert.equal(broken.length, 1, 'told once');
});

test('an empty write queues nothing', () => {
  const r = slowReader();
  const w = new StreamWriter(r.stream);
  w.write('');
  w.write(new Uint8Array(0));
  assert.equal(w.pending, 0);
  assert.equal(r.got.length, 0);
});
