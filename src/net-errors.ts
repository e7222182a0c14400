/**
 * What the system's network errors mean, in plain words: the codes Node's
 * sockets, TLS and name lookups fail with (ECONNREFUSED, ENOTFOUND,
 * ERR_SSL_WRONG_VERSION_NUMBER...) mapped to one of our codes and to the
 * few words a person reads in a log or a PANIC ("connection refused",
 * "host name not found"). The words are ours, never text from the network:
 * an error the tables do not know is named by its code.
 */
import type { ErrorCode } from './errors.js';

/** The system's code of an error (`err.code`), or '' when it has none. */
export function systemCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** Codes of a name lookup that found nothing (getaddrinfo's EAI_*, c-ares' codes, and Node's own names for them). */
const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ESERVFAIL', 'EREFUSED', 'ETIMEOUT']);
/** Codes of a TCP connect that got no connection. */
const CONNECT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EHOSTDOWN', 'ENETDOWN']);

/** Maps a Node socket (or lookup, or TLS) error to one of our codes. */
export function socketErrorCode(err: unknown): ErrorCode {
  const code = systemCode(err);
  if (DNS_CODES.has(code)) return 'ERR_DNS';
  if (CONNECT_CODES.has(code)) return 'ERR_CONNECT';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || isCertificateFailure(code)) return 'ERR_TLS';
  return 'ERR_SOCKET';
}

const SOCKET_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host is down',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network is down',
  EADDRNOTAVAIL: 'address not available',
  ECONNRESET: 'connection reset by the server',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed by the server while the request was sent',
  ETIMEDOUT: 'connection timed out',
};

/** A socket error in words ("connection refused"); an unknown one by its code. */
export function socketFailureWords(err: unknown): string {
  const code = systemCode(err);
  return SOCKET_WORDS[code] ?? (code === '' ? 'connection error' : `connection error ${code}`);
}

/** A socket error in words when its code is one the table knows ("connection refused"), else undefined. */
export function knownSocketWords(err: unknown): string | undefined {
  return SOCKET_WORDS[systemCode(err)];
}

const DNS_WORDS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'host name not found',
  EAI_NONAME: 'host name not found',
  ENODATA: 'the host name has no address',
  EAI_NODATA: 'the host name has no address',
  // Offline, getaddrinfo says EAI_AGAIN where a name server would have said ENOTFOUND.
  EAI_AGAIN: 'no name server answered (temporary failure in name resolution)',
  ETIMEOUT: 'no name server answered in time',
  ECONNREFUSED: 'no name server could be reached',
  ESERVFAIL: 'the name server failed',
  EAI_FAIL: 'the name server failed',
  EREFUSED: 'the name server refused the query',
};

/** A name lookup's failure in words ("host name not found"); an unknown one by its code. */
export function dnsFailureWords(err: unknown): string {
  const code = systemCode(err);
  return DNS_WORDS[code] ?? (code === '' ? 'lookup failed' : `lookup failed: ${code}`);
}

/**
 * Certificate and handshake failures in words. OpenSSL's own messages are
 * plain already, but some quote the certificate (names the server chose), so
 * fixed words stand in for them.
 */
const TLS_WORDS: Readonly<Record<string, string>> = {
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server did not answer in TLS',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'the server did not answer in TLS',
  ERR_SSL_HTTP_REQUEST: 'the server did not answer in TLS',
  ECONNRESET: 'the server closed the connection during the handshake',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate not signed by a trusted authority',
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not valid yet',
  CERT_REVOKED: 'certificate revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'no TLS version in common with the server',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'no TLS version in common with the server',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'the server refused the handshake',
};

/** A TLS handshake's failure in words; an unknown one by its code. */
export function tlsFailureWords(err: unknown): string {
  const code = systemCode(err);
  return TLS_WORDS[code] ?? (code === '' ? 'handshake failed' : code);
}

/** Codes of a certificate that could not be verified (OpenSSL's X509_V_ERR_* names, and Node's for a wrong host name). */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** True for a certificate that could not be verified (not a failure of the handshake itself): not checking would get past it. */
export function isCertificateFailure(code: string): boolean {
  return CERTIFICATE_CODES.has(code);
}
