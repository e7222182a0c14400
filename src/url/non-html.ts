/**
 * Links whose path ends in a well-known non-HTML extension are not requested
 * by `crawler` (spec decision "Non-HTML"): fetching an image or an archive
 * only to discard it costs the server and us.
 */

const NON_HTML_EXTENSIONS = new Set([
  // images
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'webp', 'svg', 'ico', 'tif', 'tiff', 'avif', 'heic',
  // documents and data
  'pdf', 'ps', 'eps', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf',
  'csv', 'json', 'xml', 'txt', 'md',
  // archives and binaries
  'zip', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'tar', 'jar', 'war', 'iso', 'dmg',
  'exe', 'msi', 'bin', 'deb', 'rpm', 'apk', 'whl',
  // media
  'mp3', 'mp4', 'm4a', 'm4v', 'wav', 'ogg', 'oga', 'ogv', 'flac', 'aac', 'avi', 'mov', 'mkv',
  'webm', 'wmv', 'flv', 'mpg', 'mpeg',
  // web assets that are never pages
  'css', 'js', 'mjs', 'map', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'wasm',
]);

/** True when the path's last segment has an extension that is never HTML. */
export function hasNonHtmlExtension(path: string): boolean {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1 || path.length - dot > 6) return false;
  return NON_HTML_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}

/** True when a Content-Type names HTML, or is absent (spec decision "Non-HTML"). */
export function isHtmlContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const semi = contentType.indexOf(';');
  const mime = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return mime === 'text/html' || mime === 'application/xhtml+xml' || mime === '';
}
