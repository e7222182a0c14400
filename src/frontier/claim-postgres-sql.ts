/**
 * The PostgreSQL frontier's schema and its server-side functions, so that
 * a page costs two round trips, `pc_claim` and `pc_complete`. A saved page
 * is also published (its file is in place: until then its claim is out, so
 * a worker that dies before renaming the page loses nothing): `pc_published`
 * on its own (for all the pages a worker's lanes saved while one such call
 * was out), or as the first step of the worker's next `pc_claim` (its
 * `p_pub_ids`, `p_pub_tokens`: the pages its lanes saved since its last
 * claim), with no round trip of its own.
 *
 * Times are milliseconds since the epoch on the database's clock
 * (`clock_timestamp()`), as double precision, so every worker shares one
 * clock. Lock order, which keeps the functions free of deadlocks:
 *
 * - pc_claim walks the hosts whose turn has come in the order of an index,
 *   (min_depth, greatest(next_fetch_at, reserved_until), id): the
 *   shallowest waiting URL first, then the longest ready. It reads each
 *   host without a lock, then locks its row when the claim will hold the
 *   host (a delay, or its robots.txt) and one waiting queue row, both
 *   `SKIP LOCKED`, so two claims never take the same URL or hold the same
 *   host and a claim passes over the hosts others are taking, without
 *   waiting. A host with no delay is not held, so many workers can take its
 *   URLs at once; such a claim takes its host's row last of all,
 *   SKIP LOCKED too, only to set its min_depth again (a claim never waits
 *   for a host row: it may hold rows of hosts it passed over, which a
 *   completion holding this one may wait for).
 * - A host's min_depth is the least depth of its waiting URLs, NULL when
 *   none wait. Whatever makes a URL wait (pc_add, a retry, a release, the
 *   reaper) lowers it (LEAST); only a claim raises it, computing it again
 *   in a statement of its own after it holds the host's row: that
 *   statement's snapshot sees every committed insert, and an inserter not
 *   yet committed lowers it again after the claim, since it waits for the
 *   row. So it may be low for a moment, never NULL while URLs wait; a claim
 *   that finds it low sets it right and goes on.
 * - pc_complete goes in phases, each phase's locks in a fixed order: its own
 *   claimed queue row; the seen keys (insert-only table, keys sorted); new
 *   host rows (origins sorted); then its own host row and those of its new
 *   links' hosts together, sorted by id (two completions, each linking to
 *   the other's host, would deadlock if each locked its own first); the
 *   document counter last, so the one row every saved page needs is held
 *   for the shortest time (after it, only its own queue row again, which it
 *   holds already, and its own pc_done row, a key no other call writes). A
 *   completion whose lease was lost still moves its host's next fetch time
 *   (pc_started), after its queue row, as any completion does.
 * - With a page budget (pc_crawl.max_pages), a claim that found a page locks
 *   the pc_crawl row (it waits for it) after that host's and URL's rows, and
 *   counts the budget under it. A completion takes pc_crawl last of all
 *   (the document counter and `answered`) and waits for nothing after it, so
 *   a claim waiting for it closes no cycle; a reaper never holds it.
 * - pc_robots_for and pc_turn lock only their host's row, SKIP LOCKED.
 * - pc_published locks only its own queue rows (and their pc_done rows), in
 *   the order of their ids, holding nothing else while it does; pc_claim
 *   publishes through it before anything else. pc_release: its queue row, then its host row.
 * - A claim holds its host (reserved_until) until its lease runs out and one
 *   interval more (holdUntil, claim-store.ts): a holder that died after
 *   sending its request never says when it started it, at the latest when
 *   its lease ran out. Its completion or release frees the host at once.
 * - Expired leases are reaped only when no host is ready, `SKIP LOCKED`
 *   too (a claim that published a row holds it, so a reaper that waited for
 *   rows could wait for a claim that waits for it); the reaped rows' hosts
 *   are then locked sorted by id, as a completion locks them.
 *
 * Every call is safe to make again after a lost connection (the store does,
 * pg-faults.ts), whether or not its first try committed: tokens are minted
 * by the workers (blocks of pc_token_block_seq), so a claim made again with
 * its token and `p_redo` returns the claim its first try made;
 * pc_robots_for likewise; pc_complete answers from pc_done what its token's
 * completion answered (a saved page's document ID, the links it added);
 * pc_published and pc_release change only rows their token still holds.
 *
 * There is no foreign key from the queue to the hosts (it would lock host
 * rows on every insert), and de-duplication is its own insert-only table, so
 * it is never a row that is also updated.
 */

