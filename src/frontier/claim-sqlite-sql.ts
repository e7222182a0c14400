/**
 * The SQLite frontier's tables and statements (claim-sqlite.ts runs them):
 * what a crawl keeps in its file, and every statement a call makes, prepared
 * once per connection.
 */
import type Database from 'better-sqlite3';

// 3: queue.attempts, hosts.streak and hosts.refusal (retries, back-off and refusals shared by the workers);
// 4: crawl.more_seeds and crawl.scope (a seed list, and the scope the workers must agree on);
// 5: hosts.min_depth and the index hosts_turn (the next host in O(log hosts));
// 6: queue.hops, queue.saved_by, crawl.max_pages and crawl.answered (redirect hops travel with the URL; one page budget for the crawl).
export const SCHEMA_VERSION = 6;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS crawl (
  id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, seed_key TEXT NOT NULL, max_depth INTEGER NOT NULL,
  delay_ms REAL NOT NULL, robots INTEGER NOT NULL, last_doc INTEGER NOT NULL DEFAULT 0, last_token INTEGER NOT NULL DEFAULT 0,
  more_seeds TEXT NOT NULL DEFAULT '', scope TEXT NOT NULL DEFAULT '', max_pages INTEGER, answered INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hosts (
  id INTEGER PRIMARY KEY, origin TEXT NOT NULL UNIQUE, robots_state INTEGER NOT NULL, robots_status INTEGER, robots_body TEXT,
  delay_ms REAL NOT NULL, next_fetch_at REAL NOT NULL DEFAULT 0, reserved_by INTEGER NOT NULL DEFAULT 0, reserved_until REAL NOT NULL DEFAULT 0,
  streak INTEGER NOT NULL DEFAULT 0, refusal TEXT, min_depth INTEGER);
CREATE TABLE IF NOT EXISTS queue (
  id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL, key TEXT NOT NULL, url TEXT NOT NULL, depth INTEGER NOT NULL,
  state INTEGER NOT NULL DEFAULT 0, token INTEGER NOT NULL DEFAULT 0, lease_until REAL NOT NULL DEFAULT 0, doc INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0, hops INTEGER NOT NULL DEFAULT 0, saved_by INTEGER NOT NULL DEFAULT 0);
`;

/** After the version check: another version's tables may lack the columns these name. */
export const INDEXES = `
CREATE INDEX IF NOT EXISTS queue_waiting ON queue (host_id, depth, id) WHERE state = 0;
CREATE INDEX IF NOT EXISTS hosts_turn ON hosts (min_depth, max(next_fetch_at, reserved_until), id) WHERE min_depth IS NOT NULL;
CREATE INDEX IF NOT EXISTS queue_claimed ON queue (lease_until) WHERE state = 1;
CREATE INDEX IF NOT EXISTS queue_open ON queue (depth) WHERE state < 2;
`;

/** Every statement of the store, by name; prepared after the version check. */
export function prepareStatements(db: Database.Database): Record<string, Database.Statement> {
  const p = (sql: string): Database.Statement => db.prepare(sql);
  return {
    crawl: p('SELECT version, seed_key, more_seeds, scope, max_depth, delay_ms, robots, max_pages, last_doc FROM crawl WHERE id = 1'),
    create: p('INSERT INTO crawl (id, version, seed_key, more_seeds, scope, max_depth, delay_ms, robots, max_pages) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)'),
    seen: p('INSERT OR IGNORE INTO seen (key) VALUES (?)'),
    host: p('INSERT OR IGNORE INTO hosts (origin, robots_state, delay_ms) VALUES (?, ?, ?)'),
    hostId: p('SELECT id FROM hosts WHERE origin = ?').pluck(),
    hostRow: p('SELECT id, robots_state, robots_status, robots_body, delay_ms, next_fetch_at, reserved_until, streak, refusal FROM hosts WHERE origin = ?'),
    queue: p('INSERT INTO queue (host_id, key, url, depth, hops) VALUES (?, ?, ?, ?, ?)'),
    floor: p('SELECT min(depth) FROM queue WHERE state < 2').pluck(),
    // The depths that hold waiting URLs, shallowest first; at each, the first ready host in the index's order.
    firstDepth: p('SELECT min(min_depth) FROM hosts').pluck(),
    nextDepth: p('SELECT min(min_depth) FROM hosts WHERE min_depth > ?').pluck(),
    candidate: p(`
      SELECT h.id AS hid, h.origin, h.robots_state, h.robots_status, h.robots_body, h.delay_ms, h.streak, h.refusal
      FROM hosts h INDEXED BY hosts_turn
      WHERE h.min_depth = @depth AND max(h.next_fetch_at, h.reserved_until) <= @now AND h.next_fetch_at <= @now AND h.reserved_until < @now
      ORDER BY max(h.next_fetch_at, h.reserved_until), h.id LIMIT 1`),
    waiting: p('SELECT id AS qid, key, url, depth, hops, attempts FROM queue WHERE host_id = ? AND state = 0 AND depth = ? ORDER BY id LIMIT 1'),
    // A host's min_depth: set again after a claim takes a URL, lowered when one comes to wait.
    minDepth: p('UPDATE hosts SET min_depth = (SELECT min(depth) FROM queue WHERE host_id = @id AND state = 0) WHERE id = @id'),
    lower: p('UPDATE hosts SET min_depth = @depth WHERE id = @id AND (min_depth IS NULL OR min_depth > @depth)'),
    token: p('UPDATE crawl SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token').pluck(),
    reserve: p('UPDATE hosts SET reserved_by = ?, reserved_until = ? WHERE id = ?'),
    robotsClaim: p('UPDATE hosts SET robots_state = 1, reserved_by = ?, reserved_until = ? WHERE id = ?'),
    pageClaim: p('UPDATE queue SET state = 1, token = ?, lease_until = ? WHERE id = ?'),
    reap: p('UPDATE queue SET state = 0, token = 0 WHERE state = 1 AND lease_until < ? RETURNING host_id AS id, depth'),
    // When the first host of a depth is free; a held host means: poll.
    free: p(`SELECT CASE WHEN h.reserved_until >= @now THEN @now + @poll ELSE h.next_fetch_at END FROM hosts h INDEXED BY hosts_turn
      WHERE h.min_depth = @depth ORDER BY max(h.next_fetch_at, h.reserved_until), h.id LIMIT 1`).pluck(),
    claimsOut: p('SELECT @now + @poll FROM queue WHERE state = 1 LIMIT 1').pluck(),
    // The page budget: its cap, the completions answered, and the page claims out not completed yet
    // (a saved page waiting to be published is out under its lease, but completed: saved_by is its token).
    budget: p('SELECT max_pages, answered FROM crawl WHERE id = 1'),
    pagesOut: p('SELECT count(*) FROM queue WHERE state = 1 AND saved_by <> token').pluck(),
    answered: p('UPDATE crawl SET answered = answered + 1 WHERE id = 1'),
    pageDone: p('UPDATE queue SET state = 2 WHERE id = ? AND token = ? AND state = 1'),
    // A saved page stays out (state 1, under its lease) until published; a later claim of it takes the same ID.
    pageSaved: p('UPDATE queue SET saved_by = token WHERE id = ? AND token = ? AND state = 1 RETURNING doc'),
    pageDoc: p('UPDATE queue SET doc = ? WHERE id = ?'),
    pageBack: p('UPDATE queue SET state = 0, token = 0 WHERE id = ? AND token = ? AND state = 1 RETURNING host_id AS id, depth'),
    // A retry waits again behind every URL waiting now (a new, highest id), with one attempt more.
    pageRetry: p('UPDATE queue SET id = (SELECT max(id) + 1 FROM queue), state = 0, token = 0, attempts = attempts + 1 WHERE id = ? AND token = ? AND state = 1 RETURNING host_id AS id, depth'),
    hostDone: p(`UPDATE hosts SET
      next_fetch_at = max(next_fetch_at, CASE WHEN @started IS NULL THEN next_fetch_at ELSE @started + coalesce(@interval, delay_ms) END, coalesce(@paused, next_fetch_at)),
      streak = coalesce(@streak, streak), refusal = coalesce(refusal, @refusal),
      reserved_until = CASE WHEN reserved_by = @token THEN 0 ELSE reserved_until END,
      reserved_by = CASE WHEN reserved_by = @token THEN 0 ELSE reserved_by END WHERE origin = @origin`),
    robotsDone: p(`UPDATE hosts SET robots_state = 2, robots_status = @status, robots_body = @body, delay_ms = @delay,
      next_fetch_at = max(next_fetch_at, CASE WHEN @started IS NULL THEN next_fetch_at ELSE @started + coalesce(@interval, @delay) END, coalesce(@paused, next_fetch_at)),
      streak = coalesce(@streak, streak), refusal = coalesce(refusal, @refusal), reserved_by = 0, reserved_until = 0
      WHERE origin = @origin AND robots_state = 1 AND reserved_by = @token`),
    robotsBack: p('UPDATE hosts SET robots_state = 0 WHERE origin = ? AND robots_state = 1 AND reserved_by = ?'),
    unreserve: p('UPDATE hosts SET reserved_by = 0, reserved_until = 0 WHERE origin = ? AND reserved_by = ?'),
    // A request start under a claim that no longer holds the host (a lost lease, a release): the next request waits from it.
    started: p(`UPDATE hosts SET next_fetch_at = max(next_fetch_at, @started + coalesce(@interval, delay_ms))
      WHERE origin = @origin AND @started IS NOT NULL`),
    doc: p('UPDATE crawl SET last_doc = last_doc + 1 WHERE id = 1 RETURNING last_doc').pluck(),
    lastDoc: p('SELECT last_doc FROM crawl WHERE id = 1').pluck(),
  };
}
