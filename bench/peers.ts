/**
 * The crawlers the crawl section runs: ours (and its variants) and the
 * peers GNU wget, GNU wget2 and HTTrack, each with its command line and the
 * way to read back which pages it saved. A peer that is not installed is
 * listed with the apt-get line and skipped. GNU wget with `--warc-file` is
 * the peer of our archive rows (issue 31): it is measured against `ours
 * --warc .gz`, not against ours without an archive.
 *
 * A variant of ours is one line in `oursVariants` (extra flags; `{OUT}` is a
 * file path beside the page directory, on the same file system); one that
 * needs a flag `./crawler --help` does not list is skipped with a message.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { which } from './servers.js';
import type { Site } from './site.js';

/** How the saved pages are read back. */
export type Layout = 'ours' | 'mirror' | 'httrack';

export interface Peer {
  name: string;
  command: string;
  /** The arguments for one run into DIR; `out` is a free file path beside DIR. */
  args(dir: string, out: string): string[];
  layout: Layout;
  available: boolean;
  /** Version, or why it is skipped. */
  note: string;
  /** Runs once (first round, first file system) instead of every round: for a peer far slower than the others. */
  once?: boolean;
  /** Exit codes that are not failures (wget: 8 = some response was an error, our 404 links). */
  okExits: number[];
  /** The variant of ours this peer is measured against (the ratio row is that variant / this peer); unset: ours. */
  against?: string;
}

/** The variant of ours that GNU wget with --warc-file is measured against: both write gzip WARC files. */
export const ARCHIVE_VARIANT = 'ours --warc .gz';
/** The variant of ours with --page-requisites, measured against GNU wget with -p --warc-file. */
export const REQUISITES_VARIANT = 'ours -p --warc .gz';

/** Variants of ours: name, extra flags (before the positionals), a flag `--help` must list. `{OUT}` is a file beside the page directory. */
export const OURS_VARIANTS: Array<{ name: string; flags: string[]; needs?: string }> = [
  { name: 'ours', flags: [] },
  { name: 'ours x2', flags: ['--connections-per-host', '2'], needs: '--connections-per-host' },
  { name: 'ours --warc', flags: ['--warc', '{OUT}.warc'], needs: '--warc' },
  { name: 'ours --warc .gz', flags: ['--warc', '{OUT}.warc.gz'], needs: '--warc' },
  // Every page read for its requisites (the bench pages name two, both 404: fetched once each), beside the archive.
  { name: REQUISITES_VARIANT, flags: ['--page-requisites', '--warc', '{OUT}.warc.gz'], needs: '--page-requisites' },
];

/** True when `program --help` mentions `flag`. */
export function helpLists(program: string, flag: string, cwd: string): boolean {
  const r = spawnSync(program, ['--help'], { encoding: 'utf8', cwd });
  return `${r.stdout}${r.stderr}`.includes(flag);
}

