/**
 * The crawl state's meta table (private-sqlite.ts): what a crawl is (its
 * identity: seed, depth, refresh, more seeds) and what it records for a
 * later crawl (the page files it owns, its archives), written when a crawl
 * starts and checked when it is resumed.
 */
import type Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';
import { META_OUTPUTS, type CrawlOutputs } from './crawl-outputs.js';
import { MORE_SEEDS, OWNED_THROUGH } from './state-ownership.js';

/**
 * The state's version, in its meta table: a state of another version is
 * not resumed. 2: urls.attempts (retries survive a resume). 3: the pages
 * table (each saved page's validators and archive capture, which a later
 * refresh reads: earlier-crawl.ts). 4: pages.wire_bytes (a compressed
 * refresh counts the bytes the server did not send as they travel).
 */
export const SCHEMA_VERSION = '4';

/** The oldest state version a refresh reads (3: the first with the pages table; 4 adds each page's wire size). */
export const OLDEST_REFRESHABLE = '3';

/** What identifies a crawl: resuming requires the same. */
export interface CrawlIdentity {
  seed: string;
  maxDepth: number;
  /** A refresh (crawler --since): the earlier crawl's directory, by its real path. */
  since?: string | undefined;
  /** The identity keys of the seeds after `seed` (crawler --seeds), in order (absent: none). */
  moreSeeds?: readonly string[];
}

/** What a new crawl records beside its identity. */
export interface CrawlRecord extends CrawlIdentity {
  /**
   * A new crawl only: page files of earlier crawls of ours still in the
   * directory have IDs up to this (0: none). Kept in the state, so that the
   * crawl, resumed or not, removes them when it ends, and a later crawl
   * knows them as ours.
   */
  ownedThrough?: number;
  /** The crawl archive's file (--warc), by its absolute path: a later refresh packages its records (meta `archive`). */
  archive?: string | undefined;
  /**
   * A refresh: the archive files (by absolute path) of the crawls before it
   * whose records its unchanged pages' captures name, which a refresh of
   * this crawl packages too (meta `earlierArchives`, JSON).
   */
  earlierArchives?: readonly string[] | undefined;
  /** The files the crawl writes besides its pages, which a --resume continues (meta `outputs`). */
  outputs?: CrawlOutputs | undefined;
}

/** The meta keys of CrawlIdentity.since, CrawlRecord.archive and .earlierArchives. */
const META_SINCE = 'since';
export const META_ARCHIVE = 'archive';
export const META_EARLIER_ARCHIVES = 'earlierArchives';

/** A meta value, or undefined. */
export function readMeta(db: Database.Database, key: string): string | undefined {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

/** Throws ERR_STATE, saying what to do, unless the state in `path` (of `dir`) is of this version and of the crawl `options` names. */
export function checkCrawl(db: Database.Database, dir: string, path: string, options: CrawlIdentity): void {
  const seed = readMeta(db, 'seed');
  const depth = readMeta(db, 'maxDepth');
  if (readMeta(db, 'version') !== SCHEMA_VERSION) throw new CrawlerError('ERR_STATE', `crawl state ${path} is of another version; run without --resume`);
  if (seed !== options.seed || depth !== String(options.maxDepth)) {
    throw new CrawlerError('ERR_STATE', `${dir} holds a crawl of ${seed} to depth ${depth}, not of ${options.seed} to depth ${options.maxDepth}; run without --resume to replace it`);
  }
  const since = readMeta(db, META_SINCE);
  if ((since ?? '') !== (options.since ?? '')) {
    throw new CrawlerError(
      'ERR_STATE',
      since === undefined || since === ''
        ? `${dir} holds a crawl that refreshed no earlier one; run without --since to resume it`
        : `${dir} holds a refresh of the crawl in ${since}; resume it with --since ${since}`,
    );
  }
  const more = readMeta(db, MORE_SEEDS) ?? '[]';
  if (more !== JSON.stringify(options.moreSeeds ?? [])) {
    const count = (JSON.parse(more) as unknown[]).length;
    throw new CrawlerError('ERR_STATE', `${dir} holds a crawl from ${count === 0 ? 'no --seeds file' : `${count} more seed${count === 1 ? '' : 's'} (--seeds)`}, not from these; resume with the same seed file, or run without --resume to replace it`);
  }
}

/** Writes a new crawl's identity and record, with no page saved yet. */
export function recordCrawl(db: Database.Database, options: CrawlRecord): void {
  const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  db.transaction(() => {
    put.run('version', SCHEMA_VERSION);
    put.run('seed', options.seed);
    if (options.moreSeeds !== undefined && options.moreSeeds.length > 0) put.run(MORE_SEEDS, JSON.stringify(options.moreSeeds));
    put.run('maxDepth', String(options.maxDepth));
    put.run('lastId', '0');
    put.run(OWNED_THROUGH, String(options.ownedThrough ?? 0));
    if (options.since !== undefined) put.run(META_SINCE, options.since);
    if (options.archive !== undefined) put.run(META_ARCHIVE, options.archive);
    if (options.earlierArchives !== undefined && options.earlierArchives.length > 0) put.run(META_EARLIER_ARCHIVES, JSON.stringify(options.earlierArchives));
    put.run(META_OUTPUTS, JSON.stringify(options.outputs ?? {}));
  })();
}
