/**
 * The PostgreSQL frontier's calls about one host without a URL of the
 * queue, as SQL text (part of PG_SCHEMA, claim-postgres-sql.ts, whose
 * comment gives the lock order): `pc_robots_for`, the robots.txt answer of
 * a host a link leads to, and `pc_turn`, a host's turn (a robots.txt
 * redirect's hop to it). Each makes the host's row when new, then locks only
 * that row, SKIP LOCKED, after an insert that waits for nothing it holds.
 */
export const PC_HOST_SQL = `
-- The robots.txt answer of a host a link leads to (its row made when new): the answer when known
-- ('answer'), else a claim of it when the host is ready and free ('robots'), else a time to wait.
-- It locks only that host's row, SKIP LOCKED, after an insert that waits for nothing it holds.
-- p_token is the caller's: a robots claim it already holds (its first try committed, its answer was lost) is returned again.
CREATE OR REPLACE FUNCTION pc_robots_for(p_origin text, p_depth int, p_lease double precision, p_poll double precision, p_token bigint)
RETURNS TABLE (kind text, id bigint, token bigint, robots_status int, robots_body text, delay_ms double precision,
               clock double precision, wait_ms double precision, streak int, refusal text)
LANGUAGE plpgsql AS $$
DECLARE
  v_now double precision := pc_now();
  v_robots boolean;
  v_delay double precision;
  h record;
BEGIN
  SELECT c.robots, c.delay_ms INTO v_robots, v_delay FROM pc_crawl c WHERE c.id = 1;
  INSERT INTO pc_hosts (origin, robots_state, delay_ms) VALUES (p_origin, CASE WHEN v_robots THEN 0 ELSE 2 END, v_delay)
    ON CONFLICT DO NOTHING;
  SELECT ph.id AS hid, ph.robots_state AS rstate, ph.robots_status AS rstatus, ph.robots_body AS rbody, ph.delay_ms AS hdelay,
         ph.next_fetch_at AS nf, ph.reserved_until AS ru, ph.reserved_by AS rby, ph.streak AS hstreak, ph.refusal AS hrefusal
    INTO h FROM pc_hosts ph WHERE ph.origin = p_origin;
  IF h.rstate = 1 AND h.rby = p_token THEN
    RETURN QUERY SELECT 'robots'::text, h.hid, p_token, NULL::int, NULL::text, h.hdelay, v_now, NULL::double precision, h.hstreak, h.hrefusal;
    RETURN;
  END IF;
  IF h.rstate = 2 THEN
    RETURN QUERY SELECT 'answer'::text, h.hid, NULL::bigint, h.rstatus, h.rbody, h.hdelay, v_now, NULL::double precision, h.hstreak, h.hrefusal;
    RETURN;
  END IF;
  IF h.ru < v_now AND h.nf <= v_now THEN
    PERFORM 1 FROM pc_hosts ph WHERE ph.id = h.hid AND ph.robots_state <> 2 AND ph.reserved_until < v_now AND ph.next_fetch_at <= v_now
      FOR NO KEY UPDATE SKIP LOCKED;
    IF FOUND THEN
      UPDATE pc_hosts SET robots_state = 1, reserved_by = p_token, reserved_until = v_now + p_lease + greatest(h.hdelay, 0) WHERE pc_hosts.id = h.hid;
      RETURN QUERY SELECT 'robots'::text, h.hid, p_token, NULL::int, NULL::text, h.hdelay, v_now, NULL::double precision, h.hstreak, h.hrefusal;
      RETURN;
    END IF;
  END IF;
  RETURN QUERY SELECT NULL::text, NULL::bigint, NULL::bigint, NULL::int, NULL::text, NULL::double precision, v_now,
    CASE WHEN h.ru < v_now AND h.nf > v_now THEN h.nf - v_now ELSE p_poll END, NULL::int, NULL::text;
END $$;

-- A host's turn without a URL (its row made when new): a 'turn' claim when the host is ready and free,
-- which holds the host under p_token when it has a delay (as a page claim), else a time to wait.
-- It changes neither the host's robots.txt state nor its queue; pc_release ends it.
-- p_token is the caller's: the turn its first try took (it holds the host still) is returned again.
CREATE OR REPLACE FUNCTION pc_turn(p_origin text, p_lease double precision, p_poll double precision, p_token bigint)
RETURNS TABLE (kind text, id bigint, token bigint, robots_status int, robots_body text, delay_ms double precision,
               clock double precision, wait_ms double precision, streak int, refusal text)
LANGUAGE plpgsql AS $$
DECLARE
  v_now double precision := pc_now();
  v_robots boolean;
  v_delay double precision;
  h record;
  r record;
BEGIN
  SELECT c.robots, c.delay_ms INTO v_robots, v_delay FROM pc_crawl c WHERE c.id = 1;
  INSERT INTO pc_hosts (origin, robots_state, delay_ms) VALUES (p_origin, CASE WHEN v_robots THEN 0 ELSE 2 END, v_delay)
    ON CONFLICT DO NOTHING;
  SELECT ph.id AS hid, ph.next_fetch_at AS nf, ph.reserved_until AS ru, ph.reserved_by AS rby
    INTO h FROM pc_hosts ph WHERE ph.origin = p_origin;
  IF h.rby = p_token OR (h.ru < v_now AND h.nf <= v_now) THEN
    SELECT ph.robots_status AS rstatus, ph.robots_body AS rbody, ph.delay_ms AS hdelay, ph.streak AS hstreak, ph.refusal AS hrefusal
      INTO r FROM pc_hosts ph
      WHERE ph.id = h.hid AND (ph.reserved_by = p_token OR (ph.reserved_until < v_now AND ph.next_fetch_at <= v_now))
      FOR NO KEY UPDATE SKIP LOCKED;
    IF FOUND THEN
      IF r.hdelay > 0 THEN
        UPDATE pc_hosts SET reserved_by = p_token, reserved_until = v_now + p_lease + greatest(r.hdelay, 0) WHERE pc_hosts.id = h.hid AND pc_hosts.reserved_by <> p_token;
      END IF;
      RETURN QUERY SELECT 'turn'::text, h.hid, p_token, r.rstatus, r.rbody, r.hdelay, v_now, NULL::double precision, r.hstreak, r.hrefusal;
      RETURN;
    END IF;
  END IF;
  RETURN QUERY SELECT NULL::text, NULL::bigint, NULL::bigint, NULL::int, NULL::text, NULL::double precision, v_now,
    CASE WHEN h.ru < v_now AND h.nf > v_now THEN h.nf - v_now ELSE p_poll END, NULL::int, NULL::text;
END $$;

`;
