/**
 * The system's network error codes in our codes and in words
 * (src/net-errors.ts): each failure gets the code the engine acts on
 * (ERR_DNS, ERR_CONNECT and ERR_TLS are not retried; ERR_SOCKET is) and the
 * few words a person reads; an unknown code is named, never dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dnsFailureWords, isCertificateFailure, socketErrorCode, socketFailureWords, tlsFailureWords } from '../../src/net-errors.js';

const err = (code: string): Error => Object.assign(new Error(code), { code });

test('codes: lookups are ERR_DNS, refusals and unreachable networks ERR_CONNECT, TLS and every certificate failure ERR_TLS, the rest ERR_SOCKET', () => {
  for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ETIMEOUT']) assert.equal(socketErrorCode(err(code)), 'ERR_DNS', code);
  for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EHOSTDOWN']) assert.equal(socketErrorCode(err(code)), 'ERR_CONNECT', code);
  for (const code of ['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED']) {
    assert.equal(socketErrorCode(err(code)), 'ERR_TLS', code);
  }
  for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', '']) assert.equal(socketErrorCode(err(code)), 'ERR_SOCKET', code);
  assert.equal(socketErrorCode(new Error('no code')), 'ERR_SOCKET');
});

test('words: plain for what people meet, the code itself for anything else', () => {
  assert.equal(socketFailureWords(err('ECONNREFUSED')), 'connection refused');
  assert.equal(socketFailureWords(err('EHOSTUNREACH')), 'host unreachable');
  assert.equal(socketFailureWords(err('ECONNRESET')), 'connection reset by the server');
  assert.equal(socketFailureWords(err('EWEIRD')), 'connection error EWEIRD');
  assert.equal(socketFailureWords(new Error('x')), 'connection error');
  assert.equal(dnsFailureWords(err('ENOTFOUND')), 'host name not found');
  assert.equal(dnsFailureWords(err('EAI_NONAME')), 'host name not found');
  assert.match(dnsFailureWords(err('EAI_AGAIN')), /^no name server answered/);
  assert.equal(dnsFailureWords(err('EBADNAME')), 'lookup failed: EBADNAME');
  assert.equal(tlsFailureWords(err('ERR_SSL_WRONG_VERSION_NUMBER')), 'the server did not answer in TLS');
  assert.equal(tlsFailureWords(err('CERT_HAS_EXPIRED')), 'certificate has expired');
  assert.equal(tlsFailureWords(err('ERR_TLS_CERT_ALTNAME_INVALID')), 'the certificate is for another host name', 'fixed words: Node\'s message quotes the certificate');
  assert.equal(tlsFailureWords(err('ERR_SSL_SOMETHING_NEW')), 'ERR_SSL_SOMETHING_NEW');
});

test('a certificate failure is told apart from a failed handshake (only the first is for --insecure)', () => {
  for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']) assert.equal(isCertificateFailure(code), true, code);
  for (const code of ['ERR_SSL_WRONG_VERSION_NUMBER', 'ECONNRESET', '']) assert.equal(isCertificateFailure(code), false, code);
});
