-- A match's Elo updates kept on its seats, and records packed (docs/storage.md; the bytes
-- a Hollywood Gin hand takes, docs/performance.md, "A million matches").
--
-- Each Elo update was a row of rating_history of its own, with its own key: about 130
-- bytes a seat. It is now three columns of the seat it belongs to (the first seat of its
-- bot version in the match, when a version fills several), read along one index in
-- completion order, as the history's key was read.
ALTER TABLE match_seats
    ADD COLUMN finish_seq bigint,
    ADD COLUMN rating_before double precision,
    ADD COLUMN rating_after double precision,
    ADD CHECK ((rating_after IS NULL) = (rating_before IS NULL)),
    ADD CHECK (rating_after IS NULL OR finish_seq IS NOT NULL);

UPDATE match_seats s
SET finish_seq = h.finish_seq, rating_before = h.rating_before, rating_after = h.rating_after
FROM rating_history h
WHERE s.match_id = h.match_id AND s.bot_version_id = h.bot_version_id
    AND s.seat = (SELECT min(f.seat) FROM match_seats f
                  WHERE f.match_id = h.match_id AND f.bot_version_id = h.bot_version_id);

CREATE INDEX match_seats_history ON match_seats (bot_version_id, finish_seq)
    WHERE rating_after IS NOT NULL;

-- A worker of the release before still writes rating_history during a rolling upgrade:
-- its rows move to their seats once its statement is done (an AFTER trigger: the
-- statement's own update of the seats' results comes first), and the table stays empty
-- until a later migration drops it.
DELETE FROM rating_history;
CREATE FUNCTION rating_history_to_seats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE match_seats s
    SET finish_seq = NEW.finish_seq, rating_before = NEW.rating_before,
        rating_after = NEW.rating_after
    WHERE s.match_id = NEW.match_id AND s.seat = (
        SELECT min(f.seat) FROM match_seats f
        WHERE f.match_id = NEW.match_id AND f.bot_version_id = NEW.bot_version_id);
    DELETE FROM rating_history
    WHERE bot_version_id = NEW.bot_version_id AND finish_seq = NEW.finish_seq;
    RETURN NULL;
END $$;
CREATE TRIGGER rating_history_to_seats AFTER INSERT ON rating_history
    FOR EACH ROW EXECUTE FUNCTION rating_history_to_seats();

-- A record is kept packed (worker/store/packing.py), its format saying how. Its game is
-- its match's, which reads now join: the copy here is no longer written (a worker of the
-- release before still writes it).
ALTER TABLE match_records ALTER COLUMN game DROP NOT NULL;

-- Two things nothing reads: the index that kept the matches' completion numbers unique
-- (they come from one sequence, and the ladders' index and match_seats_history are what
-- read them), and the time a record was stored (its match's finished_at, the same
-- transaction's).
ALTER TABLE matches DROP CONSTRAINT matches_finish_seq_key;
ALTER TABLE match_records ALTER COLUMN created_at DROP NOT NULL,
    ALTER COLUMN created_at DROP DEFAULT;
