/**
 * PageThread (src/sink/page-thread-client.ts) on its own: each page file
 * (its head, then its body) goes into the shared ring in one piece, placed
 * so that the body's copy runs a word at a time (the same offset modulo 8 in
 * the ring as in its own buffer; V8 copies byte by byte otherwise), and the
 * file the thread writes from it is byte-exact, whatever the head's length
 * and the body's offset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PageThread } from '../../src/sink/page-thread-client.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('page-thread-client-');

test('each body is copied into the ring word-aligned, and every file is byte-exact', async () => {
  const dir = temp();
  const thread = await PageThread.start(dir);
  // Every copy into the ring, as (ring offset, source offset) modulo 8.
  const copies: Array<[number, number]> = [];
  const bytes = (thread as unknown as { ring: { bytes: Uint8Array } }).ring.bytes;
  bytes.set = function (this: Uint8Array, source: ArrayLike<number>, offset = 0): void {
    copies.push([offset % 8, (source as Uint8Array).byteOffset % 8]);
    Uint8Array.prototype.set.call(this, source, offset);
  };
  const files: Array<[string, Buffer]> = [];
  try {
    let n = 0;
    for (let headLength = 1; headLength <= 16; headLength++) {
      for (let bodyOffset = 0; bodyOffset < 8; bodyOffset++) {
        n++;
        const head = `${'h'.repeat(headLength - 1)}\n`;
        // The body is a view into a larger buffer, as a body read off a socket is.
        const whole = Buffer.alloc(bodyOffset + 3000 + n, 0x41 + (n % 26));
        const body = whole.subarray(bodyOffset);
        body[0] = 0x3c;
        const name = String(n);
        assert.ok(thread.queue(name, head, body) > 0, `page ${n} queued`);
        files.push([name, Buffer.concat([Buffer.from(head), body])]);
      }
    }
    await thread.written();
  } finally {
    await thread.close();
  }
  assert.equal(copies.length, files.length, 'one copy of each body');
  for (const [i, [ring, source]] of copies.entries()) assert.equal(ring, source, `page ${i + 1}: ring offset ${ring} against the body's ${source} (mod 8)`);
  for (const [name, content] of files) assert.deepEqual(readFileSync(join(dir, name)), content, `file ${name}`);
});
