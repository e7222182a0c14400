/**
 * Responses with every part the wire tap and the archive must keep as sent:
 * a chunked one with a folded header line, a chunk extension and trailers,
 * and a Content-Length one to follow it on the same connection.
 */

/** A chunked response with a folded header line and a trailer section, as the server sends it. */
export const CHUNKED_FOLDED =
  'HTTP/1.1 200 OK\r\n' +
  'Content-Type: text/html\r\n' +
  'X-Folded: first part\r\n' +
  '  continued on a second line\r\n' +
  'Transfer-Encoding: chunked\r\n' +
  'Trailer: X-Checksum\r\n' +
  '\r\n' +
  '7\r\n<html>\n\r\n' +
  '1a;ext=1\r\n<title>Chunked</title></ht\r\n' +
  '3\r\nml>\r\n' +
  '0\r\n' +
  'X-Checksum: abc\r\n' +
  '\r\n';
export const CHUNKED_PAYLOAD = '<html>\n<title>Chunked</title></html>';
export const LENGTH_BODY = '<html><title>Second</title>kept alive</html>';
export const LENGTH_RESPONSE = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${LENGTH_BODY.length}\r\n\r\n${LENGTH_BODY}`;