function version(program: string, arg = '--version'): string {
  const r = spawnSync(program, [arg], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`.split('\n').find((l) => l.trim() !== '')?.trim() ?? program;
}

/** Every crawler of the section, ours first; unavailable ones carry the reason. */
export function crawlPeers(site: Site, repo: string, httrackSeconds = HTTRACK_SECONDS): Peer[] {
  const depth = String(site.maxDepth);
  const crawler = join(repo, 'crawler');
  const peers: Peer[] = OURS_VARIANTS.map((v) => {
    const available = v.needs === undefined || helpLists(crawler, v.needs, repo);
    return {
      name: v.name,
      command: crawler,
      args: (dir, out) => [...v.flags.map((f) => f.replace('{OUT}', out)), '--delay', '0', '--quiet', site.seedUrl, dir, depth],
      layout: 'ours',
      available,
      note: available ? '' : `./crawler --help has no ${v.needs}: skipped`,
      okExits: [0],
    };
  });
  // wget and wget2: recursive to the same depth, robots off, one connection (wget2: one thread).
  const mirror = (name: string, program: string, first: (out: string) => string[]): Peer => {
    const path = which(program);
    return {
      name,
      command: path ?? program,
      args: (dir, out) => [...first(out), '-r', '-l', depth, '-nv', '-e', 'robots=off', '-P', dir, site.seedUrl],
      layout: 'mirror',
      available: path !== undefined,
      note: path !== undefined ? version(path) : `not installed (apt-get install -y ${program}): skipped`,
      okExits: [0, 8],
    };
  };
  const wget = mirror('wget', 'wget', () => []);
  // OUT.warc.gz, one gzip member per record (wget's default), beside the page directory as ours writes its
  // archive; its temporary files (each record is built in one before it is written) on the same file system.
  const wgetWarc: Peer = { ...mirror('wget --warc', 'wget', (out) => [`--warc-file=${out}`, `--warc-tempdir=${dirname(out)}`]), against: ARCHIVE_VARIANT };
  if (wgetWarc.available && !helpLists(wgetWarc.command, '--warc-file', repo)) {
    wgetWarc.available = false;
    wgetWarc.note = 'this wget was built without WARC support (no --warc-file in --help): skipped';
  }
  const wgetRequisites: Peer = { ...wgetWarc, name: 'wget -p --warc', args: (dir, out) => ['-p', ...wgetWarc.args(dir, out)], against: REQUISITES_VARIANT };
  peers.push(wget, wgetWarc, wgetRequisites, mirror('wget2', 'wget2', () => ['--max-threads=1']));
  const httrack = which('httrack');
  peers.push({
    name: 'httrack',
    command: httrack ?? 'httrack',
    // One connection (-c1) with keep-alive (-%k); its limits lifted: --disable-security-limits
    // (otherwise at most 5 connections/s), -%c1000 connections/s; robots off (-s0), no cache (-C0),
    // no index (-I0), no error pages (-o0), quiet. Depth -r counts the seed as 1. It stops
    // itself after httrackSeconds (-E): it is far slower than the others.
    args: (dir) => [site.seedUrl, '-O', dir, '-c1', '-%k', '-%c1000', '--disable-security-limits', `-E${httrackSeconds}`, `-r${site.maxDepth + 1}`, '-s0', '-C0', '-I0', '-o0', '-q', '-%v0', '-f2'],
    layout: 'httrack',
    available: httrack !== undefined,
    note: httrack !== undefined ? version(httrack) : 'not installed (apt-get install -y httrack): skipped',
    once: true,
    okExits: [0],
  });
  return peers;
}

/** HTTrack's own time limit (-E), seconds (`--quick`: 20). */
export const HTTRACK_SECONDS = 60;

/** The first line of `file` (at most its first 4 KiB): a page file's URL. */
export function firstLine(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const s = buf.subarray(0, n).toString('utf8');
    const nl = s.indexOf('\n');
    return nl === -1 ? s : s.slice(0, nl);
  } finally {
    closeSync(fd);
  }
}

function walk(dir: string, prefix: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name), `${prefix}/${e.name}`, out);
    else out.push(`${prefix}/${e.name}`);
  }
}

/**
 * What a run saved in `dir`: the site paths of its pages (with the query, as
 * in the expected set) and how many other files (non-HTML) it wrote.
 */
export function savedPages(layout: Layout, dir: string, site: Site): { paths: string[]; otherFiles: number } {
  if (layout === 'ours') {
    const names = readdirSync(dir).filter((n) => /^[1-9][0-9]*$/.test(n));
    const paths = names.map((n) => {
      const url = firstLine(join(dir, n));
      return url.startsWith(site.origin) ? url.slice(site.origin.length) : url;
    });
    return { paths, otherFiles: 0 };
  }
  // wget and wget2: DIR/HOST[:PORT]/path, a query URL as `name?query`. HTTrack: DIR/HOST_PORT/path
  // beside its own hts-* files.
  const files: string[] = [];
  for (const host of readdirSync(dir, { withFileTypes: true })) {
    if (host.isDirectory() && !host.name.startsWith('hts-')) walk(join(dir, host.name), '', files);
  }
  const isHtml = (p: string): boolean => /\.html(\?|$)/.test(p);
  const paths = files.filter(isHtml);
  return { paths, otherFiles: files.length - paths.length };
}
