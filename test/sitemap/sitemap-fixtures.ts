/**
 * Sitemap documents and a fake crawl fetcher for the sitemap tests: build a
 * urlset or an index from a list of locs, gzip it, and serve a table of
 * answers to the reader, recording what it asked for.
 */
import { gzipSync } from 'node:zlib';
import type { Field } from '../../src/http/header-lines.js';
import type { SitemapFetcher, SitemapResponse } from '../../src/sitemap/sitemap-reader.js';
import type { HttpUrl } from '../../src/url/http-url.js';

export const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** A `<urlset>` in the standard namespace, one `<url><loc>` a line (locs are inserted as written: escape them yourself). */
export function urlset(locs: readonly string[], ns = SITEMAP_NS): string {
  const entries = locs.map((loc) => `  <url><loc>${loc}</loc><lastmod>2024-01-01</lastmod></url>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset${ns === '' ? '' : ` xmlns="${ns}"`}>\n${entries}</urlset>\n`;
}

/** A `<sitemapindex>` in the standard namespace. */
export function sitemapIndex(locs: readonly string[]): string {
  const entries = locs.map((loc) => `  <sitemap><loc>${loc}</loc></sitemap>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${SITEMAP_NS}">\n${entries}</sitemapindex>\n`;
}

export function gzip(text: string | Buffer): Buffer {
  return gzipSync(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
}

/** An answer of the fake fetcher: a response, or an error it throws. */
export type Answer = { status?: number; headers?: Field[]; body: string | Buffer | AsyncIterable<Uint8Array> } | { error: Error };

export interface FakeSite {
  fetch: SitemapFetcher;
  /** The hrefs asked for, in order. */
  asked: string[];
}

/** A fetcher answering from `answers` (keyed by href); any other URL answers 404. */
export function fakeSite(answers: Record<string, Answer>): FakeSite {
  const asked: string[] = [];
  const fetch: SitemapFetcher = async (url: HttpUrl): Promise<SitemapResponse> => {
    asked.push(url.href);
    const answer = answers[url.href] ?? { status: 404, body: '<html>not found</html>' };
    if ('error' in answer) throw answer.error;
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
    return { status: answer.status ?? 200, headers: answer.headers ?? [['Content-Type', 'application/xml']], body };
  };
  return { fetch, asked };
}

/** A body of `head` then `count` times `chunk`, counting how many were pulled, and saying when it was let go (read to its end, or stopped). */
export function countedChunks(chunk: Buffer, count: number, head?: Buffer): { body: AsyncIterable<Uint8Array>; pulled: () => number; closed: () => boolean } {
  let pulled = 0;
  let closed = false;
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      if (head !== undefined) yield head;
      for (let i = 0; i < count; i++) {
        pulled++;
        yield chunk;
      }
    } finally {
      closed = true;
    }
  }
  return { body: body(), pulled: () => pulled, closed: () => closed };
}