import { PC_CLAIM_SQL } from './claim-postgres-claim-sql.js';
import { PC_HOST_SQL } from './claim-postgres-host-sql.js';

/** Bumped when the tables change: a crawl made by another version is refused. */
// 4: pc_queue.attempts, pc_hosts.streak (shared retries and back-off);
// 5: tokens minted by the workers in blocks, pc_done (calls safe to redo after a lost connection);
// 6: pc_crawl.more_seeds and pc_crawl.scope (a seed list, and the scope the workers must agree on);
// 7: pc_hosts.min_depth and the index pc_hosts_turn (a claim finds the next host in O(log hosts));
// 8: pc_queue.hops, pc_queue.saved_by, pc_crawl.max_pages and pc_crawl.answered (redirect hops travel with
//    the URL; one page budget for the crawl), pc_turn (a host's turn without a URL).
export const PG_SCHEMA_VERSION = 8;

/**
 * A fingerprint of PG_SCHEMA's text (FNV-1a, 32 bits, hex), kept as the
 * comment of table pc_crawl: a worker that finds the schema it would create
 * already there skips the DDL, so workers starting together do not each run
 * it in turn under the schema lock.
 */
export function schemaStamp(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `pc-schema-${PG_SCHEMA_VERSION}-${(h >>> 0).toString(16).padStart(8, '0')}`;
}

