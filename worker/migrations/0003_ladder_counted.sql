-- A ladder's tick marks each finished match it has rated, instead of remembering the
-- completion number (finish_seq) it had read up to: two finishes of matches with no
-- bot in common are not ordered by any lock, so the one that drew the lower number
-- may commit after a tick has read the other, and a tick reading "above the last
-- number" would never see it.
ALTER TABLE matches ADD COLUMN ladder_counted boolean NOT NULL DEFAULT false;
UPDATE matches m SET ladder_counted = true
FROM ladders l
WHERE m.ladder_id = l.id AND m.state = 'done' AND m.finish_seq <= l.through_seq;
ALTER TABLE ladders DROP COLUMN through_seq;
CREATE INDEX matches_ladder_uncounted ON matches (ladder_id)
    WHERE state = 'done' AND NOT ladder_counted;
