-- Where a running match is played, for the web app's live view (docs/viewer.md): the
-- address of its worker's referee and the referee's id of the match. Postgres is where
-- the app reads it, not Redis, which every hosted bot's worker host can write: an
-- address read from there could point the app at any server. Only the holder of the
-- match's claim writes it (Store.set_live); the trigger clears it whenever the match
-- leaves `running` or changes hands, whatever statement moves it, so an address never
-- outlives the play that wrote it.
ALTER TABLE matches
    ADD COLUMN live_referee text,
    ADD COLUMN live_match text,
    ADD CHECK (live_referee IS NULL OR state = 'running');

CREATE FUNCTION matches_clear_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.live_referee := NULL;
    NEW.live_match := NULL;
    RETURN NEW;
END
$$;

CREATE TRIGGER matches_clear_live BEFORE UPDATE ON matches FOR EACH ROW
    WHEN (OLD.live_referee IS NOT NULL
          AND (NEW.state <> 'running' OR NEW.lease_holder IS DISTINCT FROM OLD.lease_holder))
    EXECUTE FUNCTION matches_clear_live();