export const PG_SCHEMA = `
CREATE TABLE IF NOT EXISTS pc_crawl (
  id int PRIMARY KEY CHECK (id = 1),
  version int NOT NULL,
  seed_key text NOT NULL,
  more_seeds text NOT NULL DEFAULT '',       -- the identity keys of the seeds after seed_key, one a line
  scope text NOT NULL DEFAULT '',            -- the scope the workers must agree on ('': the seeds' origins)
  max_depth int NOT NULL,
  delay_ms double precision NOT NULL,
  robots boolean NOT NULL,
  last_doc bigint NOT NULL DEFAULT 0,
  max_pages int,                             -- the page budget of the whole crawl (NULL: no cap)
  answered bigint NOT NULL DEFAULT 0         -- completions answered, toward max_pages
);
-- Lease tokens: each worker takes a block of 1024 and mints its own, so a call it makes again
-- after a lost connection carries the same token and finds what its first try did.
CREATE SEQUENCE IF NOT EXISTS pc_token_block_seq INCREMENT BY 1024 START WITH 1024;
-- What each completion answered, by its token: a completion made again after a lost
-- connection (it may have committed) answers the same, and does nothing twice.
CREATE TABLE IF NOT EXISTS pc_done (token bigint PRIMARY KEY, doc bigint, inserted text[] NOT NULL);
CREATE TABLE IF NOT EXISTS pc_seen (key text PRIMARY KEY);
CREATE TABLE IF NOT EXISTS pc_hosts (
  id bigserial PRIMARY KEY,
  origin text NOT NULL UNIQUE,
  robots_state smallint NOT NULL,            -- 0 not fetched, 1 claimed, 2 known
  robots_status int,
  robots_body text,
  delay_ms double precision NOT NULL,
  next_fetch_at double precision NOT NULL DEFAULT '-Infinity',
  reserved_by bigint NOT NULL DEFAULT 0,
  reserved_until double precision NOT NULL DEFAULT '-Infinity',
  streak int NOT NULL DEFAULT 0,              -- consecutive push-backs (back-off), for every worker
  refusal text,                               -- set when it asked for a pause beyond the cap: its pages fail with it
  min_depth int                               -- the least depth of its waiting URLs (NULL: none wait); see above
);
ALTER TABLE pc_hosts ADD COLUMN IF NOT EXISTS min_depth int;
CREATE TABLE IF NOT EXISTS pc_queue (
  id bigserial PRIMARY KEY,
  host_id bigint NOT NULL,
  key text NOT NULL,
  url text NOT NULL,
  depth int NOT NULL,
  state smallint NOT NULL DEFAULT 0,         -- 0 waiting, 1 claimed, 2 done
  token bigint NOT NULL DEFAULT 0,
  lease_until double precision NOT NULL DEFAULT 0,
  doc bigint,                                -- the document ID its saved completion took
  attempts int NOT NULL DEFAULT 0,           -- tries given up for a retry
  hops int NOT NULL DEFAULT 0,               -- redirect hops taken to reach it
  saved_by bigint NOT NULL DEFAULT 0         -- the token whose saved completion is in: no longer out for the budget
);
CREATE INDEX IF NOT EXISTS pc_queue_waiting ON pc_queue (host_id, depth, id) WHERE state = 0;
-- The hosts with waiting URLs, shallowest first, then by when their turn comes (a held host's when
-- its hold ends): a claim walks the range whose turn has come, O(log hosts) to find the first.
CREATE INDEX IF NOT EXISTS pc_hosts_turn ON pc_hosts (min_depth, greatest(next_fetch_at, reserved_until), id)
  WHERE min_depth IS NOT NULL;
DROP INDEX IF EXISTS pc_hosts_next;
CREATE INDEX IF NOT EXISTS pc_queue_claimed ON pc_queue (lease_until) WHERE state = 1;
CREATE INDEX IF NOT EXISTS pc_queue_open ON pc_queue (depth) WHERE state < 2;

CREATE OR REPLACE FUNCTION pc_now() RETURNS double precision LANGUAGE sql AS
$$ SELECT extract(epoch FROM clock_timestamp())::double precision * 1000 $$;

-- Queues the entries never seen; returns the keys it inserted. Their hosts' rows (and p_also's, the
-- completing claim's own host, so that all are locked in one order) are locked sorted by id, and
-- their min_depth lowered to the new URLs'.
DROP FUNCTION IF EXISTS pc_add(text[], text[], int[], text[]);
DROP FUNCTION IF EXISTS pc_add(text[], text[], int[], text[], text);
CREATE OR REPLACE FUNCTION pc_add(p_keys text[], p_urls text[], p_depths int[], p_origins text[], p_hops int[], p_also text DEFAULT NULL)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_new text[];
  v_robots boolean;
  v_delay double precision;
  v_hosts bigint[];
  v_depths int[];
BEGIN
  WITH ins AS (
    INSERT INTO pc_seen (key) SELECT DISTINCT k FROM unnest(p_keys) AS k ORDER BY k
    ON CONFLICT DO NOTHING RETURNING key
  ) SELECT coalesce(array_agg(key), '{}') INTO v_new FROM ins;
  IF cardinality(v_new) = 0 THEN RETURN v_new; END IF;
  SELECT robots, delay_ms INTO v_robots, v_delay FROM pc_crawl WHERE id = 1;
  INSERT INTO pc_hosts (origin, robots_state, delay_ms)
    SELECT DISTINCT o, CASE WHEN v_robots THEN 0 ELSE 2 END, v_delay
    FROM unnest(p_keys, p_origins) AS l(k, o) WHERE l.k = ANY (v_new) ORDER BY o
    ON CONFLICT DO NOTHING;
  WITH q AS (
    INSERT INTO pc_queue (host_id, key, url, depth, hops)
      SELECT h.id, f.k, f.u, f.d, coalesce(f.hp, 0) FROM (
        SELECT DISTINCT ON (l.k) l.k, l.u, l.d, l.o, l.hp, l.n
        FROM unnest(p_keys, p_urls, p_depths, p_origins, p_hops) WITH ORDINALITY AS l(k, u, d, o, hp, n)
        WHERE l.k = ANY (v_new) ORDER BY l.k, l.n
      ) f JOIN pc_hosts h ON h.origin = f.o
      ORDER BY f.n
      RETURNING pc_queue.host_id, pc_queue.depth
  ) SELECT array_agg(q.host_id), array_agg(q.depth) INTO v_hosts, v_depths FROM q;
  PERFORM 1 FROM pc_hosts ph
    WHERE ph.id = ANY (v_hosts || coalesce((SELECT array_agg(o.id) FROM pc_hosts o WHERE o.origin = p_also), '{}'))
    ORDER BY ph.id FOR NO KEY UPDATE;
  UPDATE pc_hosts ph SET min_depth = LEAST(ph.min_depth, m.d)
    FROM (SELECT u.h, min(u.d) AS d FROM unnest(v_hosts, v_depths) AS u(h, d) GROUP BY u.h) m
    WHERE ph.id = m.h AND ph.min_depth IS DISTINCT FROM LEAST(ph.min_depth, m.d);
  RETURN v_new;
END $$;

-- An earlier version's pc_claim (a changed result type cannot be replaced): one whose result has no
-- hops. Only then: dropping the current one would pull it from under workers running it.
DO $$ DECLARE f regprocedure; BEGIN
  FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE proname = 'pc_claim' AND NOT ('hops' = ANY (coalesce(proargnames, '{}'))) LOOP
    EXECUTE 'DROP FUNCTION ' || f;
  END LOOP;
END $$;
DROP FUNCTION IF EXISTS pc_complete(text, bigint, bigint, text, double precision, boolean, text[], text[], int[], text[], int, text, double precision);
-- Version 7's (no hops, no answered).
DROP FUNCTION IF EXISTS pc_complete(text, bigint, bigint, text, double precision, boolean, text[], text[], int[], text[], int, text,
  double precision, boolean, double precision, double precision, int, text);
-- Before a claim carried several publications (one page's id and token).
DROP FUNCTION IF EXISTS pc_claim(double precision, boolean, double precision, bigint, bigint, bigint, boolean);
-- Version 4's (the server minted the tokens; release knew no request start).
DROP FUNCTION IF EXISTS pc_claim(double precision, boolean, double precision, bigint, bigint);
DROP FUNCTION IF EXISTS pc_robots_for(text, int, double precision, double precision);
DROP FUNCTION IF EXISTS pc_release(text, bigint, bigint, text);

${PC_CLAIM_SQL}${PC_HOST_SQL}-- p_answered: the page's request got a final answer that counts toward pc_crawl.max_pages.
CREATE OR REPLACE FUNCTION pc_complete(p_kind text, p_id bigint, p_token bigint, p_origin text, p_started double precision,
  p_saved boolean, p_keys text[], p_urls text[], p_depths int[], p_origins text[], p_hops int[],
  p_robots_status int, p_robots_body text, p_robots_delay double precision,
  p_retry boolean, p_interval double precision, p_paused double precision, p_streak int, p_refusal text, p_answered boolean)
RETURNS TABLE (ok boolean, doc bigint, inserted text[]) LANGUAGE plpgsql AS $$
DECLARE
  v_new text[] := '{}';
  v_doc bigint;
  v_done record;
  v_waits int; -- the depth of the URL a retry puts back to wait
BEGIN
  IF p_kind = 'turn' THEN
    -- A turn is ended by pc_release, never completed: refused, as a lost lease is.
    PERFORM pc_started(p_origin, p_started, p_interval);
    RETURN QUERY SELECT false, NULL::bigint, '{}'::text[];
    RETURN;
  END IF;
  -- The claim's row first (as below), then what this token's completion answered, if it ran already:
  -- a try whose connection dropped may have committed (or may still be committing: the lock waits for it).
  IF p_kind = 'page' THEN
    PERFORM 1 FROM pc_queue WHERE pc_queue.id = p_id FOR UPDATE;
  ELSE
    PERFORM 1 FROM pc_hosts WHERE pc_hosts.origin = p_origin FOR NO KEY UPDATE;
  END IF;
  SELECT d.doc, d.inserted INTO v_done FROM pc_done d WHERE d.token = p_token;
  IF FOUND THEN RETURN QUERY SELECT true, v_done.doc, v_done.inserted; RETURN; END IF;
  IF p_kind = 'page' THEN
    -- A saved page stays claimed (under its lease) until pc_published: if the
    -- worker dies before its file is in place, the URL is claimed again, and
    -- that claim's completion takes the same document ID.
    IF p_retry AND NOT p_saved THEN
      -- Waits again behind every URL waiting now (a new, highest id), with one attempt more.
      UPDATE pc_queue SET id = nextval(pg_get_serial_sequence('pc_queue', 'id')), state = 0, token = 0, attempts = pc_queue.attempts + 1
        WHERE pc_queue.id = p_id AND pc_queue.token = p_token AND pc_queue.state = 1
        RETURNING pc_queue.depth INTO v_waits;
    ELSE
      UPDATE pc_queue SET state = CASE WHEN p_saved THEN 1 ELSE 2 END, saved_by = CASE WHEN p_saved THEN p_token ELSE pc_queue.saved_by END
        WHERE pc_queue.id = p_id AND pc_queue.token = p_token AND pc_queue.state = 1
        RETURNING pc_queue.doc INTO v_doc;
    END IF;
    IF NOT FOUND THEN
      PERFORM pc_started(p_origin, p_started, p_interval);
      RETURN QUERY SELECT false, NULL::bigint, '{}'::text[];
      RETURN;
    END IF;
    IF cardinality(p_keys) > 0 AND NOT (p_retry AND NOT p_saved) THEN v_new := pc_add(p_keys, p_urls, p_depths, p_origins, p_hops, p_origin); END IF;
    UPDATE pc_hosts SET
      min_depth = LEAST(min_depth, v_waits),
      next_fetch_at = greatest(next_fetch_at, p_started + coalesce(p_interval, delay_ms), p_paused),
      streak = coalesce(p_streak, pc_hosts.streak), refusal = coalesce(pc_hosts.refusal, p_refusal),
      reserved_by = CASE WHEN reserved_by = p_token THEN 0 ELSE reserved_by END,
      reserved_until = CASE WHEN reserved_by = p_token THEN '-Infinity' ELSE reserved_until END
      WHERE pc_hosts.origin = p_origin;
  ELSE
    UPDATE pc_hosts SET robots_state = 2, robots_status = p_robots_status, robots_body = p_robots_body, delay_ms = p_robots_delay,
      next_fetch_at = greatest(next_fetch_at, p_started + coalesce(p_interval, p_robots_delay), p_paused),
      streak = coalesce(p_streak, pc_hosts.streak), refusal = coalesce(pc_hosts.refusal, p_refusal), reserved_by = 0, reserved_until = '-Infinity'
      WHERE pc_hosts.origin = p_origin AND pc_hosts.robots_state = 1 AND pc_hosts.reserved_by = p_token;
    IF NOT FOUND THEN
      PERFORM pc_started(p_origin, p_started, p_interval);
      RETURN QUERY SELECT false, NULL::bigint, '{}'::text[];
      RETURN;
    END IF;
  END IF;
  IF p_saved AND p_kind = 'page' AND v_doc IS NULL THEN
    UPDATE pc_crawl SET last_doc = last_doc + 1, answered = answered + CASE WHEN p_answered THEN 1 ELSE 0 END
      WHERE pc_crawl.id = 1 RETURNING last_doc INTO v_doc;
    UPDATE pc_queue SET doc = v_doc WHERE pc_queue.id = p_id; -- its row is locked already (first statement)
  ELSIF p_answered AND p_kind = 'page' THEN
    UPDATE pc_crawl SET answered = answered + 1 WHERE pc_crawl.id = 1;
  END IF;
  INSERT INTO pc_done (token, doc, inserted) VALUES (p_token, v_doc, v_new) ON CONFLICT DO NOTHING;
  RETURN QUERY SELECT true, v_doc, v_new;
END $$;

-- A request to the host started at p_started (the database's clock) under a claim that no longer
-- holds it (its lease ran out, or it is given back): the host's next request still waits the
-- interval from it. Only ever later, never earlier.
CREATE OR REPLACE FUNCTION pc_started(p_origin text, p_started double precision, p_interval double precision) RETURNS void LANGUAGE sql AS $$
  UPDATE pc_hosts SET next_fetch_at = greatest(next_fetch_at, p_started + coalesce(p_interval, delay_ms))
    WHERE pc_hosts.origin = p_origin AND p_started IS NOT NULL
$$;

-- Saved pages' files are in place (queue row ids and their claims' tokens, pairwise): each URL is done
-- and its completion will not be made again. Its rows locked in the order of their ids first (see the
-- lock order above); pc_claim publishes through it too. PL/pgSQL: its plans are kept for the session
-- (a LANGUAGE sql function is planned at every call, 0.26 ms a call against 0.11 for the statements).
DROP FUNCTION IF EXISTS pc_published(bigint, bigint);
CREATE OR REPLACE FUNCTION pc_published(p_ids bigint[], p_tokens bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_ids) > 1 THEN PERFORM 1 FROM pc_queue q WHERE q.id = ANY (p_ids) ORDER BY q.id FOR UPDATE; END IF;
  UPDATE pc_queue SET state = 2 FROM unnest(p_ids, p_tokens) AS u(i, t)
    WHERE pc_queue.id = u.i AND pc_queue.token = u.t AND pc_queue.state = 1;
  DELETE FROM pc_done WHERE pc_done.token = ANY (p_tokens);
END $$;

-- A claim given back, or a turn ended; p_started, when its request was sent, still counts for the host's interval.
CREATE OR REPLACE FUNCTION pc_release(p_kind text, p_id bigint, p_token bigint, p_origin text, p_started double precision)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_waits int;
BEGIN
  IF p_kind = 'page' THEN
    UPDATE pc_queue SET state = 0, token = 0 WHERE pc_queue.id = p_id AND pc_queue.token = p_token AND pc_queue.state = 1
      RETURNING pc_queue.depth INTO v_waits;
    IF FOUND THEN UPDATE pc_hosts SET min_depth = LEAST(min_depth, v_waits) WHERE pc_hosts.origin = p_origin; END IF;
  ELSIF p_kind = 'robots' THEN
    UPDATE pc_hosts SET robots_state = 0 WHERE pc_hosts.origin = p_origin AND pc_hosts.robots_state = 1 AND pc_hosts.reserved_by = p_token;
  END IF; -- a 'turn' changes neither: its host's next fetch time and hold only
  PERFORM pc_started(p_origin, p_started, NULL);
  UPDATE pc_hosts SET reserved_by = 0, reserved_until = '-Infinity' WHERE pc_hosts.origin = p_origin AND pc_hosts.reserved_by = p_token;
END $$;
`;

/** This build's schema fingerprint (schemaStamp of PG_SCHEMA). */
export const PG_SCHEMA_STAMP = schemaStamp(PG_SCHEMA);
