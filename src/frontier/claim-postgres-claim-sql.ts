/**
 * The PostgreSQL frontier's claim, `pc_claim`, as SQL text: part of
 * PG_SCHEMA (claim-postgres-sql.ts, whose comment gives the lock order every
 * function keeps). It walks the index of hosts' turns, shallowest depth
 * first, and takes the first ready host it can lock and one of its waiting
 * URLs, both SKIP LOCKED; with none ready it reaps expired leases, then says
 * how long to wait.
 *
 * With a page budget (pc_crawl.max_pages), the claim that found a page locks
 * the pc_crawl row before it takes it (after the host's and the URL's rows:
 * the row a completion locks last of all) and counts the completions
 * answered and the page claims out under that lock: every page claim of a
 * capped crawl takes it, so two claims never both take the last page, and
 * a URL after others of its host that concurrent claims are taking leaves
 * the last pages to them (the budget's pages are the first in line).
 */
export const PC_CLAIM_SQL = `-- p_token is the caller's (see pc_token_block_seq); p_redo says this call is made again after a lost
-- connection: the claim its first try made, if that committed, is returned again.
CREATE OR REPLACE FUNCTION pc_claim(p_lease double precision, p_strict boolean, p_poll double precision, p_pub_ids bigint[], p_pub_tokens bigint[],
  p_token bigint, p_redo boolean)
RETURNS TABLE (kind text, id bigint, token bigint, origin text, key text, url text, depth int,
               delay_ms double precision, robots_status int, robots_body text, clock double precision, wait_ms double precision,
               attempts int, streak int, refusal text, hops int)
-- Its walks read the index in its order, a few rows: never every ready host, then a sort of them
-- (what the planner picks when it thinks few hosts are ready, as on a table not analyzed yet).
LANGUAGE plpgsql SET enable_sort = off AS $$
DECLARE
  v_now double precision := pc_now();
  v_floor int;
  v_token bigint := p_token;
  v_free double precision;
  v_next double precision;
  v_depth int;
  v_looked int := 0;
  v_gone int := 0;
  v_capped boolean := false;
  v_passed int := 0;
  v_held boolean;
  v_hosts bigint[];
  v_depths int[];
  v_cap int;
  v_answered bigint;
  h record;
  r record;
  w record;
BEGIN
  -- The pages the caller's lanes saved since its last claim are in place (without a round trip of
  -- their own): their queue rows are the caller's own. One call for all of them (pc_published
  -- called once a row from a query here cost some 30 ms a call).
  IF p_pub_ids IS NOT NULL THEN PERFORM pc_published(p_pub_ids, p_pub_tokens); END IF;
  IF p_redo THEN
    RETURN QUERY SELECT 'page'::text, q.id, q.token, ph.origin, q.key, q.url, q.depth, ph.delay_ms, ph.robots_status, ph.robots_body,
        v_now, NULL::double precision, q.attempts, ph.streak, ph.refusal, q.hops
      FROM pc_queue q JOIN pc_hosts ph ON ph.id = q.host_id WHERE q.state = 1 AND q.token = p_token;
    IF FOUND THEN RETURN; END IF;
    RETURN QUERY SELECT 'robots'::text, ph.id, ph.reserved_by, ph.origin, ph.origin || '/robots.txt', ph.origin || '/robots.txt',
        coalesce((SELECT min(q.depth) FROM pc_queue q WHERE q.host_id = ph.id AND q.state = 0), 0), ph.delay_ms, NULL::int, NULL::text,
        v_now, NULL::double precision, 0, ph.streak, ph.refusal, 0
      FROM pc_hosts ph WHERE ph.robots_state = 1 AND ph.reserved_by = p_token;
    IF FOUND THEN RETURN; END IF;
  END IF;
  -- The page budget spent: the crawl is done, whatever waits (no robots.txt either).
  SELECT c.max_pages, c.answered INTO v_cap, v_answered FROM pc_crawl c WHERE c.id = 1;
  IF v_cap IS NOT NULL AND v_answered >= v_cap THEN
    RETURN QUERY SELECT 'spent'::text, NULL::bigint, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::int,
      NULL::double precision, NULL::int, NULL::text, v_now, NULL::double precision, NULL::int, NULL::int, NULL::text, NULL::int;
    RETURN;
  END IF;
  IF p_strict THEN SELECT min(q.depth) INTO v_floor FROM pc_queue q WHERE q.state < 2; END IF;
  <<walk>>
  FOR pass IN 1..2 LOOP
    -- The depths that hold waiting URLs, shallowest first (strict: up to the floor, where a host whose
    -- min_depth is low for a moment is set right); each one's ready hosts in the index's order.
    SELECT min(ph.min_depth) INTO v_depth FROM pc_hosts ph;
    WHILE v_depth IS NOT NULL AND (v_floor IS NULL OR v_depth <= v_floor) LOOP
      FOR h IN SELECT ph.id AS hid, ph.origin AS horigin, ph.robots_state AS rstate, ph.robots_status AS rstatus,
                 ph.robots_body AS rbody, ph.delay_ms AS hdelay, ph.streak AS hstreak, ph.refusal AS hrefusal
          FROM pc_hosts ph
          WHERE ph.min_depth = v_depth AND greatest(ph.next_fetch_at, ph.reserved_until) <= v_now
            AND ph.next_fetch_at <= v_now AND ph.reserved_until < v_now
          ORDER BY greatest(ph.next_fetch_at, ph.reserved_until), ph.id LIMIT 129 LOOP
        v_looked := v_looked + 1;
        -- 32 hosts looked at, not counting those another claim emptied and set right after this walk
        -- began (its snapshot still lists them: on a busy machine a claim can see dozens so).
        IF v_looked - v_gone > 32 OR v_looked > 128 THEN v_capped := true; EXIT walk; END IF;
        r := h;
        -- A claim that will hold the host (a delay, or its robots.txt) locks its row, and reads it as it is now.
        v_held := h.rstate <> 2 OR h.hdelay > 0;
        IF v_held THEN
          SELECT ph.id AS hid, ph.origin AS horigin, ph.robots_state AS rstate, ph.robots_status AS rstatus,
                 ph.robots_body AS rbody, ph.delay_ms AS hdelay, ph.streak AS hstreak, ph.refusal AS hrefusal
            INTO r FROM pc_hosts ph WHERE ph.id = h.hid AND ph.next_fetch_at <= v_now AND ph.reserved_until < v_now
            FOR NO KEY UPDATE SKIP LOCKED;
          IF NOT FOUND THEN v_passed := v_passed + 1; CONTINUE; END IF;
        END IF;
        -- The host's first waiting URL at this depth (the floor, when strict) that no concurrent claim is taking.
        SELECT q.id, q.key, q.url, q.depth, q.attempts, q.hops INTO w FROM pc_queue q
          WHERE q.host_id = h.hid AND q.state = 0 AND q.depth = coalesce(v_floor, v_depth)
          ORDER BY q.id LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF NOT FOUND THEN
          IF EXISTS (SELECT 1 FROM pc_queue q WHERE q.host_id = h.hid AND q.state = 0 AND q.depth = coalesce(v_floor, v_depth)) THEN
            v_passed := v_passed + 1; -- taken by concurrent claims (a host with no delay)
          ELSE
            -- Its min_depth was low: set it right (holding its row; a statement of its own, see above).
            IF NOT v_held THEN
              PERFORM 1 FROM pc_hosts ph WHERE ph.id = h.hid FOR NO KEY UPDATE SKIP LOCKED;
              IF NOT FOUND THEN v_passed := v_passed + 1; CONTINUE; END IF;
            END IF;
            UPDATE pc_hosts ph SET min_depth = (SELECT min(q.depth) FROM pc_queue q WHERE q.host_id = h.hid AND q.state = 0)
              WHERE ph.id = h.hid AND ph.min_depth = v_depth;
            IF NOT FOUND THEN v_gone := v_gone + 1; END IF; -- already set right by the claim that emptied it
          END IF;
          CONTINUE;
        END IF;
        IF r.rstate <> 2 THEN
          -- The host's robots.txt comes first (also when an earlier robots claim's lease ran out).
          UPDATE pc_hosts SET robots_state = 1, reserved_by = v_token, reserved_until = v_now + p_lease + greatest(r.hdelay, 0) WHERE pc_hosts.id = h.hid;
          RETURN QUERY SELECT 'robots'::text, h.hid, v_token, r.horigin, r.horigin || '/robots.txt', r.horigin || '/robots.txt',
            w.depth, r.hdelay, NULL::int, NULL::text, v_now, NULL::double precision, 0, r.hstreak, r.hrefusal, 0;
          RETURN;
        END IF;
        IF v_cap IS NOT NULL THEN
          -- Under the budget's lock, read as committed now: the completions answered, and the page
          -- claims out not completed yet (a saved page waiting to be published is completed), which may all count.
          -- The URLs of this host before this one, at its depth, still waiting: concurrent claims skipped
          -- here are taking them, and the budget's last pages go to them first (breadth-first, as one
          -- process would take them), whichever of those claims gets this lock first.
          SELECT c.answered INTO v_answered FROM pc_crawl c WHERE c.id = 1 FOR NO KEY UPDATE;
          IF v_answered >= v_cap OR v_answered + (SELECT count(*) FROM pc_queue q WHERE q.state = 1 AND q.saved_by <> q.token)
              + (SELECT count(*) FROM pc_queue q WHERE q.host_id = h.hid AND q.state = 0 AND q.depth = w.depth AND q.id < w.id) >= v_cap THEN
            RETURN QUERY SELECT CASE WHEN v_answered >= v_cap THEN 'spent' END::text, NULL::bigint, NULL::bigint, NULL::text, NULL::text,
              NULL::text, NULL::int, NULL::double precision, NULL::int, NULL::text, v_now, p_poll, NULL::int, NULL::int, NULL::text, NULL::int;
            RETURN;
          END IF;
        END IF;
        UPDATE pc_queue SET state = 1, token = v_token, lease_until = v_now + p_lease WHERE pc_queue.id = w.id;
        -- Its host's min_depth again, holding its row. A host with no delay is not held: its row is
        -- taken here only if free (SKIP LOCKED), for this claim may hold rows of hosts it passed
        -- over, and a completion holding this one may wait for those (it locks hosts sorted by id):
        -- waiting here closed that cycle (a deadlock, seen at 100 hosts with no delay). When the row
        -- is taken, min_depth stays as it is: low for a moment at most, which the next claim sets right.
        -- A held host is held one interval past the lease (holdUntil in claim-store.ts): a holder that
        -- dies may have sent its request at the lease's last moment, and no completion will say when.
        IF v_held THEN
          UPDATE pc_hosts ph SET
            min_depth = (SELECT min(q.depth) FROM pc_queue q WHERE q.host_id = h.hid AND q.state = 0),
            reserved_by = v_token, reserved_until = v_now + p_lease + greatest(r.hdelay, 0)
            WHERE ph.id = h.hid;
        ELSE
          PERFORM 1 FROM pc_hosts ph WHERE ph.id = h.hid FOR NO KEY UPDATE SKIP LOCKED;
          IF FOUND THEN
            UPDATE pc_hosts ph SET min_depth = (SELECT min(q.depth) FROM pc_queue q WHERE q.host_id = h.hid AND q.state = 0)
              WHERE ph.id = h.hid;
          END IF;
        END IF;
        RETURN QUERY SELECT 'page'::text, w.id, v_token, r.horigin, w.key, w.url, w.depth, r.hdelay,
          r.rstatus, r.rbody, v_now, NULL::double precision, w.attempts, r.hstreak, r.hrefusal, w.hops;
        RETURN;
      END LOOP;
      SELECT min(ph.min_depth) INTO v_depth FROM pc_hosts ph WHERE ph.min_depth > v_depth;
    END LOOP;
    EXIT WHEN pass = 2 OR v_looked > 0;
    -- Nothing ready: give expired leases back, and look again if there were any. A row another
    -- transaction holds (its own completion, or a claim publishing it) is left to a later claim:
    -- waiting for it could close a cycle with a claim that holds its published row and reaps too.
    WITH back AS (
      UPDATE pc_queue SET state = 0, token = 0 WHERE pc_queue.id IN (
        SELECT q.id FROM pc_queue q WHERE q.state = 1 AND q.lease_until < v_now FOR UPDATE SKIP LOCKED)
      RETURNING pc_queue.host_id, pc_queue.depth
    ) SELECT array_agg(back.host_id), array_agg(back.depth) INTO v_hosts, v_depths FROM back;
    EXIT WHEN v_hosts IS NULL;
    PERFORM 1 FROM pc_hosts ph WHERE ph.id = ANY (v_hosts) ORDER BY ph.id FOR NO KEY UPDATE;
    UPDATE pc_hosts ph SET min_depth = LEAST(ph.min_depth, m.d)
      FROM (SELECT u.h, min(u.d) AS d FROM unnest(v_hosts, v_depths) AS u(h, d) GROUP BY u.h) m
      WHERE ph.id = m.h;
  END LOOP;
  -- When the next host with work is free: the first in the index at each depth; a held host, one
  -- passed over, or only claims out means: poll.
  IF v_passed > 0 OR v_capped THEN
    v_free := v_now + p_poll;
  ELSE
    SELECT min(ph.min_depth) INTO v_depth FROM pc_hosts ph;
    WHILE v_depth IS NOT NULL AND (v_floor IS NULL OR v_depth <= v_floor) LOOP
      SELECT CASE WHEN ph.reserved_until >= v_now THEN v_now + p_poll ELSE ph.next_fetch_at END INTO v_next FROM pc_hosts ph
        WHERE ph.min_depth = v_depth ORDER BY greatest(ph.next_fetch_at, ph.reserved_until), ph.id LIMIT 1;
      v_free := least(v_free, v_next);
      SELECT min(ph.min_depth) INTO v_depth FROM pc_hosts ph WHERE ph.min_depth > v_depth;
    END LOOP;
  END IF;
  IF v_free IS NULL THEN
    SELECT v_now + p_poll INTO v_free FROM pc_queue q WHERE q.state = 1 LIMIT 1;
  END IF;
  IF v_free IS NULL THEN RETURN; END IF; -- nothing waiting, no claim out: the crawl is done
  RETURN QUERY SELECT NULL::text, NULL::bigint, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::int,
    NULL::double precision, NULL::int, NULL::text, v_now, greatest(v_free - v_now, 0), NULL::int, NULL::int, NULL::text, NULL::int;
END $$;

`;
