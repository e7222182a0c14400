/**
 * What a crawl records of an answer it did not keep for what its head said
 * (engine/earlier-pages.ts unkeptAnswer), and the answer a refresh's 304
 * stands for (freshened, RFC 9111 §4.3.4): pure functions over responses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshened, unkeptAnswer } from '../../src/engine/earlier-pages.js';
import type { FetchResponse } from '../../src/http/client.js';
import { headerValue } from '../../src/http/response-parser.js';
import { tseWantsBody } from '../../src/programs/tse.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { fakeResponse } from '../helpers/fakes.js';

const KEY = 'http://h.example/tool.py';

function answer(status: number, headers: Array<[string, string]>): FetchResponse {
  return fakeResponse(parseHttpUrl(KEY), status, headers);
}

test('a 200 whose body the program had no use for is recorded with its validators and Content-Type', () => {
  const res = answer(200, [['Content-Type', 'text/x-python'], ['ETag', '"p1"'], ['Last-Modified', 'Mon, 01 Jun 2026 10:00:00 GMT']]);
  assert.deepEqual(unkeptAnswer(KEY, res, tseWantsBody), { key: KEY, etag: '"p1"', lastModified: 'Mon, 01 Jun 2026 10:00:00 GMT', contentType: 'text/x-python' });
});

test('nothing is recorded for an answer without a validator, an HTML one, another status, or a program that reads every body', () => {
  assert.equal(unkeptAnswer(KEY, answer(200, [['Content-Type', 'text/x-python']]), tseWantsBody), undefined, 'nothing to ask with');
  assert.equal(unkeptAnswer(KEY, answer(200, [['Content-Type', 'text/html'], ['ETag', '"h"']]), tseWantsBody), undefined, 'HTML');
  assert.equal(unkeptAnswer(KEY, answer(404, [['Content-Type', 'text/plain'], ['ETag', '"n"']]), tseWantsBody), undefined, 'a 404');
  assert.equal(unkeptAnswer(KEY, answer(200, [['Content-Type', 'text/x-python'], ['ETag', '"p1"']]), undefined), undefined, 'KeywordHunter');
});

test('a 304 stands for the earlier 200 of its type, with the validators the 304 sent, else the earlier ones', () => {
  const before = { key: KEY, etag: '"p1"', lastModified: 'Mon, 01 Jun 2026 10:00:00 GMT', contentType: 'application/zip' };
  const fresh = freshened(answer(304, [['ETag', '"p2"'], ['Content-Type', 'text/html']]), before);
  assert.equal(fresh.status, 200);
  assert.equal(headerValue(fresh.headers, 'content-type'), 'application/zip', 'the earlier type: a 304 carries no representation metadata');
  assert.equal(headerValue(fresh.headers, 'etag'), '"p2"');
  assert.equal(headerValue(fresh.headers, 'last-modified'), before.lastModified);
  assert.equal(tseWantsBody(fresh), false, 'so it is judged as the earlier answer was');
  assert.deepEqual(unkeptAnswer(KEY, fresh, tseWantsBody), { ...before, etag: '"p2"' }, 'and recorded again for the next refresh');
});
