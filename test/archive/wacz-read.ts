/**
 * A WACZ read back in tests with yauzl (not the project's ZIP code): every
 * entry as stored, and the pages list.
 */
import assert from 'node:assert/strict';
import yauzl from 'yauzl';

export interface ZipEntry {
  method: number;
  /** Where the entry's data starts in the .wacz. */
  dataStart: number;
  data: Buffer;
}

/** Every entry of the ZIP at `path`: compression method, data offset and content. */
export async function readZip(path: string): Promise<Map<string, ZipEntry>> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  const out = new Map<string, ZipEntry>();
  try {
    const entries: yauzl.Entry[] = await new Promise((resolve, reject) => {
      const list: yauzl.Entry[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        list.push(e);
        zip.readEntry();
      });
      zip.on('end', () => resolve(list));
      zip.on('error', reject);
      zip.readEntry();
    });
    for (const e of entries) {
      const { fileDataStart } = await zip.readLocalFileHeaderPromise(e, { minimal: true });
      const chunks: Buffer[] = [];
      for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c as Buffer);
      out.set(e.fileName, { method: e.compressionMethod, dataStart: fileDataStart, data: Buffer.concat(chunks) });
    }
  } finally {
    zip.close();
  }
  return out;
}

/** The pages `pages/pages.jsonl` of the WACZ at `path` lists (its header line checked and left out). */
export async function waczPages(path: string): Promise<Array<{ url: string; ts: string; title?: string }>> {
  const text = (await readZip(path)).get('pages/pages.jsonl')?.data.toString('utf8') ?? '';
  const [header, ...lines] = text.trim().split('\n');
  assert.equal(JSON.parse(header ?? '{}').format, 'json-pages-1.0');
  return lines.map((l) => JSON.parse(l) as { url: string; ts: string; title?: string });
}
