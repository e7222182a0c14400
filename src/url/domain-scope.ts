/**
 * `--internal-domain DOMAIN`: a domain and every subdomain of it, for a
 * broad crawl (spec decision "Many hosts"). A URL is inside when its host is
 * DOMAIN or ends in `.DOMAIN`, label by label: `example.org` covers
 * `example.org` and `a.b.example.org`, never `badexample.org`. Hosts are
 * compared as the URL parser (http-url.ts) gives them: lower case, IDN as
 * punycode (so `bücher.example` covers `www.BÜCHER.example`), a final dot
 * ignored. Any scheme (http and https) and any port: a domain names hosts,
 * not servers (`--internal PREFIX` names one server or path).
 *
 * An IP address given as DOMAIN covers that address only, and a host that
 * is an address (or ends in an all-digit label, as `127.1` does) is covered
 * only by its own address: `0.1` is no domain of `127.0.0.1`.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { CrawlerError } from '../errors.js';
import type { HttpUrl } from './http-url.js';

/** A checked `--internal-domain` value. */
export interface ScopeDomain {
  /** The name as hosts are compared: lower-case ASCII (punycode), no final dot; an address as given (IPv6 without brackets, lower case). */
  readonly name: string;
  /** True for an IP address: it covers that host only. */
  readonly address: boolean;
}

const LABEL_RE = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const ALL_DIGITS_RE = /^[0-9]+$/;

function refuse(text: string, why: string): never {
  throw new CrawlerError('ERR_INVALID_OPTION', `invalid --internal-domain ${JSON.stringify(text)}: ${why}`);
}

/**
 * Checks a `--internal-domain` value: a domain name (`example.org`,
 * `localhost`, an IDN) or an IP address (`127.0.0.1`, `::1` or `[::1]`).
 * Throws ERR_INVALID_OPTION saying what is wrong: empty, a URL, a port, a
 * wildcard, spaces, or characters no host name has.
 */
export function parseScopeDomain(text: string): ScopeDomain {
  if (text === '') refuse(text, 'it is empty; give a domain name such as example.org');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(text)) refuse(text, 'a domain name has no spaces or control characters');
  if (text.includes('://') || text.includes('/')) refuse(text, 'give a domain name such as example.org, not a URL (--internal PREFIX names one server or path)');
  if (text.startsWith('*.')) refuse(text, `give it without "*.": ${text.slice(2)} covers all its subdomains already`);
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare) !== 0) return { name: bare.toLowerCase(), address: true };
  if (text.includes(':')) refuse(text, 'a domain covers every port: give it without ":PORT" (--internal http://HOST:PORT names one server)');
  const ascii = /[^\u0000-\u007f]/.test(text) ? domainToASCII(text) : text.toLowerCase();
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  const labels = name.split('.');
  if (name === '' || name.length > 253 || !labels.every((l) => LABEL_RE.test(l))) refuse(text, 'not a domain name (letters, digits, "-" and "_" in labels separated by dots) or an IP address');
  // RFC 3696 §2: no top-level domain is all digits; such a name would be an address written oddly.
  if (ALL_DIGITS_RE.test(labels[labels.length - 1] as string)) refuse(text, 'not a domain name (its last label is all digits) or an IP address');
  return { name, address: false };
}

/** True when the host is an address (an IP literal, or a name whose last label is all digits: `127.1`). */
function isAddress(hostname: string): boolean {
  if (isIP(hostname) !== 0) return true;
  const last = hostname.slice(hostname.lastIndexOf('.') + 1);
  return ALL_DIGITS_RE.test(last);
}

/** True when `url`'s host is one of the domains or under one of them (see the module comment). */
export function inDomains(domains: readonly ScopeDomain[], url: HttpUrl): boolean {
  const raw = url.hostname;
  const host = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (isAddress(host)) return domains.some((d) => d.address && d.name === host);
  for (const d of domains) {
    if (d.address) continue;
    const name = d.name;
    if (host === name || (host.length > name.length && host.endsWith(name) && host.charCodeAt(host.length - name.length - 1) === 0x2e)) return true;
  }
  return false;
}
