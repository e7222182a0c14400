/**
 * Counts the distinct colours of a PNG screenshot (8-bit RGB or RGBA, not
 * interlaced: what chromium writes), so a test can tell a drawn page from
 * a blank one without an image library.
 */
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';

export function distinctColours(png: Buffer): number {
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  let off = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (off < png.length) {
    const len = png.readUInt32BE(off);
    const type = png.subarray(off + 4, off + 8).toString('latin1');
    const data = png.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, '8 bits per channel');
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0;
      assert.ok(channels > 0 && data[12] === 0, 'RGB(A), not interlaced');
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const prev = Buffer.alloc(stride);
  const row = Buffer.alloc(stride);
  const colours = new Set<number>();
  for (let y = 0; y < height; y++) {
    const base = y * (stride + 1);
    const filter = raw[base] as number;
    for (let i = 0; i < stride; i++) {
      const x = raw[base + 1 + i] as number;
      const a = i >= channels ? (row[i - channels] as number) : 0;
      const b = prev[i] as number;
      const c = i >= channels ? (prev[i - channels] as number) : 0;
      let v = x;
      if (filter === 1) v = x + a;
      else if (filter === 2) v = x + b;
      else if (filter === 3) v = x + ((a + b) >> 1);
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      row[i] = v & 0xff;
    }
    for (let i = 0; i < stride; i += channels) colours.add(((row[i] as number) << 16) | ((row[i + 1] as number) << 8) | (row[i + 2] as number));
    row.copy(prev);
  }
  return colours.size;
}
