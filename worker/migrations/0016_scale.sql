-- What keeps the reads flat and the rows small at a million matches
-- (docs/performance.md, "A million matches").
--
-- A tournament's matches newest first, and its newest done match, read from its own
-- rows: with an index on tournament_id alone the planner walked the whole of matches
-- backwards by id until it met the tournament's newest (an old tournament: all of it).
DROP INDEX matches_tournament;
CREATE INDEX matches_tournament ON matches (tournament_id, id) WHERE tournament_id IS NOT NULL;

-- A ladder's matches not yet settled (queued, running, failed, cancelled), counted by
-- every tick and by the ladder's progress, without reading its history.
CREATE INDEX matches_ladder_unsettled ON matches (ladder_id, state)
    WHERE state <> 'done' AND ladder_id IS NOT NULL;
-- Its finished matches no tick has rated yet, in completion order: a tick reads a batch
-- of them along this index (on ladder_id alone, the planner, which cannot know how few
-- they are, hashed the whole of match_seats). Only ladders' matches: the index it
-- replaces also held every finished match played outside a ladder, under a NULL key.
DROP INDEX matches_ladder_uncounted;
CREATE INDEX matches_ladder_uncounted ON matches (ladder_id, finish_seq)
    WHERE state = 'done' AND NOT ladder_counted AND ladder_id IS NOT NULL;
-- And those it has rated, counted as they are marked (by this trigger, whatever release
-- marks them), so that the ladder's progress does not count its whole history.
ALTER TABLE ladders ADD COLUMN rated_matches bigint NOT NULL DEFAULT 0;
UPDATE ladders l SET rated_matches = (
    SELECT count(*) FROM matches m
    WHERE m.ladder_id = l.id AND m.state = 'done' AND m.ladder_counted);
CREATE FUNCTION matches_count_rated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ladders SET rated_matches = rated_matches + 1 WHERE id = NEW.ladder_id;
    RETURN NULL;
END $$;
CREATE TRIGGER matches_count_rated AFTER UPDATE OF ladder_counted ON matches
    FOR EACH ROW WHEN (NEW.ladder_counted AND NOT OLD.ladder_counted AND NEW.ladder_id IS NOT NULL)
    EXECUTE FUNCTION matches_count_rated();

-- Indexes nothing reads: the seated bot versions of a record (match_seats_bot answers
-- "matches of a bot"), records by game and time, and rating history by match; and one
-- read by the Elo recompute alone (a game's matches in completion order), which now
-- sorts them itself: it is a bulk job run by an operator, and the index cost 70 bytes
-- a match.
DROP INDEX match_records_bots;
DROP INDEX match_records_game_time;
DROP INDEX rating_history_match;
DROP INDEX matches_game_finish;
-- A version plays one game, so its history is keyed by version and completion order:
-- the key without the game's name is half as long, and this index is the history's
-- largest part.
ALTER TABLE rating_history DROP CONSTRAINT rating_history_pkey,
    ADD PRIMARY KEY (bot_version_id, finish_seq);
-- The record's copies of its seats and winners (match_seats holds both, with ranks)
-- are no longer written. They become optional here, so that a worker of the previous
-- release, which still writes them, finishes its matches during a rolling upgrade; a
-- later migration drops them.
ALTER TABLE match_records ALTER COLUMN bot_version_ids DROP NOT NULL,
    ALTER COLUMN winners DROP NOT NULL;

-- A claim may write where its play runs (Store.claim_match with live_referee), saving the
-- statement that wrote it after the claim: the trigger of migration 0004 clears the old
-- play's location when the match changes hands, unless the statement that moves it
-- writes the new play's own.
DROP TRIGGER matches_clear_live ON matches;
CREATE TRIGGER matches_clear_live BEFORE UPDATE ON matches FOR EACH ROW
    WHEN (OLD.live_referee IS NOT NULL
          AND (NEW.state <> 'running' OR NEW.lease_holder IS DISTINCT FROM OLD.lease_holder)
          AND NEW.live_referee IS NOT DISTINCT FROM OLD.live_referee
          AND NEW.live_match IS NOT DISTINCT FROM OLD.live_match)
    EXECUTE FUNCTION matches_clear_live();
