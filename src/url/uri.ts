/**
 * Generic URI references per RFC 3986: split (Appendix B), resolve against a
 * base (§5.2), remove dot segments (§5.2.4) and recompose (§5.3). Strings are
 * kept as written: no percent-decoding, no case folding. That is the job of
 * the HTTP URL layer above, which knows the scheme.
 */

/** The five components of a URI reference; `undefined` means "not present". */
export interface UriParts {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

// RFC 3986 Appendix B, the regular expression for breaking down a URI reference.
const URI_RE = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** Splits a URI reference into its components (RFC 3986 Appendix B). Never throws. */
export function parseUriReference(ref: string): UriParts {
  const m = URI_RE.exec(ref);
  // The expression matches every string; the guard keeps the type checker honest.
  if (m === null) return { scheme: undefined, authority: undefined, path: ref, query: undefined, fragment: undefined };
  let scheme: string | undefined = m[1];
  let path = m[3] ?? '';
  let authority: string | undefined = m[2];
  // A "scheme" that is not a valid scheme (e.g. "a b:c") makes the whole
  // reference a relative path (§3.1, §4.2).
  if (scheme !== undefined && !SCHEME_RE.test(scheme)) {
    const rest = ref.slice(0, ref.length - (m[4] !== undefined ? m[4].length + 1 : 0) - (m[5] !== undefined ? m[5].length + 1 : 0));
    scheme = undefined;
    authority = undefined;
    path = rest;
  }
  return { scheme, authority, path, query: m[4], fragment: m[5] };
}

const DOT = 0x2e;
/** The char code of "/". */
export const SLASH = 0x2f;

/**
 * RFC 3986 §5.2.4: remove "." and ".." segments from a path. The steps are
 * the RFC's (A to E), taken on an index into `path` rather than on a
 * shrinking copy of it: a crawl resolves some 25 links a page, most of them
 * with "../" (test/url/uri.test.ts checks it against the RFC's own wording).
 */
export function removeDotSegments(path: string): string {
  // Fast path: a dot segment starts the path or follows a "/" ("page.html" has none).
  if (path.charCodeAt(0) !== DOT && path.indexOf('/.') === -1) return path;
  const n = path.length;
  const out: string[] = [];
  let i = 0;
  while (i < n) {
    const c = path.charCodeAt(i);
    if (c === DOT) {
      // A: a leading "../" or "./" goes; D: so does an input that is only "." or "..".
      if (path.startsWith('../', i)) i += 3;
      else if (path.startsWith('./', i)) i += 2;
      else if (i + 1 === n || (i + 2 === n && path.charCodeAt(i + 1) === DOT)) break;
      else i = moveSegment(path, i, out);
    } else if (c === SLASH && path.charCodeAt(i + 1) === DOT) {
      const after = i + 2 === n ? -1 : path.charCodeAt(i + 2);
      if (after === -1) {
        // B: a final "/." becomes "/".
        out.push('/');
        break;
      }
      if (after === SLASH) i += 2; // B: "/./" becomes "/"
      else if (after === DOT && (i + 3 === n || path.charCodeAt(i + 3) === SLASH)) {
        // C: "/../" becomes "/" and a final "/.." becomes "/", each removing the last output segment.
        out.pop();
        if (i + 3 === n) {
          out.push('/');
          break;
        }
        i += 3;
      } else i = moveSegment(path, i, out);
    } else i = moveSegment(path, i, out);
  }
  return out.join('');
}

/** E: moves the segment at `i` (its leading "/" too) to the output; returns where the input goes on. */
function moveSegment(path: string, i: number, out: string[]): number {
  let next = path.indexOf('/', path.charCodeAt(i) === SLASH ? i + 1 : i);
  if (next === -1) next = path.length;
  out.push(path.slice(i, next));
  return next;
}

/** RFC 3986 §5.2.3: merge a relative-path reference with the base path. */
function merge(base: UriParts, refPath: string): string {
  if (base.authority !== undefined && base.path === '') return '/' + refPath;
  const slash = base.path.lastIndexOf('/');
  return slash === -1 ? refPath : base.path.slice(0, slash + 1) + refPath;
}

/** RFC 3986 §5.2.2 (strict): the target of `ref` resolved against `base`. */
export function resolveParts(base: UriParts, ref: UriParts): UriParts {
  if (ref.scheme !== undefined) {
    return { scheme: ref.scheme, authority: ref.authority, path: removeDotSegments(ref.path), query: ref.query, fragment: ref.fragment };
  }
  if (ref.authority !== undefined) {
    return { scheme: base.scheme, authority: ref.authority, path: removeDotSegments(ref.path), query: ref.query, fragment: ref.fragment };
  }
  if (ref.path === '') {
    return { scheme: base.scheme, authority: base.authority, path: base.path, query: ref.query ?? base.query, fragment: ref.fragment };
  }
  const path = ref.path.startsWith('/') ? removeDotSegments(ref.path) : removeDotSegments(merge(base, ref.path));
  return { scheme: base.scheme, authority: base.authority, path, query: ref.query, fragment: ref.fragment };
}

/** RFC 3986 §5.3: recompose components into a string. */
export function recompose(parts: UriParts): string {
  let s = '';
  if (parts.scheme !== undefined) s += parts.scheme + ':';
  if (parts.authority !== undefined) s += '//' + parts.authority;
  s += parts.path;
  if (parts.query !== undefined) s += '?' + parts.query;
  if (parts.fragment !== undefined) s += '#' + parts.fragment;
  return s;
}

/** Resolves reference string `ref` against base string `base` (RFC 3986 §5.2). */
export function resolveReference(base: string, ref: string): string {
  return recompose(resolveParts(parseUriReference(base), parseUriReference(ref)));
}
