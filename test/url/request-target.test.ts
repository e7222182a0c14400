/** RFC 9112 §3.2: the request target as it goes on the wire, percent-encoded where it must be. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTarget } from '../../src/url/request-target.js';

test('the target is percent-encoded: no space, tab, CR, LF, NUL or non-ASCII byte reaches the request line', () => {
  assert.equal(encodeTarget('/a b\tc\r\nd\u0000e'), '/a%20b%09c%0D%0Ad%00e');
  assert.equal(encodeTarget('/caf\u00e9'), '/caf%C3%A9');
  assert.equal(encodeTarget('/"<>\\^`{|}'), '/%22%3C%3E%5C%5E%60%7B%7C%7D');
  assert.equal(encodeTarget('/ok/%41?x=1&y=2;z=@:'), '/ok/%41?x=1&y=2;z=@:');
});
